#!/usr/bin/env bash
# Fourteenth H200 session, call 2 (call 1 found the compiled rung's dynamic kernel tuned between
# two candidates, R0_BLOCK = 4096 or 2048 at 16 warps, either one kept; its probe then crashed
# and the sweeps failed on ".cs", which Triton 3.6 refuses on a load). The probe, fixed, in
# fresh processes: the kept configuration and the decode sizes' times. Then Inductor's two
# candidates restated (h stored then read back; two passes) beside the reference rungs, and the
# Triton rung's cache hints.
set -uo pipefail
source benchmarks/h200_session10/lib.sh
BACK=$OUT; OUT=/tmp/call2; mkdir -p $OUT
for i in 1 2 3 4; do
  step probe_fused_$i 60 python3 benchmarks/compiled_autotune_probe.py --fused --first 1,16 --json $OUT/probe_fused_$i.json
done
for i in 1 2; do
  step probe_rms_$i 60 python3 benchmarks/compiled_autotune_probe.py --first 1,16 --json $OUT/probe_rms_$i.json
done
step small_fused 150 python3 benchmarks/rmsnorm_variants.py --small --fused --only "ref triton,ref cuda,ref compiled,compile static,triton hints,h stored, read back: BLOCK_M=1 chunk=2048 warps=16,h stored, read back: BLOCK_M=1 chunk=4096" --json $OUT/small_fused.json
step small_rms 120 python3 benchmarks/rmsnorm_variants.py --small --only "ref triton,ref cuda,ref compiled,compile static,triton hints,triton 2 passes chunk=2048 warps=16,triton 2 passes chunk=4096" --json $OUT/small_rms.json
tar czf $BACK/logs.tgz -C $OUT $(cd $OUT && ls *.txt *.json)
for f in $OUT/probe_*.txt; do echo "-- $(basename $f)"; grep -h "kept\|^compiled" $f | cut -c1-120; done
grep -h "µs" $OUT/small_fused.txt $OUT/small_rms.txt | sed 's/ GB.s.*graph/ g/' | cut -c1-80
