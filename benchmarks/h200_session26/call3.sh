#!/usr/bin/env bash
# Twenty-sixth H200 session, call 3: chapter 01 executed, its scoreboard from call 2's benches
# (committed under benchmarks/ before this call; KL_BENCH_FROM).
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site KL_BENCH_FROM=$PWD/benchmarks
source benchmarks/h200_session10/lib.sh
step nb_ch01 330 python3 benchmarks/execute_notebook.py chapters/01_rmsnorm/01_rmsnorm.ipynb $OUT/01_rmsnorm.ipynb
tail -n 12 $OUT/nb_ch01.txt | cut -c1-200
