#!/usr/bin/env bash
# Thirtieth H200 session, call 4 (fresh machine): is kernel 4's fixed cost per output tile its
# epilogue? Sweep build 15 (new): 53 built again (77), with 4 stages (78, the control for the next
# two), with 128x64 epilogue pieces (79) and with the whole 128x192 tile stored at once (80), where
# 53 stores six 128x32 pieces. Built by the power script's first load, then each beside
# torch._scaled_mm in the steady state, 1.5 s a run, two rounds.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call4; mkdir -p $OUT
step epilogue 330 python3 benchmarks/fp8_gemm_power.py --no-triton --no-pick --build 15 --configs 77,78,79,80 --seconds 1.5 --shapes 8192x14336x4096,8192x8192x8192 --json $OUT/epilogue.json
cp $OUT/* $BACK/ 2>/dev/null
grep -E "difference|compil" $OUT/epilogue.txt; sed -n '/^steady state/,$p' $OUT/epilogue.txt; tail -3 $OUT/epilogue.txt
