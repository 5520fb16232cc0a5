#!/usr/bin/env bash
# Twenty-second H200 session, call 2: call 1 again, with the mainloop of 54-56 mended. Call 1
# hung in the float64 check: 55 and 56 held a whole group's stages (4 or 16 k-tiles, twice over)
# until the group was added in, more stages than the pipeline has, so the producer waited for a
# free one for ever. Now each k-tile's stage goes back as soon as its wgmmas are done.
# CUTLASS at M > 128: sweep build 12's 54-56 (36's 128x128 tile with each promotion temporary
# carrying 2, 4 or 16 k-tiles before it is added in) beside the shipped large-M picks 29, 36 and
# 53, at M = 512, 4096 and 8192 on the six Llama weights.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT
step build 400 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,12 --build-only
step cutlass_large $((580 - SECONDS)) python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0,12 \
  --configs 29,36,53,54,55,56 --ms 512,4096,8192 --json $OUT/cutlass_large.json
cp $OUT/*.json $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 2 $OUT/build.txt
grep -E "^ *[0-9]+x[0-9]+ +[0-9]+ \||M= *[0-9]+ |FAIL|fail" $OUT/cutlass_large.txt | cut -c1-250 | tail -30
