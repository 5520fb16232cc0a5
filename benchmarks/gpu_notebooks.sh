#!/usr/bin/env bash
# The chapter notebooks on one GPU, executed with their outputs saved (the committed form), plus the
# CUDA-rung checks that belong with them. Results under $OUT (or ./gpu-out), a short summary last.
# Usage: bash benchmarks/gpu_notebooks.sh STAGE...   (run from the repository root)
#   ch00 .. ch03              execute that chapter's notebook (sweeps from KL_BENCH_FROM, default benchmarks/)
#   check-cuda                check rmsnorm, fused_add_rmsnorm and fp8_quantize, CUDA rung, reference solutions
#   build-cutlass             build csrc/fp8_gemm_cutlass.cu into $KL_CACHE_DIR (one nvcc process, minutes)
# A stage has a time limit of its own, so one that runs long still leaves the others their results.
set -uo pipefail
OUT=${OUT:-gpu-out}
mkdir -p "$OUT"
export PYTHONUNBUFFERED=1 KL_CACHE_DIR=${KL_CACHE_DIR:-/tmp/kl-cache} KL_BENCH_FROM=${KL_BENCH_FROM:-$PWD/benchmarks}
py=python3
notebook() {  # chapter folder, limit in seconds
  local nb; nb=$(ls chapters/"$1"/*.ipynb)
  timeout "$2" $py benchmarks/execute_notebook.py "$nb" "$OUT/$(basename "$nb")" > "$OUT/nb_$1.txt" 2>&1
  echo "notebook $1: exit $?"; tail -6 "$OUT/nb_$1.txt"
}
for stage in "$@"; do
  case $stage in
    ch[0-9][0-9])  # the chapter folder whose name starts with the two digits
      notebook "$(basename chapters/"${stage#ch}"_*)" "${NB_LIMIT:-420}" ;;
    build-cutlass)
      timeout 540 $py -c "from solutions import fp8_gemm as s; s._gemm_ops(); print('CUTLASS library built')" \
        > "$OUT/build_cutlass.txt" 2>&1; echo "build-cutlass: exit $?"; tail -3 "$OUT/build_cutlass.txt" ;;
    check-cuda)
      for k in rmsnorm fused_add_rmsnorm fp8_quantize; do
        timeout 150 $py -m grading check "$k" --rung cuda --solutions --seed 2027 --json "$OUT/check_${k}_cuda.json" \
          > "$OUT/check_${k}_cuda.txt" 2>&1
        echo "check $k cuda: exit $?"; grep -E "cases pass|tier|FAIL|ERROR|rror" "$OUT/check_${k}_cuda.txt" | tail -8
      done ;;
    *) echo "unknown stage $stage"; exit 2 ;;
  esac
done
