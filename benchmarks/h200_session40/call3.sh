#!/usr/bin/env bash
# Fortieth H200 session's plan, call 3 (any machine; the Triton rung only, no CUTLASS build): the
# v5 plan's register estimate counts a stage's copies since e57bf50, which changed one pick: at
# 33-64 tokens with more than two 128-row weight tiles an SM (N above 33792 on 132 SMs, a
# vocabulary's projection) v5 (64 tokens x 128 rows, 3 stages) where v4's table (64 x 64 x 128,
# split-K, 5 stages) ran before. `--small` times both (v4's table is its first candidate) beside
# the v5 plan's neighbours and torch._scaled_mm. Then `--token-reads`: the M = 128 pick's kernel
# run with 64 tokens (half the token tile's reads from L2, the same MMA work), beside both picks.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
setup call3
ceilings_here
step vocab 300 python3 benchmarks/fp8_gemm_variants.py --small --shapes 48x128256x4096,64x128256x4096,64x128256x8192,64x57344x8192 --json $OUT/vocab.json
cp $OUT/* $BACK/ 2>/dev/null
tail -40 $OUT/vocab.txt
step token_reads 200 python3 benchmarks/fp8_gemm_variants.py --token-reads --json $OUT/token_reads.json
cp $OUT/* $BACK/ 2>/dev/null
tail -24 $OUT/token_reads.txt
