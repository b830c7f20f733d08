"""The compaction design space (Sarkar et al., PVLDB'21): strategies composed from four primitives.

primitives.py the vocabulary, the ten strategies of Table 2 and the check of an ensemble; policy.py the
`composed` policy that runs them (leveled layouts on RocksDB's leveled picker, tiering on its universal one).
"""
