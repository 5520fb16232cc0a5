#!/usr/bin/env bash
# Eleventh H200 session, call 2: Nsight Compute on the rmsnorm kernels at decode sizes (is the
# CUDA rung's extra time in its kernel, and where do its warps wait?); fp8_gemm benched with the
# Triton rung's promotion every 1024 of K at M = 64 and 128; chapter 02 executed on that bench.
set -uo pipefail
python3 -m pip install -q --no-index --no-deps --no-compile --target /tmp/site .whl/*.whl >/dev/null 2>&1
export PYTHONPATH=/tmp/site
source benchmarks/h200_session10/lib.sh
(C=benchmarks/h200_session10; cand d)
NCU=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | head -1)
echo "ncu: ${NCU:-none}"
if [ -n "$NCU" ]; then
  for f in "" --fused; do
    step ncu_probe${f/--/_} 150 "$NCU" --cache-control none --clock-control none -k 'regex:rmsnorm|triton_(per|red)' \
      --section SpeedOfLight --section WarpStateStats --section InstructionStats --section LaunchStats \
      python3 $C/ncu_probe.py $f --cuda-from benchmarks/h200_session10/cand_d
  done
fi
step fp8_gemm_bench 420 python3 -m grading bench fp8_gemm --rungs triton cuda --json $OUT/fp8_gemm_bench.json --plot $OUT/fp8_gemm_roofline_H200.png
cp $OUT/fp8_gemm_bench.json $OUT/fp8_gemm_bench.md benchmarks/ 2>/dev/null
cp benchmarks/fp8_quantize_bench.json $OUT/
KL_BENCH_FROM=$OUT step nb_ch02 $((590 - SECONDS)) python3 benchmarks/execute_notebook.py chapters/02_fp8_gemm/02_fp8_gemm.ipynb $OUT/02_fp8_gemm.ipynb
rm -f $OUT/fp8_quantize_bench.json
grep -E "^  [a-z_<]|Duration|Elapsed Cycles|Executed Instructions  |Warp Cycles Per Issued|No Instruction|==PROF==|Error|ERR" $OUT/ncu_probe*.txt | head -80
python3 benchmarks/fp8_gemm_variants.py --summary $OUT | head -40; tail -4 $OUT/nb_ch02.txt
