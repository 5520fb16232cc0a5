#!/usr/bin/env bash
# Twenty-ninth H200 session, call 1 (fresh machine): the shipped CUTLASS library (ten kernels, 64
# and 65 among the picks) built in the background while the Triton decode picks are timed beside
# themselves with the K loop warp-specialized by Triton (TMA loads, 4 warps:
# `fp8_gemm_variants.py --ws`, new); then the grader's CUDA-rung check on that build and its
# Triton-rung check. The candidate's code (GemmConfig.warp_specialize, the --ws mode) was not
# kept: it is at commit d4ccc19.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT
t0=$SECONDS
OUT=$OUT bash benchmarks/gpu_notebooks.sh build-cutlass > $OUT/build.log 2>&1 &
step triton_ws 300 python3 benchmarks/fp8_gemm_variants.py --ws --json $OUT/triton_ws.json
cp $OUT/* $BACK/ 2>/dev/null
wait; echo "== build: done at $((SECONDS - t0)) s"; cat $OUT/build.log
step check_cuda 150 python3 -m grading check fp8_gemm --rung cuda --solutions --no-speed --seed 2029 --json $OUT/check_cuda.json
step check_triton 150 python3 -m grading check fp8_gemm --rung triton --solutions --no-speed --seed 2029 --json $OUT/check_triton.json
cp $OUT/* $BACK/ 2>/dev/null
grep -E "cases pass|FAIL|ERROR|rror" $OUT/check_*.txt | tail -12
sed -n '/^| M/,$p' $OUT/triton_ws.txt
