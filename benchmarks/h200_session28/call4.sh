#!/usr/bin/env bash
# Twenty-eighth H200 session, call 4: sweep build 14's 64 and 65 against 43 and torch._scaled_mm
# at M = 1 and 16 again, on a fresh machine (call 2 is the first run).
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call4; mkdir -p $OUT
step one_consumer 230 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,14 --configs 43,64,65 --ms 1,16 --target-s 0.3 --json $OUT/one_consumer.json
cp $OUT/* $BACK/ 2>/dev/null
sed -n '/^timing:/,$p' $OUT/one_consumer.txt | cut -c1-220 | head -24
