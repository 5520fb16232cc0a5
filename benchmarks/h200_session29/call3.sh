#!/usr/bin/env bash
# Twenty-ninth H200 session, call 3 (fresh machine): chapter 02 executed with its outputs saved,
# its scoreboard from call 2's bench (KL_BENCH_FROM=benchmarks/), the CUTLASS library built by the
# notebook itself.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call3; mkdir -p $OUT
OUT=$OUT NB_LIMIT=500 bash benchmarks/gpu_notebooks.sh ch02
cp $OUT/* $BACK/ 2>/dev/null
