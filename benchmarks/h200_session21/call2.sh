#!/usr/bin/env bash
# Twenty-first H200 session, call 2. (1) Triton at M > 128, promoting every 2048 of K (the pick
# since call 1) beside every 1024 (base_promote1024.patch undoes the change) at M = 512 and the
# prefill shapes call 1 did not time. (2) Triton's decode picks at M = 64 and 128 beside the same
# configurations promoting every K step, every 512 and every 2048 of K. (3) CUTLASS: 51-53 (30,
# the large-M pick, promoting every 512, 1024, 2048 of K) beside the shipped picks and 17-20 at
# M = 512, 4096 and 8192.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT /tmp/base
cp solutions/fp8_gemm.py /tmp/base/ && patch -s -d /tmp/base < $C/base_promote1024.patch
step build 300 python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0 --build-only &
step triton_prefill 200 python3 benchmarks/fp8_gemm_variants.py --pdl --baseline /tmp/base/fp8_gemm.py \
  --shapes 512x4096x4096,512x28672x8192,512x8192x28672,4096x14336x4096,4096x4096x14336,4096x28672x8192,8192x4096x14336,8192x14336x4096 \
  --json $OUT/triton_prefill.json
step triton_promote 200 python3 benchmarks/fp8_gemm_variants.py --promote \
  --shapes 64x4096x4096,64x4096x14336,128x4096x4096,128x14336x4096,128x4096x14336,128x8192x8192,128x28672x8192,128x8192x28672 \
  --json $OUT/triton_promote.json
wait
step cutlass_large $((570 - SECONDS)) python3 benchmarks/fp8_gemm_cutlass_check.py --builds 0 --ms 512,4096,8192 --json $OUT/cutlass_large.json
cp $OUT/*.json $BACK/ 2>/dev/null
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt)
tail -n 1 $OUT/build.txt
grep -E "^\|" $OUT/triton_prefill.txt $OUT/triton_promote.txt | cut -c1-230
grep -E "^ *[0-9]+x[0-9]+ +[0-9]+ \||M= *[0-9]+ |FAIL|fail" $OUT/cutlass_large.txt | cut -c1-250 | tail -30
