#!/usr/bin/env bash
# Ninth H200 session, call 2: rmsnorm's sweep under the read flush; the paged-decode CUDA rung after
# the block_work refactor; the compiled ops' argument checks after the KL_CHECK change.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-cache-dir --target /tmp/site .whl/nvidia_cutlass*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 KL_CACHE_DIR=$PWD/.kl_cache
R=.kl_cache/r2; mkdir -p $R
trap 'tar czf $OUT/r2.tgz -C .kl_cache r2' EXIT
step() { local name=$1 limit=$2; shift 2; local t0=$SECONDS
  timeout "$limit" "$@" > "$R/$name.txt" 2>&1; echo "== $name: exit $? in $((SECONDS - t0)) s"; }
step rmsnorm_bench 290 python3 -m grading bench rmsnorm --json $R/rmsnorm_bench.json --plot $R/rmsnorm_roofline_H200.png
step check_paged_decode_cuda 90 python3 -m grading check paged_decode --rung cuda --solutions --seed 9 --json $R/check_paged_decode_cuda.json
step raw_op_errors $((585 - SECONDS)) python3 benchmarks/raw_op_errors.py
grep "^|" $R/rmsnorm_bench.md | cut -c1-300; tail -6 $R/check_paged_decode_cuda.txt; grep -v "^    " $R/raw_op_errors.txt
