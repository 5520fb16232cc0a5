#!/usr/bin/env bash
# Thirtieth H200 session, call 3 (fresh machine): the steady state (call 2) gives the CUTLASS rung's
# work per SM clock by K: at M = 8192, 747-795 TFLOP/s per GHz at K = 4096 against 914 at 28672,
# where _scaled_mm goes from 800-851 to 936, so ours pays more per tile. Part of that could be 53's
# promotions, each draining the tensor-core pipe: two a tile at K = 4096. 76 promotes every 4096 of
# K (one drain a tile there; run-time variant in the shipped build). 53, 76 and 36 (no drains: two
# temporaries) beside _scaled_mm in the steady state at the K = 4096 and 8192 shapes where the rung
# trails most.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call3; mkdir -p $OUT
t0=$SECONDS
OUT=$OUT bash benchmarks/gpu_notebooks.sh build-cutlass > $OUT/build.log 2>&1
echo "== build: done at $((SECONDS - t0)) s"; cat $OUT/build.log
step drains 200 python3 benchmarks/fp8_gemm_power.py --no-triton --no-pick --configs 53,76,36 --seconds 1.5 --shapes 8192x14336x4096,8192x4096x4096,4096x14336x4096,8192x8192x8192 --json $OUT/drains.json
cp $OUT/* $BACK/ 2>/dev/null
grep "difference" $OUT/drains.txt; sed -n '/^steady state/,$p' $OUT/drains.txt; tail -3 $OUT/drains.txt
