#!/usr/bin/env bash
# Twentieth H200 session, call 1. (1) The Triton decode pick where K is split (M = 64 and 128 at
# N = 4096): its tile counters now reset by the program that finishes a tile, so no memset runs
# before each launch; timed beside the same pick with programmatic dependent launch (which the
# memset ruled out) and beside the previous revision (base_memset.patch undoes the change).
# (2) Sweep build 7 beside the CUTLASS picks at M = 64 and 128: 40-42, the picks 23, 22 and 33
# with the two-temporaries mainloop.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT /tmp/base
cp solutions/fp8_gemm.py /tmp/base/ && patch -s -d /tmp/base < $C/base_memset.patch
step build 400 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 7 --build-only &
step triton_split 200 python3 benchmarks/fp8_gemm_variants.py --pdl --baseline /tmp/base/fp8_gemm.py \
  --shapes 64x4096x4096,64x4096x14336,128x4096x4096,128x4096x14336,16x4096x4096,128x8192x8192 --json $OUT/triton_split.json
wait
step cutlass_sw7 $((560 - SECONDS)) python3 benchmarks/fp8_gemm_cutlass_check.py --builds 7 --ms 64,128 --json $OUT/cutlass_sw7.json
cp $OUT/*.json $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 2 $OUT/build.txt
grep -E "^\|" $OUT/triton_split.txt | cut -c1-250
grep -E "M= *[0-9]+ |FAIL|fail" $OUT/cutlass_sw7.txt | cut -c1-250 | tail -8
