"""The fp8 GEMM's Triton kernels compiled for Hopper (sm_90a) without a GPU.

Triton's interpreter, which runs the kernels everywhere else in CI, executes them as NumPy and does
not type-check them; the compiler does (a variable that is a pointer on one path and a tensor on
another, say). So the kernels the H200 runs are compiled here, for sm_90, in a child process with
real @triton.jit kernels (KL_FORCE_GPU=1 keeps the interpreter off), with the constexpr
combinations the rung launches.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

_CHILD = r'''
import json, sys
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource
from solutions import fp8_gemm as sol

POINTERS = {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "y_ptr": "*bf16", "sa_ptr": "*fp32",
            "sb_ptr": "*fp32", "ws_ptr": "*fp32", "count_ptr": "*i32"}
results = {}
for name, kernel, constexprs, options in json.loads(sys.argv[1]):
    fn = getattr(sol, kernel)
    signature = {a: POINTERS.get(a, "constexpr" if a in constexprs else "i32") for a in fn.arg_names}
    try:
        triton.compile(ASTSource(fn=fn, signature=signature, constexprs=constexprs),
                       target=GPUTarget("cuda", 90, 32), options=options)
        results[name] = "ok"
    except Exception as e:  # reported per kernel by the test
        results[name] = f"{type(e).__name__}: {str(e)[:2000]}"
print(json.dumps(results))
'''

_COMMON = {"ROW_A": False, "ROW_B": True, "PROMOTE": True}
_KERNELS = [
    ("v3, promoted every 128", "_fp8_gemm_v3_kernel",
     {**_COMMON, "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 128, "GROUP_M": 8, "NUM_PROGRAMS": 132,
      "FLATTEN": False, "PROMOTE_EVERY": 1}, {"num_warps": 8, "num_stages": 4}),
    ("v3, promoted every 1024 (the pick)", "_fp8_gemm_v3_kernel",
     {**_COMMON, "BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 128, "GROUP_M": 8, "NUM_PROGRAMS": 132,
      "FLATTEN": False, "PROMOTE_EVERY": 8}, {"num_warps": 8, "num_stages": 5}),
    ("v5, split-K 2, promoted every 1024", "_fp8_gemm_v5_kernel",
     {**_COMMON, "BLOCK_N": 64, "BLOCK_M": 64, "BLOCK_K": 256, "SPLIT_K": 2, "TMA": False, "PROMOTE_EVERY": 4},
     {"num_warps": 4, "num_stages": 5}),
    ("v5, TMA, split-K 2, promoted every 1024", "_fp8_gemm_v5_kernel",
     {**_COMMON, "BLOCK_N": 64, "BLOCK_M": 128, "BLOCK_K": 128, "SPLIT_K": 2, "TMA": True, "PROMOTE_EVERY": 8},
     {"num_warps": 4, "num_stages": 7}),
    ("v5, 16 tokens, promoted every step", "_fp8_gemm_v5_kernel",
     {**_COMMON, "BLOCK_N": 64, "BLOCK_M": 16, "BLOCK_K": 256, "SPLIT_K": 1, "TMA": False, "PROMOTE_EVERY": 1},
     {"num_warps": 4, "num_stages": 6}),
]


@pytest.fixture(scope="module")
def compiled():
    pytest.importorskip("triton.backends.nvidia", reason="this Triton has no NVIDIA backend to compile with")
    env = {**os.environ, "KL_FORCE_GPU": "1"}
    env.pop("TRITON_INTERPRET", None)
    proc = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(_KERNELS)], cwd=REPO, env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", [k[0] for k in _KERNELS])
def test_fp8_gemm_kernel_compiles_for_sm90(compiled, name):
    assert compiled[name] == "ok", compiled[name]
