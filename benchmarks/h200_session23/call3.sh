#!/usr/bin/env bash
# Twenty-third H200 session, call 3: the Triton decode picks where they trail at M <= 64 beside
# configurations whose work units come out nearly even across the SMs, with the stages that fit
# (fp8_gemm_variants.py --balance): at 28672 x 8192 the pick's 224 programs are 1.7 a SM.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call3; mkdir -p $OUT
step triton_balance 400 python3 benchmarks/fp8_gemm_variants.py --balance \
  --shapes 1x28672x8192,16x28672x8192,64x28672x8192,1x4096x14336,64x4096x14336,64x4096x4096 \
  --json $OUT/triton_balance.json
cp $OUT/*.json $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
sed -n '/^| M × N × K/,$p' $OUT/triton_balance.txt
grep -h '"impl"' $OUT/triton_balance.txt | python3 -c "
import sys, json
for l in sys.stdin:
    r = json.loads(l); print(r['shape'], r['impl'][:55], round(r.get('time_us', 0), 2), r.get('error', '')[:80])"
