#!/usr/bin/env bash
# Thirty-first H200 session, call 5 (fresh machine): where 82's rule (K <= 4096, six 128x128
# tiles an SM or more) draws its line. The shipped library built,
# then the pick, 36, 81 and 82 beside torch._scaled_mm in the steady state (0.8 s a run) at
# 3072 x 4096 x 4096 (5.8 tiles of 128x128 an SM: 36 picked), 2048 x 4096 x 4096 (3.9: 36),
# 512 x 14336 x 4096 (3.4: 36) and 1024 x 14336 x 4096 (6.8: 82). Output straight to $OUT, so a
# run cut short still returns what it measured.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
step build 220 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0 --build-only
step boundary 100 python3 benchmarks/fp8_gemm_power.py --no-triton --configs 36,81,82 --seconds 0.8 --shapes 3072x4096x4096,2048x4096x4096,512x14336x4096,1024x14336x4096 --json $OUT/boundary.json
tail -1 $OUT/build.txt; sed -n '/^steady state/,$p' $OUT/boundary.txt
