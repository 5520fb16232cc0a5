#!/usr/bin/env bash
# Thirteenth H200 session, call 2: rmsnorm benched beside every other rung on call 1's CUDA rung
# (kExact), then chapter 01 executed on the H200 with this bench and the committed
# fused_add_rmsnorm bench (the fused kernels' machine code is unchanged: cuobjdump -sass).
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT  # at most 8 files come back: the logs travel as one archive
step rmsnorm_bench 320 python3 -m grading bench rmsnorm --json $OUT/rmsnorm_bench.json --plot $OUT/rmsnorm_roofline_H200.png
cp $OUT/rmsnorm_bench.json $OUT/rmsnorm_bench.md benchmarks/ 2>/dev/null
KL_BENCH_FROM=$PWD/benchmarks step nb_ch01 $((585 - SECONDS)) python3 benchmarks/execute_notebook.py chapters/01_rmsnorm/01_rmsnorm.ipynb $OUT/01_rmsnorm.ipynb
cp $OUT/*.json $OUT/*.png $OUT/*.md $OUT/*.ipynb $BACK/ 2>/dev/null; tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 4 $OUT/nb_ch01.txt; cut -c1-200 $OUT/rmsnorm_bench.md 2>/dev/null | head -22
