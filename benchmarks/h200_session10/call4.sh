#!/usr/bin/env bash
# Tenth H200 session, call 4: the new Triton pick for M > 128 (v3, 5 stages, promotion every 1024
# of K) through the grader's check; the CUTLASS configurations of the shipped build with the new
# promotion intervals (17-20: kernels 4 and 3 promoting every 512 and 1024 of K) checked and timed
# beside torch._scaled_mm at M = 512, 4096, 8192. Needs the CUTLASS wheel in .whl on the machine
# (the first run lacked it; its CUTLASS step was run again with it).
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-cache-dir --target /tmp/site .whl/nvidia_cutlass*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
# The CUTLASS library compiles (CPU) while the Triton rung is checked (GPU).
step build_cutlass 300 python3 -c "import sys; sys.path.insert(0, '.'); from pathlib import Path; from benchmarks.fp8_gemm_cutlass_check import _load; _load(Path('csrc/fp8_gemm_cutlass.cu'))" &
step check_fp8_gemm_triton 300 python3 -m grading check fp8_gemm --rung triton --solutions --seed 10 --json $OUT/check_fp8_gemm_triton.json
wait
step fp8_gemm_cutlass_check 400 python3 benchmarks/fp8_gemm_cutlass_check.py --shipped-build --ms 512,4096,8192 --json $OUT/fp8_gemm_cutlass_check.json
tail -6 $OUT/check_fp8_gemm_triton.txt; grep -A8 "^summary" $OUT/fp8_gemm_cutlass_check.txt; tail -5 $OUT/fp8_gemm_cutlass_check.txt
