#!/usr/bin/env bash
# Seventeenth H200 session, call 3 (on call 2's machine, whose build cache holds the CUTLASS
# libraries): the CUTLASS decode kernels with programmatic dependent launch (configurations
# 25-27, sweep build 5) beside the shipped ones and torch._scaled_mm at M = 1-128; chapter 02
# executed on call 2's fp8_quantize bench and the committed fp8_gemm bench.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call3; mkdir -p $OUT
ls .kl_cache/bench .kl_cache/cuda 2>&1 | head -20
step cutlass_pdl 360 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 5 --ms 1,16,64,128 --json $OUT/cutlass_pdl.json
if [ -f .kl_cache/bench/fp8_quantize_bench.json ]; then
  KL_BENCH_FROM=$PWD/.kl_cache/bench step nb_ch02 $((590 - SECONDS)) python3 benchmarks/execute_notebook.py chapters/02_fp8_gemm/02_fp8_gemm.ipynb $OUT/02_fp8_gemm.ipynb
else echo "no fp8_quantize bench from call 2 on this machine: chapter 02 not executed"; fi
cp $OUT/*.json $OUT/*.ipynb $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
grep -E "^ *(M|[0-9])|x |compil|built" $OUT/cutlass_pdl.txt | cut -c1-160 | tail -70
tail -n 3 $OUT/nb_ch02.txt 2>/dev/null
