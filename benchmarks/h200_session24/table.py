"""Prints an rmsnorm_variants.py JSON as a table: a row per implementation, a column per shape (µs)."""
import json
import sys

rows = json.load(open(sys.argv[1]))["rows"]
shapes = sorted({tuple(r["shape"]) for r in rows}, key=lambda s: (s[1], s[0]))
by = {(r["impl"], tuple(r["shape"])): r["us"] for r in rows}
names = list(dict.fromkeys(r["impl"] for r in rows))
width = max(len(n) for n in names)
print(f"{'µs':{width}s}" + "".join(f"{m}x{n}".rjust(12) for m, n in shapes))
for nm in names:
    print(f"{nm:{width}s}" + "".join(f"{by.get((nm, s), float('nan')):12.2f}" for s in shapes))
