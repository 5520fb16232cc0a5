#!/usr/bin/env bash
# Seventeenth H200 session, call 2: while the CUTLASS libraries build (the shipped file and sweep
# build 5, for call 3), fp8_quantize benched and checked with both quantizers' programmatic
# dependent launch; chapter 01 executed on the committed rmsnorm and fused_add_rmsnorm benches;
# the Triton GEMM's decode pick timed with and without programmatic dependent launch.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT
python3 -c "from solutions import fp8_gemm as s; s._gemm_ops(); print('CUTLASS library built')" > $OUT/build_lib.txt 2>&1 &
python3 benchmarks/fp8_gemm_cutlass_check.py --builds 5 --build-only > $OUT/build_sweep5.txt 2>&1 &
step bench_quant 240 python3 -m grading bench fp8_quantize --json $OUT/fp8_quantize_bench.json --plot $OUT/fp8_quantize_roofline_H200.png
for r in triton cuda; do
  step check_quant_$r 90 python3 -m grading check fp8_quantize --rung $r --solutions --no-speed --seed 2117
done
KL_BENCH_FROM=$PWD/benchmarks step nb_ch01 240 python3 benchmarks/execute_notebook.py chapters/01_rmsnorm/01_rmsnorm.ipynb $OUT/01_rmsnorm.ipynb
# For call 3 (chapter 02 on the new quantizer bench), kept on this machine.
mkdir -p .kl_cache/bench && cp $OUT/fp8_quantize_bench.json benchmarks/fp8_gemm_bench.json .kl_cache/bench/ 2>/dev/null
step gemm_pdl $((590 - SECONDS)) python3 benchmarks/fp8_gemm_variants.py --pdl --json $OUT/gemm_pdl.json
cp $OUT/*.json $OUT/*.md $OUT/*.png $OUT/*.ipynb $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 2 $OUT/build_*.txt
grep -hE "cases pass|FAIL" $OUT/check_quant_*.txt | cut -c1-160 | head -10
tail -n 3 $OUT/nb_ch01.txt
grep -h "µs" $OUT/gemm_pdl.txt | cut -c1-110 | head -60
cut -c1-200 $OUT/fp8_quantize_bench.md 2>/dev/null | head -30
