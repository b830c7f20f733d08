"""Tuners: learn a configuration from lsmsim runs (CAMAL's active learning, `lsmsim camal`)."""
