#!/usr/bin/env bash
# Twenty-third H200 session, call 4: as call 2, with the Triton pick at M <= 16 splitting K in two where
# 64-row tiles leave half the SMs idle over K >= 8192 (call 3). Both rungs checked, then
# `bench fp8_gemm --rungs triton cuda`. The device time left does not cover executing chapter 02
# again: its scoreboard cells are re-rendered from this bench (refresh_bench_cells.py).
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call4; mkdir -p $OUT
python3 -c "from solutions import fp8_gemm as s; s._gemm_ops(); print('CUTLASS library built')" > $OUT/build_lib.txt 2>&1 &
LIB=$!
step check_triton 150 python3 -m grading check fp8_gemm --rung triton --solutions --no-speed --seed 2323
wait $LIB
step check_cuda 90 python3 -m grading check fp8_gemm --rung cuda --solutions --no-speed --seed 2323
step bench_gemm 300 python3 -m grading bench fp8_gemm --rungs triton cuda --json $OUT/fp8_gemm_bench.json --plot $OUT/fp8_gemm_roofline_H200.png
cp $OUT/*.json $OUT/*.md $OUT/*.png $OUT/*.ipynb $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 1 $OUT/build_lib.txt; grep -hE "cases pass|FAIL|pass" $OUT/check_cuda.txt $OUT/check_triton.txt | cut -c1-160 | head -6
python3 benchmarks/fp8_gemm_variants.py --summary $OUT | head -60
