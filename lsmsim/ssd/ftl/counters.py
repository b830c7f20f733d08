"""What an FTL has done since it was created (`FTLCounters`), and where the numba kernels keep each count."""

from __future__ import annotations

from dataclasses import dataclass

from ._kernels import C_BG, C_ERASE, C_FG, C_FLASH, C_FREE_COUNT, C_GC, C_HOST, C_MAPPED, C_TRIM

__all__ = ["FTLCounters", "SLOTS"]


@dataclass(frozen=True)
class FTLCounters:
    """Page and block counts of an FTL (a snapshot; `FTL.counters`). GC write-amp = flash_pages / host_pages, the
    SSD's factor of total write-amp = compaction write-amp x GC write-amp (Spooky, PVLDB 2022, Eq. 2)."""

    host_pages: int = 0  # pages written by the host
    flash_pages: int = 0  # pages programmed on flash: host pages + GC copies
    gc_copies: int = 0  # valid pages GC copied out of its victims (fg_gc_copies + bg_gc_copies)
    erases: int = 0  # erase-block erases
    fg_gc_copies: int = 0  # GC copies made while a host write waited for a free block
    bg_gc_copies: int = 0  # GC copies made by idle_gc
    trimmed_pages: int = 0  # mapped pages invalidated by trim
    mapped_pages: int = 0  # logical pages currently holding data (written and not trimmed)
    free_blocks: int = 0  # erased blocks ready for a frontier

    @classmethod
    def from_array(cls, ctr) -> FTLCounters:
        """The counts held in the kernels' `ctr` array."""
        return cls(**{name: int(ctr[slot]) for name, slot in SLOTS.items()})

    @property
    def write_amp(self) -> float:
        """flash_pages / host_pages since creation (nan before the first write)."""
        h = self.host_pages
        return self.flash_pages / h if h else float("nan")


# counter -> its slot in the kernels' int64 `ctr` array
SLOTS = {
    "host_pages": C_HOST,
    "flash_pages": C_FLASH,
    "gc_copies": C_GC,
    "erases": C_ERASE,
    "fg_gc_copies": C_FG,
    "bg_gc_copies": C_BG,
    "trimmed_pages": C_TRIM,
    "mapped_pages": C_MAPPED,
    "free_blocks": C_FREE_COUNT,
}
