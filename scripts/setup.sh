#!/usr/bin/env bash
# Set up lsmsim on a fresh Debian machine (as root) or a developer machine: Debian packages when
# missing, then a virtual environment in .venv with the package and its test dependencies.
# Sourced by quickstart.sh and test.sh; safe to run again (it only installs what is missing).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

pkgs="librocksdb-dev rocksdb-tools fio e2fsprogs"   # e2fsprogs: mkfs.ext4 for the room a file system leaves
command -v g++ >/dev/null 2>&1 || pkgs="$pkgs g++"   # builds the CompactFiles shim of lsmsim.rocksdb
# Debian's python3 makes venvs only with python3-venv (ensurepip) installed
python3 -c "import ensurepip" >/dev/null 2>&1 || pkgs="$pkgs python3-venv"
need_apt=()
for pkg in $pkgs; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
    echo "setup: apt-get install ${need_apt[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
  else
    echo "setup: missing Debian packages ${need_apt[*]} (install them as root); continuing" >&2
  fi
fi

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
# reinstall only when the dependencies changed (the install is editable: code changes need none)
stamp=.venv/.lsmsim-setup
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing lsmsim and its dependencies into .venv"
  if ! { .venv/bin/python -m pip install --disable-pip-version-check --upgrade pip &&
         .venv/bin/python -m pip install --disable-pip-version-check -e ".[test]"; } > .venv/pip.log 2>&1; then
    cat .venv/pip.log >&2
    echo "setup: pip install failed (log above, kept in .venv/pip.log)" >&2
    exit 1
  fi
  .venv/bin/python -c "import lsmsim" && echo "$want" > "$stamp"
fi
# pre-build the C++ CompactFiles shim of lsmsim.rocksdb (needs g++ and librocksdb-dev; else built on first use)
if ! .venv/bin/python -m lsmsim.rocksdb.shim --build >/dev/null; then
  echo "setup: could not pre-build the RocksDB CompactFiles shim (warning; lsmsim builds it on first use)" >&2
fi
# compile the numba kernels into their cache once, here, rather than in the user's first run (6-15 s per kernel
# family on a fresh clone); a second run only loads them
if ! .venv/bin/python scripts/warm_numba.py; then
  echo "setup: could not pre-compile the numba kernels (warning; they compile on first use)" >&2
fi
