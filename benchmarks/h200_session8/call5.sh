#!/usr/bin/env bash
# Eighth H200 session, call 5: the CUDA decode rung with tensor cores from G = 4: checked, benched,
# chapter 03 executed on its bench; then chapter 02's CUTLASS configuration sweep in what is left.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-cache-dir --upgrade --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 KL_CACHE_DIR=$PWD/.kl_cache
R=.kl_cache/r5; mkdir -p $R
trap 'tar czf $OUT/r5.tgz -C .kl_cache r5' EXIT
step() { local name=$1 limit=$2; shift 2; local t0=$SECONDS
  timeout "$limit" "$@" > "$R/$name.txt" 2>&1; local rc=$?; echo "== $name: exit $rc in $((SECONDS - t0)) s (at $SECONDS s)"; return $rc; }
step check_cuda 150 python3 -m grading check paged_decode --rung cuda --solutions --seed 2029 --json $R/check_paged_decode_cuda.json
ok=$?; grep -E "cases pass|gold|FAIL|rror" $R/check_cuda.txt | head -5
[ $ok -eq 0 ] || exit 1
step paged_decode_bench 160 python3 -m grading bench paged_decode --json $R/paged_decode_bench.json --plot $R/paged_decode_roofline_H200.png
grep "^|" $R/paged_decode_bench.md | cut -c1-260
export KL_BENCH_FROM=$PWD/$R; step nb_ch03 180 python3 benchmarks/execute_notebook.py chapters/03_paged_decode/03_paged_decode.ipynb $R/03_paged_decode.ipynb
tail -4 $R/nb_ch03.txt
left=$((585 - SECONDS))
[ $left -gt 60 ] && step cutlass_sweep $left python3 benchmarks/fp8_gemm_cutlass_check.py --json $R/cutlass.json
tail -40 $R/cutlass_sweep.txt 2>/dev/null
