#!/usr/bin/env bash
# Eighth H200 session, call 2: the three L2 flushes, then benches timed with the read flush.
set -uo pipefail
export PYTHONUNBUFFERED=1 KL_CACHE_DIR=$PWD/.kl_cache
R=.kl_cache/r2; mkdir -p $R
trap 'cp $R/* $OUT/ 2>/dev/null' EXIT
step() { local name=$1 limit=$2; shift 2; local t0=$SECONDS
  timeout "$limit" "$@" > "$R/$name.txt" 2>&1; echo "== $name: exit $? in $((SECONDS - t0)) s"; }
step l2_flush 120 python3 benchmarks/l2_flush_check.py --json $R/l2_flush.json
for k in paged_decode silu_mul fp8_quantize; do
  step ${k}_bench 200 python3 -m grading bench $k --json $R/${k}_bench.json --plot $R/${k}_roofline_H200.png
done
cat $R/l2_flush.txt; for k in paged_decode silu_mul; do grep "^|" $R/${k}_bench.md | cut -c1-400; done
