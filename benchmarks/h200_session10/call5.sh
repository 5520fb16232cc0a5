#!/usr/bin/env bash
# Tenth H200 session, call 5: fp8_gemm benched with the new picks (Triton: decode picks of the
# ninth session, promotion every 1024 of K for M > 128; CUTLASS unchanged), then chapter 02's
# notebook executed on these results.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
step fp8_gemm_bench 420 python3 -m grading bench fp8_gemm --rungs triton cuda --json $OUT/fp8_gemm_bench.json --plot $OUT/fp8_gemm_roofline_H200.png
cp $OUT/fp8_gemm_bench.json $OUT/fp8_gemm_bench.md benchmarks/ 2>/dev/null
cp benchmarks/fp8_quantize_bench.json $OUT/
KL_BENCH_FROM=$OUT step nb_ch02 $((590 - SECONDS)) python3 benchmarks/execute_notebook.py chapters/02_fp8_gemm/02_fp8_gemm.ipynb $OUT/02_fp8_gemm.ipynb
rm -f $OUT/fp8_quantize_bench.json
python3 benchmarks/fp8_gemm_variants.py --summary $OUT | head -60; tail -4 $OUT/nb_ch02.txt
