#!/usr/bin/env bash
# Thirty-first H200 session, call 2 (fresh machine): 81 (call 1's 128x192 ping-pong kernel with fast
# accumulation) shipped, picked where 53 was and K <= 4096. The shipped library (eleven kernels)
# and sweep build 16 (82) built side by side; the grader's CUDA-rung check; every shipped pick and
# 81 against float64 (fp8_gemm_cutlass_check.py: N = 4104, K = 4144, 81 judged like the rest) and
# timed at M = 4096; then the K = 4096 shapes at M >= 4096 in the steady state at the power cap:
# the pick (81 at three of them, 36 at 4096^3), 53, 36, 81 and 82 beside torch._scaled_mm with
# and without fast accumulation.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT
step build 400 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,16 --build-only
step check_cuda 150 python3 -m grading check fp8_gemm --rung cuda --solutions --no-speed --seed 2031 --json $OUT/check_cuda.json
step cutlass_check 200 python3 benchmarks/fp8_gemm_cutlass_check.py --shipped-build --configs 29,36,41,43,44,48,53,59,64,65,81 --ms 4096 --json $OUT/cutlass_check.json
cp $OUT/* $BACK/ 2>/dev/null
step steady 220 python3 benchmarks/fp8_gemm_power.py --no-triton --fast-accum --configs 53,36,81,16:82 --seconds 1.2 --shapes 4096x4096x4096,8192x4096x4096,4096x14336x4096,8192x14336x4096 --json $OUT/steady.json
cp $OUT/* $BACK/ 2>/dev/null
tail -2 $OUT/build.txt; grep -E "cases pass|FAIL|rror" $OUT/check_cuda.txt | head -5
sed -n '/^correctness vs float64/,/^$/p' $OUT/cutlass_check.txt | head -14; grep -E "failure|M= 4096|^  M=" $OUT/cutlass_check.txt | tail -4
grep -E "difference" $OUT/steady.txt | grep -v "e-0[34]" | head; sed -n '/^steady state/,$p' $OUT/steady.txt
