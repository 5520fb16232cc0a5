#!/usr/bin/env bash
# Thirtieth H200 session, call 1 (fresh machine): where the CUTLASS rung trails torch._scaled_mm at
# large M. (1) Clocks and power: each large-M GEMM run back to back while nvidia-smi samples the SM
# clock and the board power (`fp8_gemm_power.py`, new): is the GPU at its power limit there, and
# does _scaled_mm hold a higher clock? torch._scaled_mm and the Triton rung while the shipped CUTLASS
# library builds, then the CUTLASS pick, 36 and 53 beside _scaled_mm again. (2) The order the
# persistent scheduler walks the tiles in: 53 and 36 with swizzle 2, 4, 8, down M, along N
# (66-75, run-time variants in the shipped build) at every Llama shape at M = 4096 and 8192.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT
t0=$SECONDS
OUT=$OUT bash benchmarks/gpu_notebooks.sh build-cutlass > $OUT/build.log 2>&1 &
step power_triton 150 python3 benchmarks/fp8_gemm_power.py --no-cutlass --seconds 1.5 --json $OUT/power_triton.json
cp $OUT/* $BACK/ 2>/dev/null
wait; echo "== build: done at $((SECONDS - t0)) s"; cat $OUT/build.log
step power_cutlass 150 python3 benchmarks/fp8_gemm_power.py --configs 36,53 --seconds 1.5 --json $OUT/power_cutlass.json
cp $OUT/* $BACK/ 2>/dev/null
step order 330 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0 --configs 36,53,66,67,68,69,70,71,72,73,74,75 --ms 4096,8192 --target-s 0.2 --json $OUT/order.json
cp $OUT/* $BACK/ 2>/dev/null
cat $OUT/power_triton.txt $OUT/power_cutlass.txt | cut -c1-150
sed -n '/^timing:/,$p' $OUT/order.txt | cut -c1-250 | head -30
