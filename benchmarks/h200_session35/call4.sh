#!/usr/bin/env bash
# Thirty-fifth H200 session, call 4 (fresh machine): the Triton rung between 64 and 128 tokens,
# which no bench times (fp8_gemm_triton's pick and the candidates around it, beside
# torch._scaled_mm) at M = 80, 96 and 112 for the six Llama weights.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call4; mkdir -p $OUT
S=$(for m in 80 96 112; do for nk in 4096x4096 14336x4096 4096x14336 8192x8192 28672x8192 8192x28672; do printf "%sx%s," $m $nk; done; done)
step triton_mid 270 python3 benchmarks/fp8_gemm_variants.py --small --quick --shapes ${S%,} --json $OUT/triton_mid.json
cp $OUT/* $BACK/ 2>/dev/null
tail -40 $OUT/triton_mid.txt
