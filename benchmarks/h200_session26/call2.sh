#!/usr/bin/env bash
# Twenty-sixth H200 session, call 2: the rmsnorm and fused_add_rmsnorm benches with call 1's
# changes adopted: rmsnorm's two chunks written out at N = 8192 (Triton), and the fused kernels
# reading x and the residual under the evict-last policy at many rows (Triton and CUDA).
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
step bench_rms 240 python3 -m grading bench rmsnorm --json $OUT/rmsnorm_bench.json --plot $OUT/rmsnorm_roofline_H200.png
step bench_fused 345 python3 -m grading bench fused_add_rmsnorm --json $OUT/fused_add_rmsnorm_bench.json --plot $OUT/fused_add_rmsnorm_roofline_H200.png
grep -E "timed|\]" $OUT/bench_rms.txt | cut -c1-200 | tail -32
grep -E "timed|\]" $OUT/bench_fused.txt | cut -c1-200 | tail -32
