#!/usr/bin/env bash
# Nineteenth H200 session, call 3. (1) Sweep build 6 again at M = 4096 and 8192, a second run: in
# call 2 the two-temporaries kernel 36 (128x128 tiles) ran 0.97x torch._scaled_mm at 4096^3 where
# the pick ran 0.88x, and level elsewhere. (2) Chapter 02 executed on the bench of call 2.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call3; mkdir -p $OUT
step build 400 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 6 --build-only
step cutlass_sw6 $((420 - SECONDS)) python3 benchmarks/fp8_gemm_cutlass_check.py --builds 6 --ms 4096,8192 --json $OUT/cutlass_sw6.json
mkdir -p $OUT/from && cp benchmarks/fp8_quantize_bench.json benchmarks/fp8_gemm_bench.json $OUT/from/
KL_BENCH_FROM=$OUT/from step nb_ch02 $((585 - SECONDS)) python3 benchmarks/execute_notebook.py chapters/02_fp8_gemm/02_fp8_gemm.ipynb $OUT/02_fp8_gemm.ipynb
cp $OUT/*.json $OUT/*.ipynb $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 1 $OUT/build.txt; tail -n 2 $OUT/nb_ch02.txt
grep -E "M= *[0-9]+ |FAIL|fail" $OUT/cutlass_sw6.txt | cut -c1-250 | tail -6
