#!/usr/bin/env bash
# Eighth H200 session, call 4: the tensor-core split kernel of the CUDA decode rung: checked, swept, benched.
set -uo pipefail
export PYTHONUNBUFFERED=1 KL_CACHE_DIR=$PWD/.kl_cache
R=.kl_cache/r4; mkdir -p $R
trap 'tar czf $OUT/r4.tgz -C .kl_cache r4' EXIT
step() { local name=$1 limit=$2; shift 2; local t0=$SECONDS
  timeout "$limit" "$@" > "$R/$name.txt" 2>&1; local rc=$?; echo "== $name: exit $rc in $((SECONDS - t0)) s"; return $rc; }
step check_cuda 200 python3 -m grading check paged_decode --rung cuda --solutions --seed 2028 --json $R/check_paged_decode_cuda.json
ok=$?
tail -15 $R/check_cuda.txt
step pd_variants 240 python3 benchmarks/paged_decode_variants.py --only "CUDA cores" "tensor cores" --json $R/pd_variants.json
tail -22 $R/pd_variants.txt; grep -E "cuda" $R/pd_variants.txt | head -30
if [ $ok -eq 0 ]; then
  step paged_decode_bench 200 python3 -m grading bench paged_decode --json $R/paged_decode_bench.json --plot $R/paged_decode_roofline_H200.png
  grep "^|" $R/paged_decode_bench.md | cut -c1-300
fi
