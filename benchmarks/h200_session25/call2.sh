#!/usr/bin/env bash
# Twenty-fifth H200 session, call 2: the fused_add_rmsnorm bench with the compiled rung's row
# length static (call 1's change), then chapter 01 executed (its new cell: the default compile
# and dynamic=False at N after N / 2, timed beside the rung and the static compile).
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT
step bench_fused 370 python3 -m grading bench fused_add_rmsnorm --json $OUT/fused_add_rmsnorm_bench.json --plot $OUT/fused_add_rmsnorm_roofline_H200.png
step nb_ch01 215 python3 benchmarks/execute_notebook.py chapters/01_rmsnorm/01_rmsnorm.ipynb $OUT/01_rmsnorm.ipynb
cp $OUT/*.json $OUT/*.md $OUT/*.png $OUT/*.ipynb $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
grep -E "timed|8192\]" $OUT/bench_fused.txt | cut -c1-200
tail -n 3 $OUT/nb_ch01.txt | cut -c1-200
