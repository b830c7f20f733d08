"""No compaction: the tree stays as it is built or flushed (read-only experiments on a fixed shape).

EcoTune SIGMOD'25 §4.1 measures "instantaneous" query speed on static 4-level trees (Fig. 3, Table 3):
the workload is read-only "to keep the LSM-tree static". With `lsm.initial_tree` giving the shape, this
policy keeps it: it never picks a compaction. Writes, if a phase has them, flush into L0 and stay there
(RocksDB with disable_auto_compactions, whose write stalls still apply).
"""

from __future__ import annotations

from typing import Literal

from .base import Compaction, Policy, PolicyOptions
from .registry import register
from .view import View


class StaticOptions(PolicyOptions):
    """No compaction (a static tree: `lsm.initial_tree`, read-only phases)."""

    name: Literal["static"]


@register
class Static(Policy):
    name = "static"
    Options = StaticOptions

    def needs_compaction(self, view: View) -> bool:
        return False

    def pick(self, view: View) -> Compaction | None:
        return None
