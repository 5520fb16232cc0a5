#!/usr/bin/env bash
# Twentieth H200 session, call 5: the CUTLASS rung with 48 (44 in a 4x1 cluster) picked at
# M <= 128 where the weight's 64-row tiles outnumber the SMs (call 4): checked, then
# `bench fp8_gemm --rungs triton cuda` (chapter 02's scoreboard cells re-rendered from it with
# benchmarks/refresh_bench_cells.py: the device time left did not cover executing the chapter).
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call5; mkdir -p $OUT
step build_lib 200 python3 -c "from solutions import fp8_gemm as s; s._gemm_ops(); print('CUTLASS library built')"
step check_cuda 60 python3 -m grading check fp8_gemm --rung cuda --solutions --no-speed --seed 2121
step bench_gemm 200 python3 -m grading bench fp8_gemm --rungs triton cuda --json $OUT/fp8_gemm_bench.json --plot $OUT/fp8_gemm_roofline_H200.png
cp $OUT/*.json $OUT/*.md $OUT/*.png $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 1 $OUT/build_lib.txt; grep -hE "cases pass|FAIL" $OUT/check_cuda.txt | cut -c1-160 | head -3
python3 benchmarks/fp8_gemm_variants.py --summary $OUT | grep -E "^\| (1|16|64|128|4096|8192)×" | grep tensor
