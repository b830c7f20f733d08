"""Errors a user can cause. The CLI turns them into one message and exit code 2, never a traceback."""


class LsmsimError(Exception):
    """Base of errors meant for the user."""


class ConfigError(LsmsimError):
    """A config value or file is wrong. `errors` holds (yaml_path, message) pairs."""

    def __init__(self, source: str, errors: list[tuple[str, str]]):
        self.source = source
        self.errors = errors
        lines = [f"{source}: invalid configuration"] + [f"  {path}: {msg}" for path, msg in errors]
        super().__init__("\n".join(lines))


class InvariantError(AssertionError):
    """The simulated LSM tree broke one of its invariants (a bug in a policy or the kernel)."""
