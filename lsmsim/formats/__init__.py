"""RocksDB's and db_bench's formats in and out of lsmsim configs and results: OPTIONS files (`lsmsim import` /
`export`), a run written as RocksDB's LOG, and db_bench command lines as configs (`lsmsim run --dbbench`).
Pure text: nothing here loads librocksdb or runs db_bench."""
