#!/usr/bin/env bash
# Twenty-seventh H200 session, call 1: chapter 03's bench again (its compiled rung, the baseline,
# now compiles with dynamic=False) and chapter 03 executed on it. Beside them the CUTLASS libraries
# are built (the file as shipped and sweep build 12), then 36 and 53, the large-M picks, are timed
# against 57-59 (the same kernels with stream-K splitting their last waves) at M = 4096 and 8192.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site KL_BENCH_FROM=$PWD/benchmarks
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT
python3 benchmarks/fp8_gemm_cutlass_check.py --build-only --builds 0,12 > $OUT/build.txt 2>&1 &
LIB=$!
step bench_paged 220 python3 -m grading bench paged_decode --json $OUT/paged_decode_bench.json --plot $OUT/paged_decode_roofline_H200.png
cp $OUT/paged_decode_bench.json $OUT/paged_decode_bench.md $OUT/paged_decode_roofline_H200.png benchmarks/
step nb_ch03 240 python3 benchmarks/execute_notebook.py chapters/03_paged_decode/03_paged_decode.ipynb $OUT/03_paged_decode.ipynb
wait $LIB; tail -n 2 $OUT/build.txt
step cutlass_sk 200 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,12 --configs 36,53,57,58,59 --ms 4096,8192 --json $OUT/cutlass_sk.json
cp $OUT/*.json $OUT/*.md $OUT/*.png $OUT/*.ipynb $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
grep -E "\]" $OUT/bench_paged.txt | cut -c1-200 | tail -24; tail -n 4 $OUT/nb_ch03.txt | cut -c1-200
sed -n '/^timing:/,$p' $OUT/cutlass_sk.txt | cut -c1-220 | head -40
