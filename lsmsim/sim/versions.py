"""Obsolete table files that running jobs still hold: RocksDB deletes a file only when no version holds it.

A RocksDB `Version` is the set of live files at one install. Every running compaction holds the version it
picked from (`Compaction::FinalizeInputInfo` refs `input_version_`, `Compaction::~Compaction` unrefs it;
db/compaction/compaction.cc), and so does every flush (`FlushJob::PickMemTable` refs `base_`; db/flush_job.cc).
A file removed by a compaction stays on the device until the last version holding it is gone
(`Version::~Version` queues it in `obsolete_files_` when its refs reach 0; db/version_set.cc) and the job that
dropped that version purges it (`DBImpl::BackgroundCallCompaction`: FindObsoleteFiles, then
PurgeObsoleteFiles; db/db_impl/db_impl_compaction_flush.cc).

So while one long compaction runs, the inputs of every compaction that finishes meanwhile stay on the device:
with large files, transient space is not only the outputs in flight. A job holds a file when the file was
installed no later than the version the job started from (`SSTFile.installed` against `Job.version`).
"""

from __future__ import annotations


class ObsoleteFiles:
    """Files compactions removed from the tree that running jobs' versions still hold, freed on the device when
    the last of those jobs ends."""

    def __init__(self, device):
        self.device = device
        self.bytes = 0.0  # on the device, no longer in the tree
        self.count = 0
        self._holders: dict[int, int] = {}  # file id -> running jobs holding it
        self._held: dict[int, list] = {}  # job id -> the obsolete files it holds

    def retire(self, files, jobs) -> None:
        """`files` left the tree: delete each now unless a running flush or compaction's version holds it."""
        holders = [j for j in jobs if j.kind in ("flush", "compaction")]
        for f in files:
            held_by = [j for j in holders if j.version >= f.installed]
            if not held_by:
                self.device.file_deleted(f.id, f.bytes)
                continue
            self._holders[f.id] = len(held_by)
            for j in held_by:
                self._held.setdefault(j.id, []).append(f)
            self.bytes += f.bytes
            self.count += 1

    def release(self, job) -> None:
        """`job` ended: its version is gone; delete the files no other running job holds."""
        for f in self._held.pop(job.id, ()):
            left = self._holders[f.id] - 1
            if left:
                self._holders[f.id] = left
                continue
            del self._holders[f.id]
            self.bytes -= f.bytes
            self.count -= 1
            self.device.file_deleted(f.id, f.bytes)
