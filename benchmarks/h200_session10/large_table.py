"""Per shape, each candidate of `fp8_gemm_variants.py --large` against torch._scaled_mm of the same run."""
import collections
import json
import sys

rows = json.load(open(sys.argv[1]))["rows"]
by = collections.defaultdict(dict)
for r in rows:
    by[tuple(r["shape"])][r["impl"]] = r
for shape, impls in by.items():
    lib = impls["torch._scaled_mm"]["time_us"]
    print(" x ".join(map(str, shape)))
    for name, r in impls.items():
        cell = (f"{r['time_us']:8.1f} us  {lib / r['time_us']:.2f}x  err {r['rel_l2']:.1e}" if "time_us" in r
                else r.get("error", "")[:120])
        print(f"   {name:48s} {cell}")
