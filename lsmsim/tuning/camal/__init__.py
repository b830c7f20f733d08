"""CAMAL (Yu, Luo, Yu and Cong, SIGMOD'25): active learning of an LSM-tree's size ratio, compaction policy, Bloom
bits per key and memory split, over lsmsim runs (`lsmsim camal`; docs/camal-readings.md)."""
