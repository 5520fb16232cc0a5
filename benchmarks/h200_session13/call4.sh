#!/usr/bin/env bash
# Thirteenth H200 session, call 4: call 3's cand_c (x without L1 allocation) was 0.2-0.3 µs faster
# at 256 x 4096, 64 x 8192 and 256 x 8192 and 5% slower from 4096 rows. cand_g: that load for x
# (and the residual) only in the few-rows block-row kernels (kBlockRow && kWeightEarly: rows <=
# kFewRows), both kernels; cand_h: cand_g + the weight's evict-last hints (cand_a). Decode sizes,
# beside the reference build and torch.compile in the same run.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call4; mkdir -p $OUT
for d in csrc $C/cand_g $C/cand_h; do
  python3 -c "import sys; from pathlib import Path; sys.path.insert(0, '.'); import grading; from solutions import rmsnorm as s; s.load_cuda_ops(Path('$d/rmsnorm.cu'))" > $OUT/build_rms_$(basename $d).txt 2>&1 &
done
wait
step rmsnorm_small 90 python3 benchmarks/rmsnorm_variants.py --small --cuda-from $C/cand_g,$C/cand_h --only "ref cuda,ref compiled,cuda from" --json $OUT/rmsnorm_small.json
step fused_small 90 python3 benchmarks/rmsnorm_variants.py --small --fused --cuda-from $C/cand_g,$C/cand_h --only "ref cuda,ref triton,ref compiled,cuda from" --json $OUT/fused_small.json
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt *.json)
grep -h "µs" $OUT/rmsnorm_small.txt $OUT/fused_small.txt | sed 's/benchmarks.h200_session13.//; s/ GB.s.*graph/ g/; s/GB.s .*/GB\/s/' | cut -c1-70
