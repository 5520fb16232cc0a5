#!/usr/bin/env bash
# Twenty-first H200 session, call 4: the Triton decode picks where they trail most (M = 128, and
# M = 64 at N = 4096) beside half-height token tiles with K not split (`--token-tiles`), as
# CUTLASS's 41 does at M = 128, N = 4096.
set -uo pipefail
export PYTHONUNBUFFERED=1
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call4; mkdir -p $OUT
step triton_tokens 500 python3 benchmarks/fp8_gemm_variants.py --token-tiles \
  --shapes 64x4096x4096,64x4096x14336,128x4096x4096,128x14336x4096,128x4096x14336,128x8192x8192,128x28672x8192,128x8192x28672 \
  --json $OUT/triton_tokens.json
cp $OUT/*.json $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
grep -E "^\|" $OUT/triton_tokens.txt | cut -c1-230
grep -c error $OUT/triton_tokens.json
