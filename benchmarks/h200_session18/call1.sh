#!/usr/bin/env bash
# Eighteenth H200 session, call 1. (1) rmsnorm and fused_add_rmsnorm at many rows: the CUDA rung
# beside the three weight-load candidates of the seventeenth session (h200_session17/cand_w.patch,
# KL_RMS_CAND 1-3), the Triton rung in the same run. (2) The CUTLASS kernels with programmatic
# dependent launch (sweep build 5, configurations 25-30) beside the shipped picks and
# torch._scaled_mm at every M of the bench. The CUTLASS libraries build on the CPU meanwhile.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT
W=benchmarks/h200_session17
python3 -c "from solutions import fp8_gemm as s; s._gemm_ops(); print('CUTLASS library built')" > $OUT/build_lib.txt 2>&1 &
python3 benchmarks/fp8_gemm_cutlass_check.py --builds 5 --build-only > $OUT/build_sweep5.txt 2>&1 &
step rms_w 200 python3 benchmarks/rmsnorm_variants.py --only "ref triton,ref cuda,cuda from" \
  --cuda-from $W/cand_w1,$W/cand_w2,$W/cand_w3 --shapes 4096x4096,16384x4096,32768x4096,4096x8192,16384x8192 \
  --json $OUT/rms_w.json
step rms_w_fused 170 python3 benchmarks/rmsnorm_variants.py --fused --only "ref triton,ref cuda,cuda from" \
  --cuda-from $W/cand_w1,$W/cand_w2,$W/cand_w3 --shapes 4096x4096,16384x4096,4096x8192 \
  --json $OUT/rms_w_fused.json
wait
step cutlass_pdl $((590 - SECONDS)) python3 benchmarks/fp8_gemm_cutlass_check.py --builds 5 --json $OUT/cutlass_pdl.json
cp $OUT/*.json $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 1 $OUT/build_*.txt
grep -h "µs" $OUT/rms_w.txt $OUT/rms_w_fused.txt | cut -c1-110
grep -E "M= *[0-9]+ |FAIL|x " $OUT/cutlass_pdl.txt | cut -c1-170 | tail -40
