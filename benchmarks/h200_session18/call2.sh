#!/usr/bin/env bash
# Eighteenth H200 session, call 2. (1) rmsnorm at many rows: the CUDA rung beside three cache-hint
# candidates (cand_ef.patch: KL_RMS_CAND 4 = x read with an L2 evict-first policy, 5 = y stored
# with an L2 evict-last policy, 6 = both), the Triton rung with and without evict-first loads.
# (2) The CUTLASS rung as now shipped (the picks launched with programmatic dependent launch):
# checked, then `bench fp8_gemm --rungs triton cuda`, and chapter 02 executed on that bench.
# (3) The fused kernel with the same candidates, with the time left.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT
python3 -c "from solutions import fp8_gemm as s; s._gemm_ops(); print('CUTLASS library built')" > $OUT/build_lib.txt 2>&1 &
LIB=$!
EF=$C/cand_ef4,$C/cand_ef5,$C/cand_ef6
step rms_ef 170 python3 benchmarks/rmsnorm_variants.py --only "ref triton,ref cuda,cuda from,triton hints - evict" \
  --cuda-from $EF --shapes 4096x4096,16384x4096,4096x8192,16384x8192 --json $OUT/rms_ef.json
wait $LIB
step check_cuda 90 python3 -m grading check fp8_gemm --rung cuda --solutions --no-speed --seed 2118
step bench_gemm 300 python3 -m grading bench fp8_gemm --rungs triton cuda --json $OUT/fp8_gemm_bench.json --plot $OUT/fp8_gemm_roofline_H200.png
mkdir -p $OUT/from && cp benchmarks/fp8_quantize_bench.json $OUT/fp8_gemm_bench.json $OUT/from/ 2>/dev/null
KL_BENCH_FROM=$OUT/from step nb_ch02 $((585 - SECONDS)) python3 benchmarks/execute_notebook.py chapters/02_fp8_gemm/02_fp8_gemm.ipynb $OUT/02_fp8_gemm.ipynb
[ $SECONDS -lt 520 ] && step rms_ef_fused $((590 - SECONDS)) python3 benchmarks/rmsnorm_variants.py --fused \
  --only "ref triton,ref cuda,cuda from" --cuda-from $EF --shapes 4096x4096,16384x4096,4096x8192 --json $OUT/rms_ef_fused.json
cp $OUT/*.json $OUT/*.md $OUT/*.png $OUT/*.ipynb $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 1 $OUT/build_lib.txt; grep -hE "cases pass|FAIL" $OUT/check_cuda.txt | cut -c1-160 | head -5
tail -n 2 $OUT/nb_ch02.txt
grep -h "µs" $OUT/rms_ef.txt $OUT/rms_ef_fused.txt 2>/dev/null | cut -c1-100
cut -c1-200 $OUT/fp8_gemm_bench.md 2>/dev/null | head -60
