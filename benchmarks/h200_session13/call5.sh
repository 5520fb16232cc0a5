#!/usr/bin/env bash
# Thirteenth H200 session, call 5: call 4's cand_g adopted (x and the residual loaded without L1
# allocation in the few-rows block-row kernels; the same machine code as cand_g, cuobjdump -sass).
# Both CUDA kernels checked, then the decode sizes timed beside the Triton and compiled rungs.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call5; mkdir -p $OUT
step check_rmsnorm_cuda 90 python3 -m grading check rmsnorm --rung cuda --solutions --seed 51 --json $OUT/check_rmsnorm_cuda.json
step check_fused_cuda 80 python3 -m grading check fused_add_rmsnorm --rung cuda --solutions --seed 51 --json $OUT/check_fused_cuda.json
step fused_small 60 python3 benchmarks/rmsnorm_variants.py --small --fused --only "ref cuda,ref triton,ref compiled" --json $OUT/fused_small.json
step rmsnorm_small 60 python3 benchmarks/rmsnorm_variants.py --small --only "ref cuda,ref triton,ref compiled" --json $OUT/rmsnorm_small.json
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt *.json)
grep -h "cases pass" $OUT/check_*.txt
grep -h "µs" $OUT/fused_small.txt $OUT/rmsnorm_small.txt | sed 's/ GB.s.*graph/ g/' | cut -c1-60
