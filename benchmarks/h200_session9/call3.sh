#!/usr/bin/env bash
# Ninth H200 session, call 3: fused_add_rmsnorm's sweep under the read flush; what a plain copy
# reaches at the bench cases' sizes; the Triton fp8_gemm decode sweep with the time left.
set -uo pipefail
export PYTHONUNBUFFERED=1 KL_CACHE_DIR=$PWD/.kl_cache
R=.kl_cache/r3; mkdir -p $R
trap 'tar czf $OUT/r3.tgz -C .kl_cache r3' EXIT
step() { local name=$1 limit=$2; shift 2; local t0=$SECONDS
  timeout "$limit" "$@" > "$R/$name.txt" 2>&1; echo "== $name: exit $? in $((SECONDS - t0)) s"; }
step copy_same_bytes 60 python3 benchmarks/copy_same_bytes.py --json $R/copy_same_bytes.json
step fused_add_rmsnorm_bench 390 python3 -m grading bench fused_add_rmsnorm --json $R/fused_add_rmsnorm_bench.json --plot $R/fused_add_rmsnorm_roofline_H200.png
step fp8_gemm_variants_small $((580 - SECONDS)) python3 benchmarks/fp8_gemm_variants.py --small --json $R/fp8_gemm_variants_small.json
cat $R/copy_same_bytes.txt; grep "^|" $R/fused_add_rmsnorm_bench.md | cut -c1-300; tail -30 $R/fp8_gemm_variants_small.txt
