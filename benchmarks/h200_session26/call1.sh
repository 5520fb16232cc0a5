#!/usr/bin/env bash
# Twenty-sixth H200 session, call 1. (a) rmsnorm at N = 8192, many rows: the Triton rung's
# two-pass loop (trip count at run time) against the same plan with N compiled in (loops unrolled,
# as Inductor's kernel) and with the two chunks' loads written out back to back (N at run time),
# with the registers each kernel takes and Inductor's generated code; (b) fused_add_rmsnorm at
# many rows with x and the residual read under the evict-last policy (the rmsnorm plan's since
# session 24), beside the rungs and torch's copy.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
step static_n 330 python3 benchmarks/rmsnorm_variants.py --static-n --regs --copy-bound \
  --only "ref triton,ref cuda,ref compiled,compile static,triton static N,triton two chunks,triton 2 passes,bound" \
  --shapes 4096x8192,16384x8192,32768x8192,4096x4096,16384x4096 \
  --inductor-code $OUT/inductor_static.py --json $OUT/static_n.json
step fused_policy 220 python3 benchmarks/rmsnorm_variants.py --fused --copy-bound \
  --only "ref triton,ref cuda,ref compiled,compile static,triton hints - evict_last,bound" \
  --shapes 4096x4096,16384x4096,32768x4096,4096x8192,16384x8192,32768x8192 --json $OUT/fused_policy.json
grep -E "µs|regs" $OUT/static_n.txt | cut -c1-150
grep -E "µs" $OUT/fused_policy.txt | cut -c1-150
tail -n 3 $OUT/static_n.txt $OUT/fused_policy.txt | grep -iE "error|Traceback" | head
