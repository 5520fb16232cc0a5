#!/usr/bin/env bash
# Thirty-sixth H200 session, call 2 (fresh machine): sweep build 19, the token tiles of call 1
# (and 103, 104) again with wgmma instructions as wide as the tile (CuTe otherwise splits a 48-,
# 56-, 80- or 112-wide tile into 64x16 or 64x8 instructions), 64x112 tiles without a cluster,
# cuBLASLt's 128x112 unswapped tiles for 97-128 tokens and 41 with 40-token tiles, each beside
# the picks it means to replace and torch._scaled_mm, 0.1 s a timing; three runs of the sweep
# script on the libraries the first one builds.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
setup call2
SWEEP="python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,19 --target-s 0.1"
step sweep_a 480 $SWEEP --configs 41,92,96,104,109,110,118 --ms 40,48 --json $OUT/sweep_a.json
step sweep_b 200 $SWEEP --configs 44,48,100,101,102,111,112 --ms 72,80 --json $OUT/sweep_b.json
step sweep_c 200 $SWEEP --configs 41,44,48,100,113,114,115,116,117 --ms 112,128 --json $OUT/sweep_c.json
cp $OUT/* $BACK/ 2>/dev/null
grep -hE "built|fails|FAIL|failure|rror|not timed" $OUT/sweep_*.txt | head -12
grep -hE "^ *[0-9]+x[0-9]+ +[0-9]+ \|" $OUT/sweep_*.txt
