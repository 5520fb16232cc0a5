"""The numbered Triton fp8_gemm versions and the candidate configurations of `pick_config`, timed on
one GPU in one run (the grader's protocol: L2 flushed, inputs rotated past L2, CUDA graphs under
30 µs), beside torch._scaled_mm. Each is checked against the float64 reference first.

    python benchmarks/fp8_gemm_variants.py [--json OUT.json] [--quick]
    python benchmarks/fp8_gemm_variants.py --summary OUT_DIR   # the chapter's targets, from bench JSONs

The table says, per shape, the fastest candidate and how far the configuration fp8_gemm_triton
picks is from it: rerun it on a new GPU before trusting pick_config there.
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import grading  # noqa: E402,F401  (first: CPU mode before any @triton.jit)
import torch  # noqa: E402

from grading import env  # noqa: E402

# (M, N, K): the weight-bound decode shapes and the compute-bound prefill ones.
SMALL = [(1, 8192, 8192), (16, 28672, 8192), (64, 4096, 14336), (128, 8192, 8192)]
LARGE = [(512, 8192, 8192), (4096, 8192, 8192), (8192, 28672, 8192)]


def candidates(m: int):
    from solutions.fp8_gemm import GemmConfig as C
    if m <= 128:
        bm = 16 if m <= 16 else 32 if m <= 32 else 64
        return [C(4, bm, bn, bk, w, s) for bn, bk, w, s in
                ((64, 256, 4, 4), (64, 128, 4, 6), (128, 128, 4, 4), (128, 256, 8, 3), (32, 256, 4, 6))] + \
               [C(4, bm, 64, 256, 4, 4, split_k=1), C(1, 64, 128, 128, 4, 4), C(3, 64, 128, 128, 4, 4)]
    return [C(1, 128, 128, 128, 8, 4), C(2, 128, 128, 128, 8, 4), C(3, 128, 128, 128, 8, 4),
            C(3, 128, 128, 128, 8, 4, flatten=True), C(3, 128, 128, 128, 8, 5), C(3, 128, 128, 128, 4, 4),
            C(3, 128, 256, 64, 8, 4), C(3, 128, 256, 128, 8, 3, promote=False),
            C(3, 128, 128, 128, 8, 4, promote=False)]


def sweep(shapes, quick: bool) -> list[dict]:
    from grading.check import compare
    from grading.lesson_fp8 import gemm_args
    from grading.specs.fp8_gemm import E4M3, GEMM_TOLERANCES, fp8_gemm_ref
    from grading.timing import rotation_count, time_fn
    from solutions import fp8_gemm as sol
    dev = torch.device("cuda")
    rows = []
    for m, n, k in shapes:
        sets = [(gemm_args(m, n, k), {}) for _ in range(rotation_count(m * k + n * k + 2 * m * n, dev))]
        ref = fp8_gemm_ref(*sets[0][0])
        picked = sol.pick_config(m, n, k)
        fns = {"torch._scaled_mm": sol.fp8_gemm_scaled_mm, f"picked: {picked.describe()}": sol.fp8_gemm_triton}
        for cfg in candidates(m)[: 4 if quick else None]:
            fns[cfg.describe()] = (lambda c: lambda a, b, sa, sb: sol._variant(a, b, sa, sb, torch.bfloat16, c, None))(cfg)
        for name, fn in fns.items():
            row = {"shape": [m, n, k], "impl": name}
            try:
                err = compare(fn(*sets[0][0]), ref, GEMM_TOLERANCES[E4M3])[0]
                t, _, _ = time_fn(fn, sets, target_s=0.1)
                row.update(time_us=t.best_s * 1e6, tflops=2.0 * m * n * k / t.best_s / 1e12,
                           weight_gbps=n * k / t.best_s / 1e9, rel_l2=err)
            except Exception as e:  # noqa: BLE001 - a configuration that does not compile or fit
                row["error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}"
            rows.append(row)
            print(json.dumps(row), flush=True)
        del sets
        torch.cuda.empty_cache()
    return rows


def table(rows: list[dict], copy_gbps: float) -> str:
    lines = ["| M × N × K | torch._scaled_mm | picked | best candidate | picked / best |", "|---|---:|---:|---|---:|"]
    for shape in dict.fromkeys(tuple(r["shape"]) for r in rows):
        rs = [r for r in rows if tuple(r["shape"]) == shape and "time_us" in r]
        lib = next((r for r in rs if r["impl"] == "torch._scaled_mm"), None)
        pick = next((r for r in rs if r["impl"].startswith("picked")), None)
        best = min((r for r in rs if r["impl"] != "torch._scaled_mm" and not r["impl"].startswith("picked")),
                   key=lambda r: r["time_us"], default=None)

        def cell(r):
            if r is None:
                return "-"
            return f"{r['time_us']:,.1f} µs · {r['tflops']:,.0f} TF · w {100 * r['weight_gbps'] / copy_gbps:.0f}%"
        ratio = f"{best['time_us'] / pick['time_us']:.2f}" if best and pick else "-"
        lines.append(f"| {' × '.join(map(str, shape))} | {cell(lib)} | {cell(pick)} | "
                     f"{best['impl'] if best else '-'}: {cell(best)} | {ratio} |")
    lines.append(f"\nTF = TFLOP/s; w = weight bytes per second as % of the copy roof ({copy_gbps:,.0f} GB/s).")
    return "\n".join(lines)


def summary(out_dir: Path) -> str:
    """The chapter's speed targets, read from `bench` results of one run: the Triton and CUTLASS
    rungs against torch._scaled_mm (same case, same run), weight bytes/s at M <= 128, and the
    quantizer's % of the copy roof at M >= 4096."""
    lines = []
    gemm = out_dir / "fp8_gemm_bench.json"
    if gemm.is_file():
        data = json.loads(gemm.read_text())
        bw = data["roofs"]["bandwidth_gbps"]
        lines += ["| case | scaled_mm µs | triton × | cuda × | triton weight % | cuda weight % |",
                  "|---|---:|---:|---:|---:|---:|"]
        for c in data["cases"]:
            p = c["params"]
            lib = c["impls"].get("torch._scaled_mm", {}).get("time_us")

            def ratio(rung):
                t = c["impls"].get(rung, {}).get("time_us")
                return f"{lib / t:.2f}" if t and lib else "-"

            def weight(rung):
                t = c["impls"].get(rung, {}).get("time_us")
                return f"{100 * p['n'] * p['k'] / (t * 1e-6) / 1e9 / bw:.0f}%" if t else "-"
            lines.append(f"| {p['m']}×{p['n']}×{p['k']} {p.get('scales', 'tensor')} | {lib or 0:,.1f} | "
                         f"{ratio('triton')} | {ratio('cuda')} | {weight('triton')} | {weight('cuda')} |")
        lines.append("targets: cuda >= 1.0× and triton >= 0.9× at M >= 4096; both >= 1.0× at M <= 128 and "
                     ">= 70% weight bandwidth for weights >= 50 MB")
    quant = out_dir / "fp8_quantize_bench.json"
    if quant.is_file():
        data = json.loads(quant.read_text())
        lines.append("")
        lines.append("fp8_quantize, % of SOL (copy roof) at M >= 4096: " + "; ".join(
            f"{'×'.join(map(str, c['params']['shape']))} {'per token' if c['params']['per_token'] else 'per tensor'}: " +
            ", ".join(f"{k} {v['pct_sol']:.0f}%" for k, v in c["impls"].items() if v.get("pct_sol"))
            for c in data["cases"] if c["params"]["shape"][0] >= 4096))
    return "\n".join(lines) or f"no bench results in {out_dir}"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--json", help="write the rows here")
    p.add_argument("--quick", action="store_true", help="4 candidates per shape")
    p.add_argument("--summary", metavar="DIR", help="print the targets table from DIR/*_bench.json and exit")
    args = p.parse_args()
    if args.summary:
        print(summary(Path(args.summary)))
        return 0
    if env.CPU_MODE or torch.cuda.get_device_capability() < (8, 9):
        print("needs an fp8 GPU (sm_89 or newer)")
        return 1
    from grading import hardware
    gpu = hardware.current()
    roofs = hardware.roofs(gpu, hardware.load_ceilings() or hardware.committed_ceilings(gpu.key))
    rows = sweep(SMALL + LARGE, args.quick)
    if args.json:
        Path(args.json).write_text(json.dumps({"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
                                               "triton": __import__("triton").__version__, "rows": rows}, indent=1))
    print(table(rows, roofs.bandwidth_gbps))
    return 0


if __name__ == "__main__":
    sys.exit(main())
