#!/usr/bin/env bash
# Seventeenth H200 session, call 4 (the last of the session's device time): chapter 01's rungs at
# 4096 rows beside a copy of the same bytes (copy_same_bytes.py --rmsnorm); the Triton GEMM with
# its decode picks' dependent launch checked by the grader and benched beside torch._scaled_mm.
set -uo pipefail
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call4; mkdir -p $OUT
step copy_same 70 python3 benchmarks/copy_same_bytes.py --rmsnorm --json $OUT/copy_same_bytes.json
step check_gemm_triton 100 python3 -m grading check fp8_gemm --rung triton --solutions --no-speed --seed 2118
step bench_gemm_triton $((255 - SECONDS)) python3 -m grading bench fp8_gemm --rungs triton --json $OUT/fp8_gemm_bench_triton.json
cp $OUT/*.json $OUT/*.md $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
grep -vE "^\s*$" $OUT/copy_same.txt | cut -c1-120 | tail -14
grep -hE "cases pass|FAIL" $OUT/check_gemm_triton.txt | cut -c1-160 | head -5
cut -c1-170 $OUT/fp8_gemm_bench_triton.md 2>/dev/null | head -50
