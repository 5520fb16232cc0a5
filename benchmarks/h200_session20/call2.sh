#!/usr/bin/env bash
# Twentieth H200 session, call 2. (1) The Triton decode picks at M = 64 and 128 where they trail
# torch._scaled_mm, with dependent launch now on every v5 pick (call 1): the `--small` neighbours
# of each pick (more K slices, wider or narrower tiles, other K steps) in one run. (2) Sweep build
# 8 beside the CUTLASS picks at M = 1, 16 and 128: 43 (21 with two temporaries), 44 (swap-AB
# 64x128 ping-pong with two temporaries: one token tile at M = 128), 45 (3's stream-K tile with
# two temporaries).
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT
step build 400 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 8 --build-only &
step triton_small 300 python3 benchmarks/fp8_gemm_variants.py --small \
  --shapes 64x4096x4096,64x4096x14336,128x4096x4096,128x4096x14336,128x14336x4096,128x28672x8192,128x8192x28672 \
  --json $OUT/triton_small.json
wait
step cutlass_sw8 $((570 - SECONDS)) python3 benchmarks/fp8_gemm_cutlass_check.py --builds 8 --ms 1,16,128 --json $OUT/cutlass_sw8.json
cp $OUT/*.json $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 2 $OUT/build.txt
grep -E "^\|" $OUT/triton_small.txt | cut -c1-250
grep -E "M= *[0-9]+ |FAIL|fail" $OUT/cutlass_sw8.txt | cut -c1-250 | tail -8
