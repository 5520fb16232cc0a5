#!/usr/bin/env bash
# Twenty-fourth H200 session, call 1.
# rmsnorm at many rows, two passes over the row (the second read from L2) beside the one-pass
# rungs, torch.compile with static shapes (Inductor's looped reduction at N = 8192, 2-4% ahead of
# both rungs there in benchmarks/rmsnorm_bench.md) and torch's copy of x:
#   - Triton: rmsnorm_variants.py --two-pass, chunks of 1024-4096, 4-16 warps, with and without
#     eviction policies on the two reads (Inductor's: evict_last on the first);
#   - CUDA: the rung's streaming kernel at every N past kFewRows rows, blocks of 256, 512, 1024
#     threads (cand_tp256, cand_tp512, cand_tp1024), and 512 with L2 policies on the two reads
#     (cand_tp512h: evict_last, then evict_first). csrc/rmsnorm.cu and rmsnorm_launch.cuh with
#     cand_tp.patch applied and KL_TP_THREADS (KL_TP_HINTS) defined on the first line.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT
for v in 256 512 1024 512h; do
  d=$C/cand_tp$v; mkdir -p $d && cp csrc/rmsnorm.cu csrc/rmsnorm_launch.cuh $d/ && patch -s -d $d < $C/cand_tp.patch
  sed -i "1i #define KL_TP_THREADS ${v%h}" $d/rmsnorm.cu
  [[ $v == *h ]] && sed -i "1i #define KL_TP_HINTS 1" $d/rmsnorm.cu
done
for f in csrc $C/cand_tp256 $C/cand_tp512 $C/cand_tp1024 $C/cand_tp512h; do
  python3 -c "import sys; from pathlib import Path; from solutions.rmsnorm import load_cuda_ops; load_cuda_ops(Path(sys.argv[1]) / 'rmsnorm.cu'); print('built', sys.argv[1])" $f > $OUT/build_$(basename $f).txt 2>&1 &
done
wait
step rms_two_pass 520 python3 benchmarks/rmsnorm_variants.py --two-pass --copy-bound \
  --only "ref triton,ref cuda,compile static,bound,cuda from,triton 2 passes" \
  --cuda-from $C/cand_tp256,$C/cand_tp512,$C/cand_tp1024,$C/cand_tp512h \
  --shapes 4096x4096,16384x4096,32768x4096,4096x8192,16384x8192,32768x8192 --json $OUT/rms_two_pass.json
cp $OUT/*.json $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -qn 1 $OUT/build_*.txt | cut -c1-150
python3 - $OUT/rms_two_pass.json <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))["rows"]
shapes = sorted({tuple(r["shape"]) for r in rows}, key=lambda s: (s[1], s[0]))
by = {(r["impl"], tuple(r["shape"])): r["us"] for r in rows}
names = list(dict.fromkeys(r["impl"] for r in rows))
print(f"{'µs':44s}" + "".join(f"{m}x{n:<6}"[:12].rjust(12) for m, n in shapes))
for nm in names:
    print(f"{nm[:44]:44s}" + "".join(f"{by.get((nm, s), float('nan')):12.2f}" for s in shapes))
PY
tail -n 3 $OUT/rms_two_pass.txt | cut -c1-300
