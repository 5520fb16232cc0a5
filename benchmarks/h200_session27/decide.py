"""Call 2's decision: does 59 (kernel 4's tile under stream-K's heuristic) beat 36 where the new
pick rule gives it the shape (M >= 2048, K >= 8192, under 8 waves of 128x192 tiles)? Reads the
JSON of `fp8_gemm_cutlass_check.py --configs 36,53,58,59`; exits 0 to keep the rule (59 at least
2% faster in geometric mean, and nowhere more than 2% slower), 1 to put the file back as it was."""
import json
import math
import sys

SMS = 132
rows = json.load(open(sys.argv[1]))["timings"]
us = {(r["m"], r["n"], r["k"], r["config"]): r["us"] for r in rows
      if r.get("scales") == "tensor" and "us" in r and r["provider"] == "cutlass"}
cublas = {(r["m"], r["n"], r["k"]): r["us"] for r in rows
          if r.get("scales") == "tensor" and "us" in r and r["provider"] == "scaled_mm"}
ratios = []
print(f"{'M x N x K':>20} {'_scaled_mm':>10} {'36':>8} {'53':>8} {'58':>8} {'59':>8}   36/59")
for (m, n, k) in sorted(cublas):
    waves = math.ceil(math.ceil(m / 128) * math.ceil(n / 192) / SMS)
    if not (m >= 2048 and k >= 8192 and waves < 8):
        continue
    t = [us.get((m, n, k, c)) for c in (36, 53, 58, 59)]
    if t[0] and t[3]:
        ratios.append(t[0] / t[3])
    cells = " ".join(f"{x:8.1f}" if x else "     n/a" for x in t)
    print(f"{m:>6} x {n:>5} x {k:<5} {cublas[(m, n, k)]:10.1f} {cells}   {ratios[-1] if ratios else 0:.3f}")
if not ratios:
    sys.exit("no shape of the rule was timed")
gmean = math.exp(sum(map(math.log, ratios)) / len(ratios))
keep = gmean >= 1.02 and min(ratios) >= 0.98
print(f"36 time / 59 time: geometric mean {gmean:.3f}, worst {min(ratios):.3f} -> "
      f"{'keep 59' if keep else 'put 36 back'}")
sys.exit(0 if keep else 1)
