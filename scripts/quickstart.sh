#!/usr/bin/env bash
# Set everything up and run the quickstart experiment: prints the summary table and writes
# results/quickstart/ (summary.json, Parquet tables, resolved config, tree.png).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup.sh
.venv/bin/lsmsim run experiments/quickstart.yaml -o results/quickstart "$@"
