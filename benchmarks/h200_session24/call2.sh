#!/usr/bin/env bash
# Twenty-fourth H200 session, call 2.
# Call 1: two passes over the row with an L2 evict-last policy on the first read (Inductor's
# structure at N = 8192) ran 3-5% ahead of both one-pass rungs from 16384 rows in Triton; the
# rung's own CUDA streaming kernel, whose loop has one load in flight per thread, ran far behind.
# Which part wins: the second read, or the policy? Beside the rungs, static torch.compile and
# torch's copy, at the same six shapes:
#   - Triton: the one-pass plan with evict-last loads of x, and the two best two-pass plans;
#   - CUDA (csrc/rmsnorm.cu with cand_el.patch): the one-pass kernel with x read as Triton reads it
#     with evict_last (cand_el: KL_EL_LOADS), reading x again after the reduction instead of
#     holding it (cand_rl: KL_RELOAD), and both (cand_elrl).
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT
for v in el rl elrl; do
  d=$C/cand_$v; mkdir -p $d && cp csrc/rmsnorm.cu csrc/rmsnorm_launch.cuh $d/ && patch -s -d $d < $C/cand_el.patch
done
sed -i '1i #define KL_EL_LOADS 1' $C/cand_el/rmsnorm.cu $C/cand_elrl/rmsnorm.cu
sed -i '1i #define KL_RELOAD 1' $C/cand_rl/rmsnorm.cu $C/cand_elrl/rmsnorm.cu
for f in csrc $C/cand_el $C/cand_rl $C/cand_elrl; do
  python3 -c "import sys; from pathlib import Path; from solutions.rmsnorm import load_cuda_ops; load_cuda_ops(Path(sys.argv[1]) / 'rmsnorm.cu'); print('built', sys.argv[1])" $f > $OUT/build_$(basename $f).txt 2>&1 &
done
wait
step rms_policy 500 python3 benchmarks/rmsnorm_variants.py --two-pass --copy-bound \
  --only "ref triton,ref cuda,compile static,bound,cuda from,triton hints - evict_last,triton 2 passes chunk=4096 warps=16 evict_last -,triton 2 passes chunk=2048 warps=8 evict_last -" \
  --cuda-from $C/cand_el,$C/cand_rl,$C/cand_elrl \
  --shapes 4096x4096,16384x4096,32768x4096,4096x8192,16384x8192,32768x8192 --json $OUT/rms_policy.json
cp $OUT/*.json $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -qn 1 $OUT/build_*.txt | cut -c1-150
python3 $C/table.py $OUT/rms_policy.json
tail -n 2 $OUT/rms_policy.txt | cut -c1-300
