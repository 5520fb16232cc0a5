#!/usr/bin/env bash
# Thirty-third H200 session, call 2 (fresh machine): the shipped build with 92 (41's 64x64 tile on
# the one-consumer kernel that is not persistent, 2 CTAs an SM: 64's design for 17-64 tokens) and
# the dispatch picking it at M = 17-64 where 41's tiles are more than twice the SMs (N = 28672);
# the split-K kernels 86-91 moved to sweep build 16, not built here. The grader's CUDA-rung check;
# fp8_gemm_cutlass_check.py: every configuration against float64, then 92 beside 41, 44, 48 and
# torch._scaled_mm at M = 64 and 128 for the six Llama weights, 0.3 s a timing. Call 3 (the bench
# of record) follows on this machine if 92 wins where it is picked.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT
step build 420 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0 --build-only
step check_cuda 120 python3 -m grading check fp8_gemm --rung cuda --solutions --no-speed --seed 2036 --json $OUT/check_cuda.json
step decode 240 python3 benchmarks/fp8_gemm_cutlass_check.py --shipped-build --configs 41,44,48,92 --ms 64,128 --target-s 0.3 --json $OUT/decode.json
cp $OUT/* $BACK/ 2>/dev/null
tail -1 $OUT/build.txt; grep -E "cases pass|FAIL|rror" $OUT/check_cuda.txt | head -5
grep -E "fails|FAIL|failure|rror" $OUT/decode.txt | head -8
grep -E "^ *[0-9]+x[0-9]+ +[0-9]+ \|" $OUT/decode.txt; sed -n '/^summary/,$p' $OUT/decode.txt | head -6
