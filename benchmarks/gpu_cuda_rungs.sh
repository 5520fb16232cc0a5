#!/usr/bin/env bash
# The CUDA and CUTLASS rungs of chapters 02 and 03 on one Hopper GPU, in one call of under ten
# minutes: builds first (all in parallel: the two CUTLASS libraries take minutes), then the CUTLASS
# configuration check and timings, a sampled correctness check of each CUDA rung through the full
# per-case protocol, and what time is left on `bench paged_decode`. Results under $OUT.
# Usage: bash benchmarks/gpu_cuda_rungs.sh [SECONDS]   (run from the repository root; default 570)
set -uo pipefail
OUT=${OUT:-gpu-out}
LIMIT=${1:-570}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 KL_CACHE_DIR=${KL_CACHE_DIR:-/tmp/kl-cache}
py=python3
t0=$(date +%s)
left() { echo $(( LIMIT - ($(date +%s) - t0) )); }

# The small extensions build in the background while the CUTLASS check compiles its two libraries.
$py - > "$OUT/prebuild.txt" 2>&1 <<'EOF' &
import sys; sys.path.insert(0, ".")
from solutions import fp8_gemm, paged_decode
fp8_gemm._quant_ops(); paged_decode._cuda_ops()
print("fp8_quant and paged_decode built")
EOF
timeout $(( $(left) - 200 )) $py benchmarks/fp8_gemm_cutlass_check.py --json "$OUT/fp8_gemm_cutlass_check.json" \
    > "$OUT/fp8_gemm_cutlass_check.txt" 2>&1
echo "cutlass check: exit $? after $(( $(date +%s) - t0 )) s"
wait
tail -2 "$OUT/prebuild.txt"
timeout $(( $(left) - 20 )) $py benchmarks/gpu_smoke.py --rungs cuda --budget $(( $(left) - 60 )) \
    --json "$OUT/gpu_smoke_cuda.json" fp8_quantize paged_decode fp8_gemm 2>&1 | tee "$OUT/gpu_smoke_cuda.txt"
if [ "$(left)" -gt 150 ]; then
  timeout $(( $(left) - 10 )) $py -m grading bench paged_decode --json "$OUT/paged_decode_bench.json" \
      --plot "$OUT/paged_decode_roofline.png" > "$OUT/paged_decode_bench.txt" 2>&1
  echo "bench paged_decode: exit $?"
fi
echo "== CUTLASS check (tail) =="
tail -45 "$OUT/fp8_gemm_cutlass_check.txt"
echo "== bench paged_decode (tail) =="
tail -30 "$OUT/paged_decode_bench.txt" 2>/dev/null
