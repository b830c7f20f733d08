"""The package version, in a leaf module so that any layer may read it without importing `lsmsim` (whose
`__init__` imports the API on top of everything)."""

__version__ = "0.1.0"
