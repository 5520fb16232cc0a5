#!/usr/bin/env bash
# Twelfth H200 session, call 1: candidates for the CUDA rmsnorm rung, each beside the reference
# build, the Triton rung, the compiled rung (the bench's baseline) and static torch.compile:
#   h  32-bit tail offsets from the row's start pointers (32 registers: 256 x 8192 in one wave)
#   i  h + one barrier per row (two halves of the warp sums, alternating rows)
#   j  i + coherent loads (no __restrict__: LDG.E.128 where i has LDG.E.128.CONSTANT)
#   k  i + the one-pack kernel reads the weight after the reduction (the Triton rung's order)
#   m  h + past kFewRows, rmsnorm at 2 packs per thread (256 threads at N = 4096), weight late
# Decode sizes (graphs) for both kernels, then rmsnorm's large shapes.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
(C=benchmarks/h200_session11; cand h)
for c in i j k m; do cand $c; done
H=benchmarks/h200_session11/cand_h
t0=$SECONDS
for d in csrc $H $C/cand_i $C/cand_j $C/cand_k $C/cand_m; do
  python3 -c "import sys; from pathlib import Path; sys.path.insert(0, '.'); import grading; from solutions import rmsnorm as s; s.load_cuda_ops(Path('$d/rmsnorm.cu'))" > $OUT/build_$(basename $d).txt 2>&1 &
done
wait; echo "== builds: $((SECONDS - t0)) s"; tail -n 3 $OUT/build_*.txt
ONLY="ref cuda,ref triton,ref compiled,compile static,cuda from"
step rmsnorm_small 170 python3 benchmarks/rmsnorm_variants.py --small --cuda-from $H,$C/cand_i,$C/cand_j,$C/cand_k --only "$ONLY" --json $OUT/rmsnorm_small.json
step fused_small 150 python3 benchmarks/rmsnorm_variants.py --small --fused --cuda-from $H,$C/cand_i,$C/cand_j,$C/cand_k --only "$ONLY" --json $OUT/fused_small.json
step rmsnorm_large $((560 - SECONDS)) python3 benchmarks/rmsnorm_variants.py --cuda-from $H,$C/cand_i,$C/cand_m --only "$ONLY" --json $OUT/rmsnorm_large.json
grep -h "µs" $OUT/rmsnorm_small.txt $OUT/fused_small.txt $OUT/rmsnorm_large.txt | sed 's/benchmarks.h200_session1[12].//; s/ GB.s.*graph/ g/' | cut -c1-80
