#!/usr/bin/env bash
# Twenty-eighth H200 session, call 2: sweep build 14 (63-65, decode with one CTA a tile and
# several CTAs on an SM at once, so every tile's CTA is on the GPU together) timed against 43, the
# pick at M <= 16, and torch._scaled_mm at M = 1 and 16, with three-times-longer timings.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT
step one_consumer 400 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,14 --configs 43,63,64,65 --ms 1,16 --target-s 0.3 --json $OUT/one_consumer.json
cp $OUT/* $BACK/ 2>/dev/null
sed -n '/^timing:/,$p' $OUT/one_consumer.txt | cut -c1-220 | head -40
