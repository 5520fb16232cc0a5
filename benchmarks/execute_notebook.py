"""Execute a chapter notebook top to bottom and save it with its outputs (the committed form).

    python benchmarks/execute_notebook.py chapters/00_speed_of_light/00_speed_of_light.ipynb [OUT.ipynb]
"""
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

src = Path(sys.argv[1]).resolve()
dst = Path(sys.argv[2]) if len(sys.argv) > 2 else src
nb = nbformat.read(src, as_version=4)
NotebookClient(nb, timeout=900, kernel_name="python3", resources={"metadata": {"path": str(src.parent)}}).execute()
nbformat.write(nb, dst)
print(f"executed {src.name} -> {dst}")
