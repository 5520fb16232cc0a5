#!/usr/bin/env bash
# Thirtieth H200 session, call 2 (fresh machine): call 1 found every large-M GEMM at the board's
# power limit (700 W; the SM clock at 1300-1650 MHz, not 1980), and timings of 0.2 s moving by up to
# 7% for one kernel. So the steady state, each GEMM run back to back for 1.2 s: torch._scaled_mm, the
# Triton rung and the CUTLASS rung at every Llama weight at M = 4096 and 8192, two rounds in
# alternating order. Then, 1.5 s each, 53 and its tile orders 66-68 (swizzle 2, 4, 8) and 70 (along
# N) beside _scaled_mm where the CUTLASS rung trailed most (8192 x 14336 x 4096, 8192^3).
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT
t0=$SECONDS
OUT=$OUT bash benchmarks/gpu_notebooks.sh build-cutlass > $OUT/build.log 2>&1
echo "== build: done at $((SECONDS - t0)) s"; cat $OUT/build.log
step steady 260 python3 benchmarks/fp8_gemm_power.py --ms 4096,8192 --seconds 1.2 --configs "" --json $OUT/steady.json
cp $OUT/* $BACK/ 2>/dev/null
step orders 120 python3 benchmarks/fp8_gemm_power.py --no-triton --no-pick --configs 53,66,67,68,70 --seconds 1.5 --shapes 8192x14336x4096,8192x8192x8192 --json $OUT/orders.json
cp $OUT/* $BACK/ 2>/dev/null
sed -n '/^steady state/,$p' $OUT/steady.txt; sed -n '/^steady state/,$p' $OUT/orders.txt; tail -3 $OUT/steady.txt
