#!/usr/bin/env bash
# Twenty-fourth H200 session, call 3: rmsnorm with x read under an L2 evict-last policy at many
# rows (both rungs; the Triton rung in two passes for rows of 16 KB and more), as calls 1 and 2
# measured. The rungs' GPU checks (bf16, fp16, fp32, awkward shapes), then the bench.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call3; mkdir -p $OUT
step check_cuda 90 python3 -m grading check rmsnorm --rung cuda --solutions --no-speed --seed 2424
step check_triton 90 python3 -m grading check rmsnorm --rung triton --solutions --no-speed --seed 2424
step bench_rms 330 python3 -m grading bench rmsnorm --json $OUT/rmsnorm_bench.json --plot $OUT/rmsnorm_roofline_H200.png
cp $OUT/*.json $OUT/*.md $OUT/*.png $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 4 $OUT/check_cuda.txt $OUT/check_triton.txt | cut -c1-200
grep -E "timed|4096\]|8192\]" $OUT/bench_rms.txt | cut -c1-220
