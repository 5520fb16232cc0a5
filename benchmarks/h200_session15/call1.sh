#!/usr/bin/env bash
# Fifteenth H200 session, call 1: the Triton rmsnorm kernel's EXACT and W_EARLY switches at decode
# sizes, one implementation per process (one-row timings shift with their order inside a process);
# then v6 (stream-K) beside the Triton pick at the 24 decode shapes while the CUTLASS library
# builds; then what the GPU runs per fp8_gemm call at decode sizes (fp8_gemm_trace.py).
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/nvidia_cutlass*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT  # at most 8 files come back: the logs travel as one archive
S=1x4096,64x4096,256x4096
for kind in rmsnorm fused; do
  flag=; [ $kind = fused ] && flag=--fused
  i=0
  for name in "ref triton" "triton EXACT" "triton W_EARLY" "triton both switches" "ref triton"; do
    i=$((i + 1))
    step "small_${kind}_$i" 60 python3 benchmarks/rmsnorm_variants.py --small $flag --shapes $S --only "$name"
  done
done
python3 -c "from solutions import fp8_gemm as s; s._gemm_ops(); print('CUTLASS library built')" > $OUT/build_cutlass.txt 2>&1 &
build=$!
step stream_k 330 python3 benchmarks/fp8_gemm_variants.py --stream-k --json $OUT/stream_k.json
wait $build; echo "== build_cutlass: exit $?"
step trace $((590 - SECONDS)) python3 benchmarks/fp8_gemm_trace.py --cutlass-configs 12,13,14
cp $OUT/stream_k.json $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
for f in $OUT/small_*.txt; do echo "-- $(basename $f)"; grep -E "µs" $f | cut -c1-90; done
tail -n 32 $OUT/stream_k.txt | cut -c1-200
grep -E "µs|x [0-9]+ x" $OUT/trace.txt | cut -c1-150 | head -80
