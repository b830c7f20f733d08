"""What every object owning a native RocksDB handle shares: keys and values passed to C as bytes, and a
lifetime that `with` and garbage collection end (`close()` frees the handle exactly once)."""

from __future__ import annotations


def to_bytes(x) -> bytes:
    """A key or value as the bytes handed to C: bytes as is, str utf-8 encoded, bytearray/memoryview copied."""
    if isinstance(x, bytes):
        return x
    if isinstance(x, str):
        return x.encode("utf-8")
    if isinstance(x, (bytearray, memoryview)):
        return bytes(x)
    raise TypeError(f"keys and values are bytes (or str), not {type(x).__name__}")


class Closable:
    """A native handle's lifetime: `with` closes it, and so does garbage collection."""

    def close(self) -> None:  # pragma: no cover - every subclass has its own
        raise NotImplementedError

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


__all__ = ["to_bytes", "Closable"]
