"""What RocksDB reports about itself, decoded into Python: the text of Statistics::ToString
(`parse_statistics`) and the live SST files' metadata of GetLiveFilesMetaData (`LiveFile`)."""

from __future__ import annotations

import ctypes
from ctypes import byref, c_size_t
from dataclasses import dataclass


@dataclass(frozen=True)
class LiveFile:
    """One SST file as GetLiveFilesMetaData reports it (c.h rocksdb_livefiles_*); name like "/000012.sst"."""

    name: str
    level: int
    size: int
    smallest_key: bytes
    largest_key: bytes
    entries: int
    deletions: int


def parse_statistics(text: str) -> dict:
    """Statistics::ToString() -> {ticker: int} and {histogram: {"P50": .., "COUNT": .., "SUM": ..}}.

    Tickers read "rocksdb.compact.read.bytes COUNT : 123"; histograms
    "rocksdb.db.get.micros P50 : 1.0 P95 : 2.0 P99 : 3.0 P100 : 4.0 COUNT : 5 SUM : 6".
    """
    out: dict = {}
    for line in text.splitlines():
        tok = line.split()
        if len(tok) < 4 or (len(tok) - 1) % 3 or any(s != ":" for s in tok[2::3]):
            continue
        fields = dict(zip(tok[1::3], tok[3::3]))
        try:
            if list(fields) == ["COUNT"]:
                out[tok[0]] = int(fields["COUNT"])
            else:
                out[tok[0]] = {k: float(v) for k, v in fields.items()}
        except ValueError:
            continue
    return out


def read_live_files(lib, db_handle: int) -> list[LiveFile]:
    """The live SST files of an open DB (rocksdb_livefiles: GetLiveFilesMetaData), in RocksDB's order;
    their names and keys are copied out of the livefiles object, which is destroyed before returning."""
    lf = lib.rocksdb_livefiles(db_handle)
    if not lf:
        return []
    try:
        out = []
        n1, n2 = c_size_t(), c_size_t()
        for i in range(lib.rocksdb_livefiles_count(lf)):
            sp = lib.rocksdb_livefiles_smallestkey(lf, i, byref(n1))
            lp = lib.rocksdb_livefiles_largestkey(lf, i, byref(n2))
            out.append(
                LiveFile(
                    name=(lib.rocksdb_livefiles_name(lf, i) or b"").decode(),
                    level=lib.rocksdb_livefiles_level(lf, i),
                    size=lib.rocksdb_livefiles_size(lf, i),
                    smallest_key=ctypes.string_at(sp, n1.value) if sp else b"",
                    largest_key=ctypes.string_at(lp, n2.value) if lp else b"",
                    entries=lib.rocksdb_livefiles_entries(lf, i),
                    deletions=lib.rocksdb_livefiles_deletions(lf, i),
                )
            )
        return out
    finally:
        lib.rocksdb_livefiles_destroy(lf)


__all__ = ["LiveFile", "parse_statistics", "read_live_files"]
