#!/usr/bin/env bash
# Seventeenth H200 session, call 1. (1) rmsnorm at many rows: the CUDA rung beside two candidate
# plans for rows covered exactly by a block (cand_pers: a persistent grid, the weight held in
# registers; cand_pref: the same, with the next row's loads issued before this row's reduction),
# the Triton rung in the same run. (2) `bench fused_add_rmsnorm` with both rungs' current plans.
# (3) The quantizers with programmatic dependent launch (cand_qpdl: csrc/fp8_quant.cu with
# kDependentLaunch = true) beside the reference ones, if the call has time left.
set -uo pipefail
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT
# The candidates' builds on the CPU while the GPU works.
python3 -c "
from pathlib import Path
from solutions import rmsnorm, fp8_gemm
for d in ('cand_pers', 'cand_pref'): rmsnorm.load_cuda_ops(Path('$C') / d / 'rmsnorm.cu')
fp8_gemm.load_quant_ops(Path('csrc/fp8_quant.cu')); fp8_gemm.load_quant_ops(Path('$C/cand_qpdl/fp8_quant.cu'))
" > $OUT/prebuild.txt 2>&1 &
step rms_large 200 python3 benchmarks/rmsnorm_variants.py --only "ref triton,ref cuda,cuda from" \
  --cuda-from $C/cand_pers,$C/cand_pref --shapes 4096x4096,16384x4096,32768x4096,4096x8192,16384x8192,32768x8192 \
  --json $OUT/rms_large.json
step bench_fused 400 python3 -m grading bench fused_add_rmsnorm --json $OUT/fused_add_rmsnorm_bench.json --plot $OUT/fused_add_rmsnorm_roofline_H200.png
wait
step quant_pdl $((590 - SECONDS)) python3 benchmarks/fp8_quant_variants.py --cuda-from $C/cand_qpdl \
  --only "ref cuda,cuda from,ref triton,triton PDL" --shapes 1x4096,128x4096,4096x4096,16384x4096,4096x8192 --json $OUT/quant_pdl.json
cp $OUT/*.json $OUT/*.md $OUT/*.png $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
grep -h "µs" $OUT/rms_large.txt $OUT/quant_pdl.txt | cut -c1-100
cut -c1-230 $OUT/fused_add_rmsnorm_bench.md 2>/dev/null | head -22
