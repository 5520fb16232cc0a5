"""Re-render a chapter's scoreboard and source-excerpt cells from committed files, as a GPU shows them.

    python benchmarks/refresh_bench_cells.py NOTEBOOK CELL [CELL ...]

On a GPU with KL_BENCH_FROM=benchmarks, `lessons.run_bench` shows the committed
`<kernel>_bench.json` of the same GPU model instead of timing it again (a chapter's full sweep can
take longer than the rest of its notebook). A bench re-run on its own (`python -m grading bench`)
changes those files but not the notebook's saved outputs; this runs the given code cells' source
with that same path, on any machine, and saves what they display: the cells' text and tables come
from the committed JSON only. Source-excerpt cells (print(lessons.excerpt(...)) of a repository
file, nothing else) print the same on any machine, so an edit to an excerpted file is re-rendered
here too, and so do compile-report cells (`grading.cuda.compile_only`: nvcc's ptxas report for a
fixed architecture, no GPU needed; the same nvcc version as the GPU machine's gives the same
report). Only those three kinds of cell are accepted.
"""
import argparse
import ast
import base64
import io
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from anywhere in the repo
import matplotlib  # noqa: E402

matplotlib.use("Agg")
from IPython.display import HTML, Markdown  # noqa: E402

from grading import lesson_fp8, lessons, roofline  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
BENCH = REPO / "benchmarks"
# A scoreboard cell shows a bench result, live (run_bench) or committed (load_json).
SCOREBOARD = ("lessons.run_bench", "lessons.load_json")
# What a compile-report cell must not do besides compiling: run a kernel or touch the GPU.
GPU_WORK = ("exercises.", "sol.", "DEVICE", "torch.cuda", "run_bench")


def _is_excerpt_statement(node: ast.stmt) -> bool:
    """`name = ROOT / ...`, `print()` or `print(lessons.excerpt(...))`: what an excerpt cell holds."""
    if isinstance(node, ast.Assign):
        return isinstance(node.value, ast.BinOp) and "ROOT" in ast.unparse(node.value)
    if not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)
            and ast.unparse(node.value.func) == "print"):
        return False
    args = node.value.args
    return not args or (len(args) == 1 and isinstance(args[0], ast.Call)
                        and ast.unparse(args[0].func) == "lessons.excerpt")


def _re_renderable(source: str) -> bool:
    """A scoreboard cell, a compile-report cell, or a cell of source excerpts only."""
    if any(a in source for a in SCOREBOARD):
        return True
    if "compile_only(" in source and not any(a in source for a in GPU_WORK):
        return True
    return "lessons.excerpt" in source and all(_is_excerpt_statement(n) for n in ast.parse(source).body)


def _committed_bench(kernel: str, rungs=None) -> dict:
    return lessons.show_reused_bench(kernel, json.loads((BENCH / f"{kernel}_bench.json").read_text()))


def _render(obj) -> dict:
    if isinstance(obj, Markdown):
        return {"data": {"text/markdown": obj.data, "text/plain": repr(obj)}, "metadata": {}, "output_type": "display_data"}
    if isinstance(obj, HTML):
        return {"data": {"text/html": obj.data, "text/plain": repr(obj)}, "metadata": {}, "output_type": "display_data"}
    if isinstance(obj, matplotlib.figure.Figure):
        buf = io.BytesIO()
        obj.savefig(buf, format="png", bbox_inches="tight")
        w, h = obj.get_size_inches() * obj.dpi
        return {"data": {"image/png": base64.b64encode(buf.getvalue()).decode(),
                         "text/plain": f"<Figure size {w:.0f}x{h:.0f} with {len(obj.axes)} Axes>"},
                "metadata": {}, "output_type": "display_data"}
    raise TypeError(f"cannot render {type(obj).__name__}")


def run_cell(source: str, namespace: dict) -> list[dict]:
    outputs: list[dict] = []
    text = io.StringIO()

    def flush_text():
        if text.getvalue():
            outputs.append({"name": "stdout", "output_type": "stream", "text": text.getvalue()})
            text.seek(0)
            text.truncate()

    def display(obj):
        flush_text()
        outputs.append(_render(obj))

    namespace["display"] = display
    old = sys.stdout
    sys.stdout = text
    try:
        exec(compile(source, "<cell>", "exec"), namespace)  # noqa: S102 - the chapter's own cell
    finally:
        sys.stdout = old
    flush_text()
    for o in outputs:  # notebooks store text as lists of lines
        if "text" in o:
            o["text"] = o["text"].splitlines(keepends=True)
        for k, v in o.get("data", {}).items():
            if k != "image/png" and isinstance(v, str):
                o["data"][k] = v.splitlines(keepends=True)
    return outputs


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("notebook")
    ap.add_argument("cells", nargs="+", type=int)
    args = ap.parse_args()
    path = Path(args.notebook)
    nb = json.loads(path.read_text())
    lessons.run_bench = _committed_bench
    namespace = {"lessons": lessons, "lesson_fp8": lesson_fp8, "roofline": roofline, "Markdown": Markdown,
                 "HTML": HTML, "CPU_MODE": False, "HAS_FP8": True, "ROOT": REPO}
    for i in args.cells:
        cell = nb["cells"][i]
        source = "".join(cell["source"])
        if cell["cell_type"] != "code" or not _re_renderable(source):
            sys.exit(f"cell {i} is neither a scoreboard cell (run_bench / load_json), a compile report "
                     "(compile_only) nor a source excerpt: not re-rendered")
        cell["outputs"] = run_cell(source, namespace)
        if cell.get("execution_count") is None:  # nbval refuses saved outputs on a cell never run
            counts = [c.get("execution_count") or 0 for c in nb["cells"][:i] if c["cell_type"] == "code"]
            cell["execution_count"] = max(counts, default=0) + 1
        print(f"cell {i}: {len(cell['outputs'])} outputs")
    path.write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
