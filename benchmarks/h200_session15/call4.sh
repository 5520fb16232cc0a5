#!/usr/bin/env bash
# Fifteenth H200 session, call 4: while the CUTLASS library builds with its new decode picks (21,
# 22, 23), the Triton rmsnorm rungs' few-row switches timed at many rows; then fp8_gemm benched
# (Triton and CUTLASS rungs beside torch._scaled_mm), chapter 02 executed on that bench, and the
# CUTLASS rung checked by the grader.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call4; mkdir -p $OUT
python3 -c "from solutions import fp8_gemm as s; s._gemm_ops(); print('CUTLASS library built')" > $OUT/build_cutlass.txt 2>&1 &
build=$!
ONLY="ref triton,ref cuda,triton few-row switches"
step many_rmsnorm 120 python3 benchmarks/rmsnorm_variants.py --only "$ONLY"
step many_fused 120 python3 benchmarks/rmsnorm_variants.py --fused --only "$ONLY"
wait $build; echo "== build_cutlass: exit $? at $SECONDS s"
step bench_fp8_gemm 300 python3 -m grading bench fp8_gemm --rungs triton cuda --json $OUT/fp8_gemm_bench.json --plot $OUT/fp8_gemm_roofline_H200.png
cp benchmarks/fp8_quantize_bench.json $OUT/
KL_BENCH_FROM=$OUT step nb_ch02 $((560 - SECONDS)) python3 benchmarks/execute_notebook.py chapters/02_fp8_gemm/02_fp8_gemm.ipynb $OUT/02_fp8_gemm.ipynb
rm -f $OUT/fp8_quantize_bench.json
[ $SECONDS -lt 540 ] && step check_fp8_cuda $((592 - SECONDS)) python3 -m grading check fp8_gemm --rung cuda --solutions --seed 2031
cp $OUT/fp8_gemm_bench.* $OUT/*.png $OUT/*.ipynb $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
grep -h "µs" $OUT/many_*.txt | cut -c1-90
tail -n 3 $OUT/nb_ch02.txt; grep -hE "cases pass|FAIL" $OUT/check_fp8_cuda.txt 2>/dev/null | tail -3
python3 benchmarks/fp8_gemm_variants.py --summary $BACK | head -40
cut -c1-150 $OUT/fp8_gemm_bench.md | head -52
