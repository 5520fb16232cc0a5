#!/usr/bin/env bash
# Nineteenth H200 session, call 1. While the CUTLASS libraries build (the shipped one and sweep
# build 5): the kernels torch._scaled_mm runs at large M and at M = 128 (their names give cuBLAS's
# tiles and clusters). Then sweep build 5 beside the picks at the bench's Ms but 512: the decode
# candidates 31-33 (M <= 128) and the large-M ping-pong candidates 34-35.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT
python3 -c "from solutions import fp8_gemm as s; s._gemm_ops(); print('CUTLASS library built')" > $OUT/build_lib.txt 2>&1 &
python3 benchmarks/fp8_gemm_cutlass_check.py --builds 5 --build-only > $OUT/build_sweep5.txt 2>&1 &
step cublas_names 120 python3 benchmarks/fp8_gemm_trace.py --impls torch._scaled_mm \
  --shapes 4096x4096x4096,8192x8192x8192,8192x14336x4096,8192x28672x8192,128x4096x4096,128x28672x8192
wait
step cutlass_sw5 $((590 - SECONDS)) python3 benchmarks/fp8_gemm_cutlass_check.py --builds 5 --ms 1,16,64,128,4096,8192 --json $OUT/cutlass_sw5.json
cp $OUT/*.json $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 1 $OUT/build_*.txt
grep -E " x |nvjet|sm90|µs" $OUT/cublas_names.txt | cut -c1-150 | head -30
grep -E "M= *[0-9]+ |FAIL|fail" $OUT/cutlass_sw5.txt | cut -c1-220 | tail -12
