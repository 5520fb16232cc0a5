#!/usr/bin/env bash
# Thirty-third H200 session, call 1 (fresh machine): the shipped build with the split-K decode
# kernels (86-91: 41's, 44's and 43's tiles with K cut into 2 or 4 batches, fp32 partials summed by
# sum_partials) and the dispatch that picks 86-88 at M = 17-128 where the decode picks' tiles are
# no more than the SMs and the weight is 48 MiB or more; the grader's CUDA-rung check; then
# fp8_gemm_cutlass_check.py: every configuration against float64 (the split ones again at
# K = 4608, where they split), and the decode configurations beside torch._scaled_mm at M = 1, 16,
# 64 and 128 for the six Llama weights. Call 2 was to be the bench of record: the split kernels lost at every shape, see README.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT
step build 420 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0 --build-only
step check_cuda 120 python3 -m grading check fp8_gemm --rung cuda --solutions --no-speed --seed 2035 --json $OUT/check_cuda.json
step split 240 python3 benchmarks/fp8_gemm_cutlass_check.py --shipped-build --configs 41,43,44,48,64,65,86,87,88,89,90,91 --ms 1,16,64,128 --json $OUT/split.json
cp $OUT/* $BACK/ 2>/dev/null
tail -1 $OUT/build.txt; grep -E "cases pass|FAIL|rror" $OUT/check_cuda.txt | head -5
grep -E "fails|FAIL|failure|rror" $OUT/split.txt | head -8
grep -E "^ *[0-9]+x[0-9]+ +[0-9]+ \|" $OUT/split.txt; sed -n '/^summary/,$p' $OUT/split.txt | head -8
