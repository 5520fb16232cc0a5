#!/usr/bin/env bash
# One call of under ten minutes: `bench silu_mul` (the reference CUDA rung's flat path without
# streaming hints), the GPU integrity tests not yet run on this GPU, then `bench fused_add_rmsnorm`
# with the time left. Results under $OUT.   Usage: bash benchmarks/gpu_final_ch00_ch01.sh [SECONDS]
set -uo pipefail
OUT=${OUT:-gpu-out}
LIMIT=${1:-585}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 KL_CACHE_DIR=${KL_CACHE_DIR:-/tmp/kl-cache}
py=python3
t0=$(date +%s)
left() { echo $(( LIMIT - ($(date +%s) - t0) )); }
$py -c "import sys; sys.path.insert(0, '.'); from solutions import rmsnorm; rmsnorm._cuda_ops()" \
    > "$OUT/prebuild.txt" 2>&1 &
timeout 250 $py -m grading bench silu_mul --json "$OUT/silu_mul_bench.json" --plot "$OUT/silu_mul_roofline.png" \
    > "$OUT/silu_mul_bench.txt" 2>&1
echo "bench silu_mul: exit $? at $(( $(date +%s) - t0 )) s"
wait
timeout 170 $py -m pytest tests/test_gpu_integrity.py tests/test_gpu.py -q -s -p no:cacheprovider \
    -k "rmsnorm or cross_check or spinning or illegal" > "$OUT/gpu_tests.txt" 2>&1
echo "gpu tests: exit $? at $(( $(date +%s) - t0 )) s"; grep -E "passed|failed" "$OUT/gpu_tests.txt" | tail -2
timeout $(( $(left) )) $py -m grading bench fused_add_rmsnorm --json "$OUT/fused_add_rmsnorm_bench.json" \
    --plot "$OUT/fused_add_rmsnorm_roofline.png" > "$OUT/fused_add_rmsnorm_bench.txt" 2>&1
echo "bench fused_add_rmsnorm: exit $? at $(( $(date +%s) - t0 )) s"
cat "$OUT/silu_mul_bench.md" 2>/dev/null | tail -8
grep -E "µs|PASS|FAIL|passed|failed" "$OUT/gpu_tests.txt" | tail -12
