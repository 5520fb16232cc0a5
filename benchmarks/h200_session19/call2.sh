#!/usr/bin/env bash
# Nineteenth H200 session, call 2. (1) Sweep build 6 beside the picks and torch._scaled_mm at
# M = 64, 4096 and 8192: 36 and 37, 128x128 cooperative tiles whose mainloop promotes from two
# temporaries (no drain of the tensor cores per promotion), 38 and 39 the same tile with CUTLASS's
# mainloop (promoting every 128 and every 256 of K); M = 64 also checks the new pick 33 (32-token
# tiles where 22's leave SMs idle). (2) `bench fp8_gemm --rungs triton cuda` with the time left:
# the Triton picks at M = 128 without TMA (h200_session18, call 3) and the CUTLASS pick 33.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT
step build 400 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 6 --build-only
step cutlass_sw6 $((400 - SECONDS)) python3 benchmarks/fp8_gemm_cutlass_check.py --builds 6 --ms 64,4096,8192 --json $OUT/cutlass_sw6.json
[ $SECONDS -lt 390 ] && step bench_gemm $((590 - SECONDS)) python3 -m grading bench fp8_gemm --rungs triton cuda \
  --json $OUT/fp8_gemm_bench.json --plot $OUT/fp8_gemm_roofline_H200.png
cp $OUT/*.json $OUT/*.md $OUT/*.png $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 2 $OUT/build.txt
grep -E "M= *[0-9]+ |FAIL|fail" $OUT/cutlass_sw6.txt | cut -c1-250 | tail -8
cut -c1-200 $OUT/fp8_gemm_bench.md 2>/dev/null | head -52
