#!/usr/bin/env bash
# Twenty-fifth H200 session, call 1: the compiled rungs with dynamic=False (the token dimension
# still marked dynamic), so a second hidden size no longer makes the row length symbolic. The
# rmsnorm and fp8_quantize benches (whose compiled rungs meet N = 4096, then 8192), then the
# compiled rmsnorm rung's grader check with its speed tier.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT
step bench_rms 300 python3 -m grading bench rmsnorm --json $OUT/rmsnorm_bench.json --plot $OUT/rmsnorm_roofline_H200.png
step bench_q 220 python3 -m grading bench fp8_quantize --json $OUT/fp8_quantize_bench.json --plot $OUT/fp8_quantize_roofline_H200.png
step check_compiled 60 python3 -m grading check rmsnorm --rung compiled --solutions --seed 2525 --json $OUT/check_rmsnorm_compiled.json
cp $OUT/*.json $OUT/*.md $OUT/*.png $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
grep -E "timed|8192\]" $OUT/bench_rms.txt | cut -c1-200
grep -E "timed|8192\]" $OUT/bench_q.txt | cut -c1-200
tail -n 6 $OUT/check_compiled.txt | cut -c1-250
