#!/usr/bin/env bash
# Twenty-first H200 session, call 1: the prefill goals (M >= 4096). (1) Triton: the v3 pick beside
# promotion every 2048 and 4096 of K, 4 and 6 stages, other tile groupings (large_candidates), at
# the shapes where it ran under 0.9x torch._scaled_mm and two neighbours. (2) CUTLASS: sweep build
# 11 (49, 50: 128x144 tiles in a 2x1 cluster) and the shipped build's run-time variants (17-20:
# kernels 4 and 3 promoting every 512 and 1024 of K) beside the picks at M = 4096 and 8192.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT
step build 300 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,11 --build-only &
step triton_large 260 python3 benchmarks/fp8_gemm_variants.py --large \
  --shapes 4096x4096x4096,8192x28672x8192,4096x8192x8192,8192x8192x8192 --json $OUT/triton_large.json
wait
step cutlass_large $((570 - SECONDS)) python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,11 --ms 4096,8192 --json $OUT/cutlass_large.json
cp $OUT/*.json $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 2 $OUT/build.txt
grep -E "^\|" $OUT/triton_large.txt | cut -c1-250
grep -E "^ *[0-9]+x[0-9]+ +[0-9]+ \||M= *[0-9]+ |FAIL|fail" $OUT/cutlass_large.txt | cut -c1-250 | tail -30
