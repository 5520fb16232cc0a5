#!/usr/bin/env bash
# Thirty-second H200 session, call 4 (fresh machine): 59 (53's tile, stream-K splitting a last wave
# under half full) picked at K >= 8192, M >= 2048 at any number of waves, no longer under 8 only:
# of the bench's shapes 4096 x 8192 x 8192, 4096 x 8192 x 28672 and 4096 x 28672 x 8192, where 53
# ran 0.967-0.992x torch._scaled_mm in call 3's bench. The library built, then the steady state
# (fp8_gemm_power.py, 1.0 s a run, two rounds) at those three shapes: the pick (59), 53 and 58
# beside torch._scaled_mm. The bench with this rule was to follow; the steady state showed 59 level
# with 53, so the rule was withdrawn (commit after 395802c) and no bench ran.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call4; mkdir -p $OUT
step build 330 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0 --build-only
step steady 150 python3 benchmarks/fp8_gemm_power.py --shapes 4096x8192x8192,4096x28672x8192,4096x8192x28672 --seconds 1.0 --configs 53,58 --no-triton --json $OUT/steady.json
cp $OUT/* $BACK/ 2>/dev/null
tail -1 $OUT/build.txt; grep -E "difference" $OUT/steady.txt | grep -v "e-0[345]" | head -3; sed -n '/^steady state/,$p' $OUT/steady.txt
