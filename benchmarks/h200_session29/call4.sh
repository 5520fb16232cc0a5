#!/usr/bin/env bash
# Twenty-ninth H200 session, call 4 (fresh machine): where the CUTLASS rung is behind
# torch._scaled_mm at large M. 36 (128x128 tiles, two temporaries) and 53 (kernel 4's 128x192
# tiles promoting every 2048 of K) both timed at every Llama shape at M = 4096 and 8192, beside
# the pick, 0.3 s a timing: does each kernel's ratio grow with K (a fixed cost per output tile,
# such as the epilogue that no wgmma overlaps in the cooperative kernels)?
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call4; mkdir -p $OUT
step large_k 420 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0 --configs 36,53 --ms 4096,8192 --target-s 0.3 --json $OUT/large_k.json
cp $OUT/* $BACK/ 2>/dev/null
sed -n '/^timing:/,$p' $OUT/large_k.txt | cut -c1-220 | head -30
