"""Execute a chapter notebook top to bottom and save it with its outputs (the committed form).

    python benchmarks/execute_notebook.py chapters/00_speed_of_light/00_speed_of_light.ipynb [OUT.ipynb]

Every cell runs even when one fails. With no failure the notebook is written to OUT (default: in
place); otherwise it goes to OUT with the suffix .errors.ipynb, the failing cells are listed, and
the exit status is 1, so a broken cell never replaces the committed outputs. Each code cell's
index and seconds are printed as it finishes, so a run stopped from outside still says how far it
got and where the time went.
"""
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

src = Path(sys.argv[1]).resolve()
dst = Path(sys.argv[2]) if len(sys.argv) > 2 else src
nb = nbformat.read(src, as_version=4)
start = time.perf_counter()
last = [start]


def progress(cell, cell_index, **_):
    now = time.perf_counter()
    print(f"cell {cell_index}: {now - last[0]:.1f} s", flush=True)
    last[0] = now


NotebookClient(nb, timeout=900, kernel_name="python3", allow_errors=True, on_cell_executed=progress,
               resources={"metadata": {"path": str(src.parent)}}).execute()
failed = [(i, o.get("ename", "?"), o.get("evalue", "")) for i, cell in enumerate(nb.cells) if cell.cell_type == "code"
          for o in cell.get("outputs", []) if o.get("output_type") == "error"]
if failed:
    dst = dst.with_suffix(".errors.ipynb")
nbformat.write(nb, dst)
print(f"executed {src.name} in {time.perf_counter() - start:.0f} s -> {dst}")
for i, ename, evalue in failed:
    print(f"  cell {i}: {ename}: {evalue[:300]}")
sys.exit(1 if failed else 0)
