#!/usr/bin/env bash
# (Re)record the fio calibration traces in experiments/ssd/fio/traces/.
#
#   experiments/ssd/fio/record.sh            # all jobs, ~3 minutes
#   experiments/ssd/fio/record.sh seqread-1m-qd32 randread-4k-qd1   # just these
#
# Environment:
#   LSMSIM_FIO_DIR   directory of the 4 GiB test file (default /var/tmp/lsmsim-fio);
#                    must be on the device you want to measure and outside the repo.
#   LSMSIM_FIO_KEEP  1 = keep the test file afterwards (default: delete it).
#   FIO              fio binary (default: fio).
#
# Each job writes traces/<job>.json (--output-format=json+) and, with log_avg_msec=250,
# traces/<job>_{bw,iops,lat,clat,slat}.1.log. The layout pass (00-layout.fio) writes
# traces/layout.json in plain --output-format=json. traces/machine.txt records the device.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../../.." && pwd)"
OUT="$HERE/traces"
FIO="${FIO:-fio}"
DIR="${LSMSIM_FIO_DIR:-/var/tmp/lsmsim-fio}"

ALL_JOBS=(
  seqread-1m-qd1 seqread-1m-qd32
  randread-4k-qd1 randread-4k-qd8 randread-4k-qd32
  seqwrite-1m-qd1 seqwrite-1m-qd32
  randwrite-4k-qd32
  randrw70-4k-qd32
)
if [ "$#" -gt 0 ]; then JOBS=("$@"); else JOBS=("${ALL_JOBS[@]}"); fi
for job in "${JOBS[@]}"; do
  [ -f "$HERE/$job.fio" ] || { echo "record.sh: no job file $HERE/$job.fio" >&2; exit 2; }
done

command -v "$FIO" >/dev/null || { echo "record.sh: fio not found (apt-get install fio)" >&2; exit 2; }
mkdir -p "$DIR" "$OUT"
DIR="$(cd "$DIR" && pwd -P)"
case "$DIR/" in
  "$(cd "$REPO" && pwd -P)"/*) echo "record.sh: LSMSIM_FIO_DIR=$DIR is inside the repo; pick another directory" >&2; exit 2;;
esac
avail_kb=$(df -Pk "$DIR" | awk 'NR==2 {print $4}')
if [ "$avail_kb" -lt $((5 * 1024 * 1024)) ]; then
  echo "record.sh: need ~5 GiB free in $DIR, have $((avail_kb / 1024)) MiB" >&2; exit 2
fi
export LSMSIM_FIO_FILE="$DIR/lsmsim-fio.dat"
cleanup() { if [ "${LSMSIM_FIO_KEEP:-0}" != 1 ]; then rm -f "$LSMSIM_FIO_FILE"; fi; }
trap cleanup EXIT

# --- what the traces were measured on --------------------------------------------------
dev=$(df -P "$DIR" | awk 'NR==2 {print $1}')
{
  echo "# recorded by experiments/ssd/fio/record.sh"
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "fio: $("$FIO" --version)"
  echo "kernel: $(uname -srm)"
  echo "virtualization: $(systemd-detect-virt 2>/dev/null || echo unknown)"
  echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//') x $(nproc)"
  echo "memory: $(free -h | awk '/^Mem:/ {print $2}')"
  echo "test file: $LSMSIM_FIO_FILE (4 GiB)"
  echo "filesystem:"; findmnt -no SOURCE,FSTYPE,OPTIONS -T "$DIR" | sed 's/^/  /'
  echo "lsblk:"; lsblk -o NAME,MAJ:MIN,SIZE,ROTA,DISC-MAX,PHY-SEC,LOG-SEC,SCHED,TYPE,MOUNTPOINTS | sed 's/^/  /'
  echo "queue settings:"
  for b in /sys/block/*; do
    n=$(basename "$b"); case "$n" in loop*|ram*|zram*) continue;; esac
    q="$b/queue"
    echo "  $n: rotational=$(cat $q/rotational) scheduler=$(cat $q/scheduler) nr_requests=$(cat $q/nr_requests)" \
         "write_cache=$(cat $q/write_cache 2>/dev/null | tr ' ' _) logical_block=$(cat $q/logical_block_size)" \
         "physical_block=$(cat $q/physical_block_size) max_sectors_kb=$(cat $q/max_sectors_kb)" \
         "driver=$(basename "$(readlink -f $b/device/driver 2>/dev/null)" 2>/dev/null)" \
         "model=$(cat $b/device/model 2>/dev/null | xargs || true)"
  done
  echo "cat /sys/block/*/queue/rotational:"
  for f in /sys/block/*/queue/rotational; do echo "  $f: $(cat "$f")"; done
  echo "device under test: $dev"
} > "$OUT/machine.txt"

# --- lay out the file (plain json output) ---------------------------------------------
echo "== layout: writing $LSMSIM_FIO_FILE"
"$FIO" --output-format=json --output="$OUT/layout.json" "$HERE/00-layout.fio"

# --- the workloads (json+ and windowed logs) ---------------------------------------------
for job in "${JOBS[@]}"; do
  echo "== $job"
  rm -f "$OUT/$job".json "$OUT/$job"_*.log
  "$FIO" --output-format=json+ --output="$OUT/$job.json" \
         --write_bw_log="$OUT/$job" --write_lat_log="$OUT/$job" --write_iops_log="$OUT/$job" \
         --log_avg_msec=250 "$HERE/$job.fio"
done
echo "== done: $(du -sh "$OUT" | cut -f1) in $OUT"
