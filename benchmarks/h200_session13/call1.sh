#!/usr/bin/env bash
# Thirteenth H200 session, call 1: kExact adopted (block-row kernels without guards, tail or row
# loop when the plan covers the row exactly) for rmsnorm (h200_session12/cand_r) and for the CUDA
# quantizer, which also gets 32-bit offsets within a row and one barrier for a block's one row.
# Each timed beside the build of the previous commit ($C/cand_old) in the same run; then both CUDA
# rmsnorm kernels and the quantizer checked, and fp8_quantize benched beside every other rung.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT  # at most 8 files come back: the logs travel as one archive
for d in csrc $C/cand_old; do
  python3 -c "import sys; from pathlib import Path; sys.path.insert(0, '.'); import grading; from solutions import rmsnorm as s; s.load_cuda_ops(Path('$d/rmsnorm.cu'))" > $OUT/build_rms_$(basename $d).txt 2>&1 &
  python3 -c "import sys; sys.path.insert(0, 'benchmarks'); sys.path.insert(0, '.'); import fp8_quant_variants as v; v.cuda_build('$d')" > $OUT/build_quant_$(basename $d).txt 2>&1 &
done
wait
step rmsnorm_small 100 python3 benchmarks/rmsnorm_variants.py --small --cuda-from $C/cand_old --only "ref cuda,ref triton,ref compiled,cuda from" --json $OUT/rmsnorm_small.json
step fused_small 80 python3 benchmarks/rmsnorm_variants.py --small --fused --cuda-from $C/cand_old --only "ref cuda,ref compiled,cuda from" --json $OUT/fused_small.json
step rmsnorm_large 90 python3 benchmarks/rmsnorm_variants.py --cuda-from $C/cand_old --only "ref cuda,cuda from" --json $OUT/rmsnorm_large.json
step quant 90 python3 benchmarks/fp8_quant_variants.py --cuda-from $C/cand_old --json $OUT/quant.json
step check_rmsnorm_cuda 100 python3 -m grading check rmsnorm --rung cuda --solutions --seed 31 --json $OUT/check_rmsnorm_cuda.json
step check_fused_cuda 80 python3 -m grading check fused_add_rmsnorm --rung cuda --solutions --seed 31 --json $OUT/check_fused_cuda.json
step check_quant_cuda 80 python3 -m grading check fp8_quantize --rung cuda --solutions --seed 31 --json $OUT/check_quant_cuda.json
step quant_bench $((575 - SECONDS)) python3 -m grading bench fp8_quantize --json $OUT/fp8_quantize_bench.json --plot $OUT/fp8_quantize_roofline_H200.png
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt *.json)
cp $OUT/fp8_quantize_bench.* $OUT/*.png $BACK/ 2>/dev/null
grep -h "µs" $OUT/rmsnorm_small.txt $OUT/fused_small.txt $OUT/rmsnorm_large.txt $OUT/quant.txt | sed 's/benchmarks.h200_session13.//; s/ GB.s.*graph/ g/' | cut -c1-70
tail -n 2 $OUT/check_*.txt | cut -c1-150
