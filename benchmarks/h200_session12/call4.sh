#!/usr/bin/env bash
# Twelfth H200 session, call 4: cand_q beside the reference build (call 2's kernel): when n is a
# multiple of the vector width and every lane's packs lie inside the row (Llama rows at every
# plan), a block-row kernel without guards, tail or row loop (kExact): 131 instructions from
# entry to the store at 1 x 4096 bf16, against ~190. Decode sizes for both kernels, then
# rmsnorm's large shapes.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call4; mkdir -p $OUT
cand q
for d in csrc $C/cand_q; do
  python3 -c "import sys; from pathlib import Path; sys.path.insert(0, '.'); import grading; from solutions import rmsnorm as s; s.load_cuda_ops(Path('$d/rmsnorm.cu'))" > $OUT/build_$(basename $d).txt 2>&1 &
done
wait
ONLY="ref cuda,ref triton,ref compiled,cuda from"
step rmsnorm_small 100 python3 benchmarks/rmsnorm_variants.py --small --cuda-from $C/cand_q --only "$ONLY" --json $OUT/rmsnorm_small.json
step fused_small 100 python3 benchmarks/rmsnorm_variants.py --small --fused --cuda-from $C/cand_q --only "$ONLY" --json $OUT/fused_small.json
step rmsnorm_large 100 python3 benchmarks/rmsnorm_variants.py --cuda-from $C/cand_q --only "ref cuda,ref triton,cuda from" --json $OUT/rmsnorm_large.json
cp $OUT/*.json $BACK/; tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
grep -h "µs" $OUT/rmsnorm_small.txt $OUT/fused_small.txt $OUT/rmsnorm_large.txt | sed 's/benchmarks.h200_session12.//; s/ GB.s.*graph/ g/' | cut -c1-80
