#!/usr/bin/env bash
# Fifteenth H200 session, call 2: the Triton rung's decode sweep with the plan counting registers
# (128 x 28672 x 8192 now 128 x 128 x 128, 5 stages), while the CUTLASS libraries build (the file
# as shipped, with 24 = kernel 2 split-K, and sweep build 4: kernels 21-23); then every CUTLASS
# configuration checked and timed at M <= 128, then what the GPU runs for the new ones.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/nvidia_cutlass*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT
python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,4 --build-only > $OUT/build_cutlass.txt 2>&1 &
build=$!
step variants_small 300 python3 benchmarks/fp8_gemm_variants.py --small --json $OUT/variants_small.json
wait $build; echo "== build_cutlass: exit $? at $SECONDS s"; tail -2 $OUT/build_cutlass.txt
step cutlass_check $((545 - SECONDS)) python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,4 --ms 1,16,64,128 --json $OUT/cutlass_check.json
[ $SECONDS -lt 540 ] && step trace $((590 - SECONDS)) python3 benchmarks/fp8_gemm_trace.py --cutlass-configs 21,22,23,24
cp $OUT/*.json $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 28 $OUT/variants_small.txt | cut -c1-170
grep -E "^ +[0-9]+x[0-9]+ +[0-9]+ \||M= |fail|rror|wrong" $OUT/cutlass_check.txt | cut -c1-200 | head -40
grep -E "µs" $OUT/trace.txt 2>/dev/null | cut -c1-110 | head -60
