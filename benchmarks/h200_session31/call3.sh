#!/usr/bin/env bash
# Thirty-first H200 session, call 3 (fresh machine): 82 (81's ping-pong schedule on 128x128 tiles)
# shipped too, picked where 36 was, K <= 4096 and six 128x128 tiles an SM or more (4096^3); sweep
# build 16 gone. The shipped library (twelve kernels) built; the grader's CUDA-rung check; 36, 53,
# 81 and 82 against float64 and timed at M = 4096 (fp8_gemm_cutlass_check.py); then both rungs
# beside torch._scaled_mm, with and without fast accumulation, at the twelve M >= 4096 shapes in
# the steady state (1.2 s a run, two rounds), as h200_session30's call 2 did for the committed
# benchmarks/fp8_gemm_steady_H200.json.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call3; mkdir -p $OUT
step build 300 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0 --build-only
step check_cuda 120 python3 -m grading check fp8_gemm --rung cuda --solutions --no-speed --seed 2032 --json $OUT/check_cuda.json
step cutlass_check 150 python3 benchmarks/fp8_gemm_cutlass_check.py --shipped-build --configs 36,53,81,82 --ms 4096 --json $OUT/cutlass_check.json
cp $OUT/* $BACK/ 2>/dev/null
step steady 260 python3 benchmarks/fp8_gemm_power.py --ms 4096,8192 --seconds 1.2 --configs "" --fast-accum --json $OUT/steady.json
cp $OUT/* $BACK/ 2>/dev/null
tail -1 $OUT/build.txt; grep -E "cases pass|FAIL|rror" $OUT/check_cuda.txt | head -5
sed -n '/^correctness vs float64/,/^$/p' $OUT/cutlass_check.txt | sed -n '2p;3p;11,12p'; grep -E "failure|^  M=" $OUT/cutlass_check.txt | tail -2
grep -E "difference" $OUT/steady.txt | grep -v "e-0[345]" | head; sed -n '/^steady state/,$p' $OUT/steady.txt
