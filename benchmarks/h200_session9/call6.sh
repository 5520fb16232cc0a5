#!/usr/bin/env bash
# Ninth H200 session, call 6: call 5's plan (2 packs per thread up to 4096 rows) lost at 4096 rows,
# most at 4096 x 8192 (0.74x a copy, from 0.90x). Is it the weight held across the reduction? A
# build with 2 packs up to 4096 rows and the weight always read after the reduction (what the
# Triton rung does), beside the reference, the Triton and compiled rungs and a copy, same run.
set -uo pipefail
export PYTHONUNBUFFERED=1 KL_CACHE_DIR=$PWD/.kl_cache
V=.kl_cache/late; mkdir -p $V; cp csrc/rmsnorm.cu csrc/rmsnorm_launch.cuh $V/
sed -i 's/constexpr int64_t kFewRows = 1024;/constexpr int64_t kFewRows = 4096;/' $V/rmsnorm_launch.cuh
sed -i 's/    constexpr bool kWeightEarly = PACKS == 2;/    constexpr bool kWeightEarly = false;/' $V/rmsnorm.cu
grep -c "kFewRows = 4096" $V/rmsnorm_launch.cuh; grep -c "kWeightEarly = false" $V/rmsnorm.cu
timeout 180 python3 benchmarks/copy_same_bytes.py --rmsnorm --cuda-from $V --json $OUT/copy_same_bytes.json > $OUT/copy_same_bytes.txt 2>&1
echo "== exit $?"; cat $OUT/copy_same_bytes.txt
