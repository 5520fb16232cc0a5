#!/usr/bin/env bash
# Ninth H200 session, call 5: the CUDA rmsnorm launcher with 2 packs per thread up to 4096 rows
# (kFewRows 1024 -> 4096): compiled, Triton and CUDA rungs at 4096 rows beside a copy of the same
# bytes, then the CUDA rung's grader check.
set -uo pipefail
export PYTHONUNBUFFERED=1 KL_CACHE_DIR=$PWD/.kl_cache
step() { local name=$1 limit=$2; shift 2; local t0=$SECONDS
  timeout "$limit" "$@" > "$OUT/$name.txt" 2>&1; echo "== $name: exit $? in $((SECONDS - t0)) s"; }
step copy_same_bytes 200 python3 benchmarks/copy_same_bytes.py --rmsnorm --json $OUT/copy_same_bytes.json
step check_rmsnorm_cuda 120 python3 -m grading check rmsnorm --rung cuda --solutions --seed 9 --json $OUT/check_rmsnorm_cuda.json
cat $OUT/copy_same_bytes.txt; tail -8 $OUT/check_rmsnorm_cuda.txt
