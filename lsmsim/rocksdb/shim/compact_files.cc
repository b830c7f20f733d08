// lsmsim's CompactFiles shim: RocksDB 7.8's C API (rocksdb/c.h) has no DB::CompactFiles, so this
// exposes one C function that the Python bridge (lsmsim/rocksdb/bridge.py) calls through ctypes.
//
// Build (lsmsim/rocksdb/shim.py does this, into a per-user cache):
//   g++ -O2 -shared -fPIC -std=c++17 compact_files.cc -o liblsmsim_rocksdb_shim.so -lrocksdb
//
// Reaching the C++ DB from a rocksdb_t*: c.h only declares `typedef struct rocksdb_t rocksdb_t;`; RocksDB's
// db/c.cc defines it as `struct rocksdb_t { DB* rep; };`. We repeat that definition. This relies on
// c.cc's private layout, which has been the same single-pointer struct through RocksDB 7.x (and earlier);
// it must be checked again when moving to another major version.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include <rocksdb/c.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>
#include <rocksdb/status.h>

extern "C" {
struct rocksdb_t {
  rocksdb::DB* rep;
};
}

namespace {

// Same convention as c.cc's SaveError: a malloc()ed message the caller frees with rocksdb_free (free()).
void SetError(char** errptr, const std::string& msg) {
  if (errptr == nullptr) return;
  if (*errptr != nullptr) std::free(*errptr);
  *errptr = strdup(msg.c_str());
}

}  // namespace

extern "C" {

// Compacts the live SST files `names[0..n)` (as GetLiveFilesMetaData / rocksdb_livefiles_name report
// them, e.g. "/000012.sst"; RocksDB parses the file number after the last '/') of the default column
// family into `output_level`, uncompressed, cutting output files at `output_file_size_limit` bytes
// (0 keeps RocksDB's default: one output file). Runs in the calling thread (DB::CompactFiles).
// Returns 0 on success; on failure -1 with *errptr set to RocksDB's status message.
__attribute__((visibility("default"))) int lsmsim_compact_files(rocksdb_t* db, const char* const* names,
                                                                size_t n, int output_level,
                                                                uint64_t output_file_size_limit,
                                                                char** errptr) {
  if (db == nullptr || db->rep == nullptr) {
    SetError(errptr, "Invalid argument: lsmsim_compact_files: null rocksdb_t");
    return -1;
  }
  try {
    std::vector<std::string> files;
    files.reserve(n);
    for (size_t i = 0; i < n; ++i) {
      if (names == nullptr || names[i] == nullptr) {
        SetError(errptr, "Invalid argument: lsmsim_compact_files: null file name");
        return -1;
      }
      files.emplace_back(names[i]);
    }
    rocksdb::CompactionOptions options;
    options.compression = rocksdb::kNoCompression;  // CompactionOptions defaults to snappy
    if (output_file_size_limit > 0) options.output_file_size_limit = output_file_size_limit;
    rocksdb::Status s = db->rep->CompactFiles(options, files, output_level);
    if (!s.ok()) {
      SetError(errptr, s.ToString());
      return -1;
    }
    return 0;
  } catch (const std::exception& e) {
    SetError(errptr, std::string("lsmsim_compact_files: ") + e.what());
  } catch (...) {
    SetError(errptr, "lsmsim_compact_files: unknown C++ exception");
  }
  return -1;
}

}  // extern "C"
