#!/usr/bin/env bash
# Thirteenth H200 session, call 3: cache hints and plans, each candidate timed beside the
# reference build (call 1's) in one run. The Triton rung's SASS at 4096 x 4096 (8 warps, compiled
# here for sm_90) differs from the CUDA rung's in its loads: x through plain LDG.E.128 (ours:
# LDG.E.128.CONSTANT, the non-coherent path), the weight LDG.E.EL.128 (L1 evict-last and an L2
# evict-last policy). cand_a: the weight with those hints; cand_b: + x coherent (Triton's loads
# exactly); cand_c: + x without L1 allocation. cand_f: the fused kernel at one pack per thread up
# to kFewRows rows (512 threads for N = 4096; 256 x 4096 is 0.94-0.96x torch.compile). cand_qa /
# cand_qb: the quantizer's x coherent / without L1 allocation (84.9% of copy at 4096 x 4096,
# Triton 87.6%). The candidate folders travel carried; each has its patch beside it.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call3; mkdir -p $OUT  # at most 8 files come back: the logs travel as one archive
for d in csrc $C/cand_a $C/cand_b $C/cand_c $C/cand_f; do
  python3 -c "import sys; from pathlib import Path; sys.path.insert(0, '.'); import grading; from solutions import rmsnorm as s; s.load_cuda_ops(Path('$d/rmsnorm.cu'))" > $OUT/build_rms_$(basename $d).txt 2>&1 &
done
for d in csrc $C/cand_qa $C/cand_qb; do
  python3 -c "import sys; sys.path.insert(0, 'benchmarks'); sys.path.insert(0, '.'); import fp8_quant_variants as v; v.cuda_build('$d')" > $OUT/build_quant_$(basename $d).txt 2>&1 &
done
wait
step rmsnorm_large 100 python3 benchmarks/rmsnorm_variants.py --cuda-from $C/cand_a,$C/cand_b,$C/cand_c --only "ref cuda,ref triton,cuda from" --json $OUT/rmsnorm_large.json
step rmsnorm_small 90 python3 benchmarks/rmsnorm_variants.py --small --cuda-from $C/cand_a,$C/cand_b,$C/cand_c --only "ref cuda,ref compiled,cuda from" --json $OUT/rmsnorm_small.json
step fused_small 90 python3 benchmarks/rmsnorm_variants.py --small --fused --cuda-from $C/cand_a,$C/cand_f --only "ref cuda,ref triton,ref compiled,cuda from" --json $OUT/fused_small.json
step quant 90 python3 benchmarks/fp8_quant_variants.py --cuda-from $C/cand_qa,$C/cand_qb --only "ref cuda,ref triton,cuda from" --json $OUT/quant.json
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt *.json)
grep -h "µs" $OUT/rmsnorm_large.txt $OUT/rmsnorm_small.txt $OUT/fused_small.txt $OUT/quant.txt | sed 's/benchmarks.h200_session13.//; s/ GB.s.*graph/ g/; s/GB.s .*/GB\/s/' | cut -c1-70
