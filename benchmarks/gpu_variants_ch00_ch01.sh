#!/usr/bin/env bash
# Chapters 00 and 01 on one GPU in one call of a few minutes: the silu_mul and rmsnorm variant
# sweeps (each beside the reference rungs, static torch.compile and, for silu_mul, a copy of the
# same bytes), then the GPU integrity tests. The CUDA extensions build in parallel first.
# Results under $OUT.   Usage: bash benchmarks/gpu_variants_ch00_ch01.sh   (from the repository root)
set -uo pipefail
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 KL_CACHE_DIR=${KL_CACHE_DIR:-/tmp/kl-cache}
py=python3
t0=$(date +%s)
$py -c "import sys; sys.path.insert(0, '.'); from solutions import rmsnorm; rmsnorm._cuda_ops(); from solutions import silu_mul; silu_mul._cuda_ops()" \
    > "$OUT/prebuild.txt" 2>&1 &
$py benchmarks/silu_mul_variants.py --only "copy,ref,compile static,cuda v9" \
    --json "$OUT/silu_mul_variants_s3.json" > "$OUT/silu_mul_variants_s3.txt" 2>&1
echo "silu variants: exit $? at $(( $(date +%s) - t0 )) s"
wait
$py benchmarks/rmsnorm_variants.py --json "$OUT/rmsnorm_variants.json" > "$OUT/rmsnorm_variants.txt" 2>&1
echo "rmsnorm variants: exit $? at $(( $(date +%s) - t0 )) s"
$py benchmarks/rmsnorm_variants.py --fused --json "$OUT/rmsnorm_variants_fused.json" \
    > "$OUT/rmsnorm_variants_fused.txt" 2>&1
echo "fused variants: exit $? at $(( $(date +%s) - t0 )) s"
timeout 200 $py -m pytest tests/test_gpu_integrity.py tests/test_gpu.py -q -s -p no:cacheprovider \
    -k "honest or cross_check or spinning or illegal or side_stream" > "$OUT/gpu_tests.txt" 2>&1
echo "gpu tests: exit $? at $(( $(date +%s) - t0 )) s"; tail -3 "$OUT/gpu_tests.txt"
for f in silu_mul_variants_s3 rmsnorm_variants rmsnorm_variants_fused; do echo "== $f"; cat "$OUT/$f.txt" | grep -v Warning; done
