#!/usr/bin/env bash
# Eighth H200 session, call 1: the L2 flush check, chapter 01's fused few-rows sweep, chapter 03's G <= 4 CUDA build.
set -uo pipefail
export PYTHONUNBUFFERED=1 KL_CACHE_DIR=$PWD/.kl_cache
mkdir -p .kl_cache/r1
R=.kl_cache/r1
trap 'cp $R/* $OUT/ 2>/dev/null' EXIT
step() { local name=$1 limit=$2; shift 2; local t0=$SECONDS
  timeout "$limit" "$@" > "$R/$name.txt" 2>&1; echo "== $name: exit $? in $((SECONDS - t0)) s"; }
step l2_flush 200 python3 benchmarks/l2_flush_check.py --json $R/l2_flush.json
step pd_g4 240 python3 benchmarks/paged_decode_variants.py --only "at most 4" --json $R/pd_g4.json
step rms_small_fused 150 python3 benchmarks/rmsnorm_variants.py --small --fused --json $R/rms_small_fused.json
cat $R/l2_flush.txt; tail -22 $R/pd_g4.txt; tail -40 $R/rms_small_fused.txt
