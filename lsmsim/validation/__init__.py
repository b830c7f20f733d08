"""lsmsim judged against real RocksDB: db_bench runs and their reports (dbbench.py), the validation matrix
(matrix.py), the host's calibration (calibrate.py, `lsmsim calibrate`), decision fidelity across option sets
(fidelity.py), `lsmsim validate` on the ctypes bridge (validate.py) and a static shape's reads (static_shape.py).
The bridge itself is `lsmsim.rocksdb`; RocksDB's text formats are `lsmsim.formats`."""
