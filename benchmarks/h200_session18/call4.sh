#!/usr/bin/env bash
# Eighteenth H200 session, call 4: `bench rmsnorm` on the code as it now stands (the last bench
# predates the launchers' once-per-device capability lookup, dd6e5b6), then chapter 01 executed on
# it and the committed fused_add_rmsnorm bench.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call4; mkdir -p $OUT
step bench_rms 320 python3 -m grading bench rmsnorm --json $OUT/rmsnorm_bench.json --plot $OUT/rmsnorm_roofline_H200.png
mkdir -p $OUT/from && cp benchmarks/fused_add_rmsnorm_bench.json $OUT/rmsnorm_bench.json $OUT/from/ 2>/dev/null
KL_BENCH_FROM=$OUT/from step nb_ch01 $((585 - SECONDS)) python3 benchmarks/execute_notebook.py chapters/01_rmsnorm/01_rmsnorm.ipynb $OUT/01_rmsnorm.ipynb
cp $OUT/*.json $OUT/*.md $OUT/*.png $OUT/*.ipynb $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 2 $OUT/nb_ch01.txt
cut -c1-220 $OUT/rmsnorm_bench.md 2>/dev/null | head -30
