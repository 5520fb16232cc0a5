#!/usr/bin/env bash
# Thirty-fourth H200 session, call 1 (fresh machine): the shipped build with 42 (41 with 32-token
# tiles, from sweep build 7) and 96 (256-row swap-AB cooperative tiles, from sweep build 17), and
# the dispatch picking, at 17-64 tokens, 96 where its 256-row tiles make one wave over 3/4 of the
# SMs or more (N = 28672), else 42 at 17-32 tokens, else 92 where 41's tiles are more than the SMs
# (N = 14336 too), else 41. The grader's CUDA-rung check; fp8_gemm_cutlass_check.py: every
# configuration against float64, then the pick beside 41, 42, 44, 48, 92, 96 and torch._scaled_mm
# at M = 17-64 and 96 for the six Llama weights, 0.2 s a timing. Call 2 (the bench of record)
# follows on this machine if the picks are the fastest where they are picked.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT
step build 420 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0 --build-only
step check_cuda 120 python3 -m grading check fp8_gemm --rung cuda --solutions --no-speed --seed 2037 --json $OUT/check_cuda.json
step mid 300 python3 benchmarks/fp8_gemm_cutlass_check.py --shipped-build --configs 41,42,44,48,92,96 --ms 17,24,32,40,48,56,64,96 --target-s 0.2 --json $OUT/mid.json
cp $OUT/* $BACK/ 2>/dev/null
tail -1 $OUT/build.txt; grep -E "cases pass|FAIL|rror" $OUT/check_cuda.txt | head -5
grep -E "fails|FAIL|failure|rror" $OUT/mid.txt | head -8
grep -E "^ *[0-9]+x[0-9]+ +[0-9]+ \|" $OUT/mid.txt; sed -n '/^summary/,$p' $OUT/mid.txt | head -10
