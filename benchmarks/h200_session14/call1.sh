#!/usr/bin/env bash
# Fourteenth H200 session, call 1: which kernel the compiled rung (the bench's baseline) gets at
# decode sizes, and whether that depends on the row count of its first call (M > 1) on a fresh
# Inductor cache; then the Triton rung's cache hints at decode sizes, beside the reference rungs.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call1; mkdir -p $OUT
for i in 1 2; do
  step probe_fused_16_$i 60 python3 benchmarks/compiled_autotune_probe.py --fused --first 1,16 --json $OUT/probe_fused_16_$i.json
  step probe_fused_64_$i 60 python3 benchmarks/compiled_autotune_probe.py --fused --first 1,64 --json $OUT/probe_fused_64_$i.json
done
for i in 1; do
  step probe_rms_16_$i 60 python3 benchmarks/compiled_autotune_probe.py --first 1,16 --json $OUT/probe_rms_16_$i.json
  step probe_rms_64_$i 60 python3 benchmarks/compiled_autotune_probe.py --first 1,64 --json $OUT/probe_rms_64_$i.json
done
step hints_fused 75 python3 benchmarks/rmsnorm_variants.py --small --fused --only "ref triton,ref cuda,ref compiled,compile static,triton hints" --json $OUT/hints_fused.json
step hints_rms 75 python3 benchmarks/rmsnorm_variants.py --small --only "ref triton,ref cuda,ref compiled,compile static,triton hints" --json $OUT/hints_rms.json
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt *.json)
for f in $OUT/probe_*.txt; do echo "-- $(basename $f)"; grep -h "kept\|64x4096\|256x4096\|16x4096" $f | cut -c1-150; done
grep -h "µs" $OUT/hints_fused.txt $OUT/hints_rms.txt | sed 's/ GB.s.*graph/ g/' | cut -c1-70
