#!/usr/bin/env bash
# Thirty-first H200 session, call 1 (fresh machine): where does kernel 4's fixed cost per output
# tile go? (a) 53, 76 and 36 beside torch._scaled_mm at M x N = 8192 x 14336 with K from 512 to
# 4096, in the steady state: each one's time against K has the cost per tile as its intercept.
# (b) Sweep build 16's ping-pong kernels (81: 128x192, 82: 128x128, fast accumulation, each
# consumer warpgroup storing its tile while the other runs its mainloop) beside 53 and 76 (53
# promoting every 4096 of K: one drain a tile at K = 4096, as close to fast accumulation as the
# cooperative kernel gets) at three K = 4096 shapes: 81 against 76 is the epilogue's overlap.
# The shipped library and sweep build 16 compile side by side first.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT
step build 400 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,16 --build-only
step ksweep 150 python3 benchmarks/fp8_gemm_power.py --no-triton --no-pick --configs 53,76,36 --seconds 1.2 --shapes 8192x14336x512,8192x14336x1024,8192x14336x2048,8192x14336x4096 --json $OUT/ksweep.json
step overlap 150 python3 benchmarks/fp8_gemm_power.py --no-triton --no-pick --configs 53,76,16:81,16:82 --seconds 1.5 --shapes 8192x14336x4096,8192x4096x4096,4096x14336x4096 --json $OUT/overlap.json
cp $OUT/* $BACK/ 2>/dev/null
tail -4 $OUT/build.txt
for f in ksweep overlap; do grep -E "difference" $OUT/$f.txt | head -20; sed -n '/^steady state/,$p' $OUT/$f.txt; done
