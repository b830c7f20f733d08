"""What the fio readers share: the error they raise and the file reading that raises it."""

from __future__ import annotations

import os
from pathlib import Path

from ...errors import LsmsimError

DIRECTIONS = ("read", "write", "trim")


class FioParseError(LsmsimError, ValueError):
    """A fio job file, result or log that cannot be read. The message names the file."""

    def __init__(self, path: str | os.PathLike, reason: str):
        self.path = str(path)
        self.reason = reason
        super().__init__(f"{self.path}: {reason}")


def read_text(path: Path, what: str) -> str:
    """A file's UTF-8 text; every failure is a FioParseError naming the file (`what`: 'a fio job file')."""
    try:
        return path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise FioParseError(path, "no such file") from None
    except IsADirectoryError:
        raise FioParseError(path, f"is a directory, not {what}") from None
    except UnicodeDecodeError as e:
        raise FioParseError(path, f"not a text file ({e.reason} at byte {e.start})") from None
    except OSError as e:
        raise FioParseError(path, f"cannot read: {e.strerror or e}") from None
