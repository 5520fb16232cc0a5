#!/usr/bin/env bash
# Ninth H200 session, call 1: how torch's loader translates each check kind (the probe), then the
# CUTLASS rung with its new pick (configurations 10 and 15 for M > 64): checked, then benched.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-cache-dir --target /tmp/site .whl/nvidia_cutlass*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 KL_CACHE_DIR=$PWD/.kl_cache
R=.kl_cache/r1; mkdir -p $R
trap 'tar czf $OUT/r1.tgz -C .kl_cache r1' EXIT
step() { local name=$1 limit=$2; shift 2; local t0=$SECONDS
  timeout "$limit" "$@" > "$R/$name.txt" 2>&1; echo "== $name: exit $? in $((SECONDS - t0)) s"; }
step probe 120 python3 benchmarks/raw_op_errors.py --probe-only &
step check_fp8_gemm_cuda 300 python3 -m grading check fp8_gemm --rung cuda --solutions --seed 9 --json $R/check_fp8_gemm_cuda.json
wait
step fp8_gemm_bench 300 python3 -m grading bench fp8_gemm --rungs triton cuda --json $R/fp8_gemm_bench.json --plot $R/fp8_gemm_roofline_H200.png
cat $R/probe.txt; tail -25 $R/check_fp8_gemm_cuda.txt; grep "^|" $R/fp8_gemm_bench.md | cut -c1-220 | tail -45
