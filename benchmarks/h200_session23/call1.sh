#!/usr/bin/env bash
# Twenty-third H200 session, call 1.
# (1) The Triton decode picks at M = 128 beside their tile twice as tall in weight rows with the
#     stages that fit (fp8_gemm_variants.py --wide): the wide neighbour timed in h200_session20,
#     call 2 kept the pick's stages less two (2 at N = 14336).
# (2) rmsnorm at many rows: where the CUDA rung's time goes. Bounds beside the rungs (not an
#     rmsnorm, outputs unchecked): the same kernel without the reduction (cand_7: y = x * w) and
#     without the weight too (cand_10: y = x), and torch's copy of x.
# (3) rmsnorm at many rows, a new structure (cand_11, cand_12): rows loaded by TMA bulk copies
#     into a ring of 4 (2) row buffers in shared memory, a persistent grid; checked against the
#     reference, 5003 rows among the shapes (rows not a multiple of the grid).
# The candidates are csrc/rmsnorm.cu and rmsnorm_launch.cuh with cand_ring.patch applied and
# KL_RMS_CAND defined on the first line (the folders are carried, not committed).
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT
for f in csrc $C/cand_7 $C/cand_10 $C/cand_11 $C/cand_12; do
  python3 -c "import sys; from pathlib import Path; from solutions.rmsnorm import load_cuda_ops; load_cuda_ops(Path(sys.argv[1]) / 'rmsnorm.cu'); print('built', sys.argv[1])" $f > $OUT/build_$(basename $f).txt 2>&1 &
done
step triton_wide 200 python3 benchmarks/fp8_gemm_variants.py --wide \
  --shapes 128x14336x4096,128x4096x14336,128x8192x8192,128x8192x28672 --json $OUT/triton_wide.json
wait
step rms_bounds 150 python3 benchmarks/rmsnorm_variants.py --only "ref triton,ref cuda,bound" \
  --cuda-bounds $C/cand_7,$C/cand_10 --copy-bound --shapes 4096x4096,16384x4096,4096x8192 --json $OUT/rms_bounds.json
step rms_ring $((585 - SECONDS)) python3 benchmarks/rmsnorm_variants.py --only "ref triton,ref cuda,cuda from" \
  --cuda-from $C/cand_11,$C/cand_12 --shapes 4096x4096,5003x4096,16384x4096,32768x4096,4096x8192,16384x8192 \
  --json $OUT/rms_ring.json
cp $OUT/*.json $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -qn 1 $OUT/build_*.txt | cut -c1-150
grep -h "µs" $OUT/rms_bounds.txt $OUT/rms_ring.txt | cut -c1-110
tail -n 3 $OUT/rms_ring.txt | cut -c1-300
sed -n '/^| M × N × K/,$p' $OUT/triton_wide.txt
grep -h '"impl"' $OUT/triton_wide.txt | python3 -c "
import sys, json
for l in sys.stdin:
    r = json.loads(l); print(r['shape'], r['impl'][:55], round(r.get('time_us', 0), 1), r.get('error', '')[:80])"
