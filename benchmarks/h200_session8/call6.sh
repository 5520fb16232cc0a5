#!/usr/bin/env bash
# Eighth H200 session, call 6: do the compiled ops refuse bad arguments, or crash? (the CUTLASS op crashed in call 5)
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-cache-dir --target /tmp/site .whl/nvidia_cutlass*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 KL_CACHE_DIR=$PWD/.kl_cache
timeout 200 python3 benchmarks/raw_op_errors.py 2>&1 | tee $OUT/raw_op_errors.txt | tail -60
