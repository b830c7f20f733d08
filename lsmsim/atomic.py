"""Atomic file and folder writes: readers see the old state or the whole new one, never a part.

A file is written to a hidden temporary file in its folder and renamed over the target
(`os.replace` is atomic within one file system). A folder is filled under a hidden `.tmp-*` name,
fsynced, and renamed into place, so a power loss leaves it whole or absent. A leaf module: it
imports nothing from lsmsim, so any layer may use it.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path


def atomic_write(path: Path, write) -> None:
    """Write via a temporary file in the same folder and rename it: readers never see a partial file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    os.close(fd)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~_umask())  # mkstemp makes 0600; the result is an ordinary file
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_dir(path: Path, fill: Callable[[Path], None]) -> Path:
    """Create folder `path` whole: `fill(tmp)` writes its files into a hidden `.tmp-*` sibling, which
    is renamed into place once fsynced. A folder already at `path` is kept (the new one is dropped)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=path.parent, prefix=".tmp-"))
    try:
        fill(tmp)
        os.chmod(tmp, 0o777 & ~_umask())  # mkdtemp makes 0700; the result is an ordinary folder
        fsync_tree(tmp)  # the rename must not reach the disk before the files it publishes
        if path.exists():
            shutil.rmtree(tmp)
        else:
            os.rename(tmp, path)
            fsync(path.parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def fsync(path: Path) -> None:
    """fsync a file or a folder (a folder's fsync makes the renames inside it durable)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def fsync_tree(root: Path) -> None:
    """fsync every file of a folder, then the folder (a power loss leaves it whole or absent)."""
    for p in root.rglob("*"):
        if p.is_file():
            fsync(p)
    fsync(root)


__all__ = ["atomic_write", "atomic_dir", "fsync", "fsync_tree"]
