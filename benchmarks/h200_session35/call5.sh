#!/usr/bin/env bash
# Thirty-fifth H200 session, call 5 (fresh machine): the Triton rung at 96-128 tokens with its
# tile's weight rows split over two warpgroups, as CUTLASS's 100 (the cooperative 128x64 tile
# that call 1 found ahead at N = 8192): `fp8_gemm_variants.py --coop`, 128 weight rows by half
# the pick's token tile with 8 warps and with 4, with and without TMA, and the pick with 8 warps,
# beside the pick and torch._scaled_mm, for the six Llama weights.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call5; mkdir -p $OUT
S=$(for m in 96 112 128; do for nk in 4096x4096 14336x4096 4096x14336 8192x8192 28672x8192 8192x28672; do printf "%sx%s," $m $nk; done; done)
step triton_coop 240 python3 benchmarks/fp8_gemm_variants.py --coop --shapes ${S%,} --json $OUT/triton_coop.json
cp $OUT/* $BACK/ 2>/dev/null
sed -n '/^| M/,$p' $OUT/triton_coop.txt
grep -E "picked|w8|w4" $OUT/triton_coop.txt | grep -E '"shape": \[1(12|28)' | python3 -c "
import sys, json
for l in sys.stdin:
    try: r = json.loads(l)
    except Exception: continue
    print(r['shape'], r['impl'][:48], round(r['time_us'], 1))" | head -80
