"""The schedules EcoTune's paper prints (Wang et al., SIGMOD 2025, Sec. 5.2, Tables 5-8), as data.

10 cores, R = 29, C = 3; the paper gives none of T_w, T_c, beta or f. Each table is a list of MLCs (tmc, lo, hi)
over unit runs lo..hi; `paper_schedule(n)` turns Table n into a `Schedule` that prints as the paper does (I11 in
dp.py). Three printed rows do not add up to their TMC (Table 6 rows 23 and 25, Table 7 row 29) and are read as
the consistent schedule given in the table's note.
"""

from __future__ import annotations

from .schedule import Schedule

__all__ = ["PAPER_TABLES", "paper_schedule"]

# table -> its caption, the long-range ratios r it was printed for, its MLCs (tmc, lo, hi), a note on misprints
PAPER_TABLES = {
    5: {
        "caption": "10 cores + 10% Long Range Scan",
        "r": (0.1,),
        "merges": ((7, 1, 7), (14, 8, 14), (21, 15, 21), (24, 22, 24)),
        "note": "",
    },
    6: {
        "caption": "10 cores + 20% Long Range Scan",
        "r": (0.2,),
        "merges": ((3, 1, 3), (8, 1, 8), (11, 9, 11), (15, 9, 15), (18, 16, 18), (22, 16, 22), (25, 23, 25)),
        "note": "printed rows '23: 8 7 3 4[1] -> 8 7 7' and '25: 8 7 7 4[1] -> 8 7 7 3' add up to 22 and 26; "
        "read as TMC 22 (8 7 3 4[1] -> 8 7 7) and TMC 25 (8 7 7 3[1] -> 8 7 7 3)",
    },
    7: {
        "caption": "10 cores + 30% - 80% Long Range Scan",
        "r": (0.3, 0.4, 0.5, 0.6, 0.7, 0.8),
        "merges": ((3, 1, 3), (7, 1, 7), (10, 8, 10), (14, 1, 14), (17, 15, 17), (21, 15, 21), (25, 22, 25)),
        "note": "printed last row '29: 14 7 4[1]' adds up to 25; read as 14 7 4 4[1]",
    },
    8: {
        "caption": "10 cores + 90% - 100% Long Range Scan",
        "r": (0.9, 1.0),
        "merges": (
            (3, 1, 3),
            (7, 1, 7),
            (10, 8, 10),
            (13, 1, 13),
            (16, 14, 16),
            (20, 14, 20),
            (23, 21, 23),
            (26, 24, 26),
        ),
        "note": "",
    },
}


def paper_schedule(table: int) -> Schedule:
    """The paper's Table 5, 6, 7 or 8 as a Schedule (R = 29)."""
    return Schedule.from_merges(29, PAPER_TABLES[table]["merges"])
