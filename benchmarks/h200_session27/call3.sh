#!/usr/bin/env bash
# Twenty-seventh H200 session, call 3: the dispatch picks 59 (kernel 4's tile under stream-K's
# heuristic) only where the heuristic splits: M >= 2048, K >= 8192, under 8 waves of kernel 4's
# tiles with the last under half full (of the bench's shapes, 4096 x 4096 x 14336; calls 1 and 2).
# `bench fp8_gemm --rungs triton cuda` with it; the CUTLASS library builds beside the bench's first
# process (the Triton rung), and the CUDA rung's process waits for it. Then the grader's check of
# the CUTLASS rung.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call3; mkdir -p $OUT
python3 -c "from solutions import fp8_gemm as s; s._gemm_ops(); print('CUTLASS library built')" > $OUT/build_lib.txt 2>&1 &
step bench_gemm 420 python3 -m grading bench fp8_gemm --rungs triton cuda --json $OUT/fp8_gemm_bench.json --plot $OUT/fp8_gemm_roofline_H200.png
cp $OUT/*.json $OUT/*.md $OUT/*.png $BACK/ 2>/dev/null
step check_cuda 60 python3 -m grading check fp8_gemm --rung cuda --solutions --no-speed --seed 2728
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 1 $OUT/build_lib.txt; grep -hE "cases pass|FAIL" $OUT/check_cuda.txt | cut -c1-160 | head -4
grep -E "timed " $OUT/bench_gemm.txt
python3 benchmarks/fp8_gemm_variants.py --summary $OUT | grep -E "^\| (4096|8192)×" | head -30
