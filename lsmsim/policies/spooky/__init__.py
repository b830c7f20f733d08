"""Spooky (Dayan et al., PVLDB 2022): compaction granulation that partitions the largest levels into perfectly
overlapping files and merges them one group at a time, so that write-amp stays near Full Merge's while transient
space-amp stays near Partial Merge's.

levels.py the level structure (L, C_L, X, DCA, tree evolution); groups.py the largest level's partitions and the
groups of a partitioned merge; policy.py the `spooky` policy (Algorithm 2 with the RocksDB implementation's three
concurrent compactions and rLevel-0 compactions, §5)."""
