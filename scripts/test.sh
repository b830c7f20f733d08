#!/usr/bin/env bash
# Set everything up and run the test suite. pytest's exit code 5 (no tests collected) is a failure.
#
# Two passes: first every test that times no real system, on all cores (pytest-xdist, one test file per worker, so
# that a file's shared fixture is made once); then the `serial` ones (db_bench, librocksdb and the disk, whose
# timing a busy CPU moves) alone. The first pass hands out its files dearest first (tests/durations.json; conftest
# orders them, --no-loadscope-reorder keeps that order), so that the long figure files do not start last.
# LSMSIM_TEST_JOBS=1, or -n, -m or --pdb among the arguments, runs everything in one pass in one process.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh || exit 1

jobs=${LSMSIM_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
one_pass=0
for a in "$@"; do
  case "$a" in
    -n | -n* | --numprocesses* | -m | -m* | --pdb) one_pass=1 ;;
  esac
done
if ! .venv/bin/python -c "import xdist" >/dev/null 2>&1; then
  one_pass=1
fi

if [ "$one_pass" -eq 1 ] || [ "$jobs" -le 1 ]; then
  .venv/bin/python -m pytest -q "$@"
  rc=$?
  if [ "$rc" -eq 5 ]; then
    echo "test.sh: pytest collected no tests" >&2
    exit 1
  fi
  exit "$rc"
fi

.venv/bin/python -m pytest -q -n "$jobs" --dist loadfile --no-loadscope-reorder -m "not serial" "$@"
rc1=$?
echo "test.sh: the serial tests (real systems), alone"
.venv/bin/python -m pytest -q -m serial "$@"
rc2=$?
# a selection may hold only one kind of test; neither kind is a failure
if [ "$rc1" -eq 5 ] && [ "$rc2" -eq 5 ]; then
  echo "test.sh: pytest collected no tests" >&2
  exit 1
fi
[ "$rc1" -eq 5 ] && rc1=0
[ "$rc2" -eq 5 ] && rc2=0
[ "$rc1" -ne 0 ] && exit "$rc1"
exit "$rc2"
