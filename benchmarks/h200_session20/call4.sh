#!/usr/bin/env bash
# Twentieth H200 session, call 4: sweep build 10 beside the CUTLASS picks at M = 64 and 128: 46
# and 47 (44 and 41 with two CTAs a cluster, the token tile multicast to both) and 48 (44 with
# four), against L2's share of the decode kernels' loads (the file's header).
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call4; mkdir -p $OUT
step build 400 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 10 --build-only
step cutlass_sw10 $((400 - SECONDS)) python3 benchmarks/fp8_gemm_cutlass_check.py --builds 10 --ms 64,128 --json $OUT/cutlass_sw10.json
cp $OUT/*.json $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 2 $OUT/build.txt
grep -E "M= *[0-9]+ |FAIL|fail" $OUT/cutlass_sw10.txt | cut -c1-250 | tail -8
