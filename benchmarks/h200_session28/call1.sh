#!/usr/bin/env bash
# Twenty-eighth H200 session, call 1: sweep build 13 (60-62, decode under stream-K with the
# two-temporaries mainloop, swap-AB 128-row tiles) timed against the decode picks 41, 43, 44 and 48
# and torch._scaled_mm at M = 1, 16, 64 and 128, with three-times-longer timings. The file as
# shipped is built as well (build 0), and with it `bench fp8_gemm --rungs cuda --rounds 2`: the
# first run of the bench's rounds on a GPU, with the dispatch as committed.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT
step decode_sk 330 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,13 --configs 41,43,44,48,60,61,62 --ms 1,16,64,128 --target-s 0.3 --json $OUT/decode_sk.json
cp $OUT/decode_sk.json $OUT/decode_sk.txt $BACK/ 2>/dev/null
step bench_r2 250 python3 -m grading bench fp8_gemm --rungs cuda --rounds 2 --json $OUT/fp8_gemm_bench_r2.json
cp $OUT/*.json $OUT/*.md $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
sed -n '/^timing:/,$p' $OUT/decode_sk.txt | cut -c1-220 | head -60
grep -E "timed |round" $OUT/bench_r2.txt | head; tail -n 3 $OUT/bench_r2.txt | cut -c1-200
