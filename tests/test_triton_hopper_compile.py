"""The reference Triton kernels compiled for Hopper (sm_90) without a GPU.

Triton's interpreter, which runs the kernels everywhere else in CI, executes them as NumPy and does
not type-check them; the compiler does (a variable that is a pointer on one path and a tensor on
another, say: the H200 refused such a kernel that the interpreter ran). So the kernels the GPU
runs are compiled here, for sm_90, in a child process with real @triton.jit kernels
(KL_FORCE_GPU=1 keeps the interpreter off), with constexpr combinations their launchers use. The
PTX then says which matrix instruction each fp8 GEMM kernel's tl.dot became: fp8 wgmma, or fp16
mma.sync after converting the operands, which runs and is slower, and nothing else shows it; and,
compiled with the divisibility a launch tells the compiler, whether the GEMM kernels' K loops are
software-pipelined and the memory-bound kernels load 16-byte vectors.
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

_CHILD = r'''
import importlib, json, os, re, subprocess, sys, tempfile
import triton
from triton.backends.compiler import GPUTarget
from triton.compiler import ASTSource

DIVISIBLE = set(json.loads(sys.argv[2]))
# The registers a thread gets are ptxas's choice, in the cubin's resource usage.
CUOBJDUMP = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
results, mma, shared, copies, loads, regs = {}, {}, {}, {}, {}, {}
for name, module, kernel, types, constexprs, options in json.loads(sys.argv[1]):
    fn = getattr(importlib.import_module(module), kernel)
    # Constexprs as given, else their defaults (as a launch that leaves them out gets).
    constexprs = {**{p.name: p.default for p in fn.params if p.is_constexpr and p.has_default}, **constexprs}
    # Pointers and float scalars as given, constexprs as given, every other argument a 32-bit integer.
    signature = {a: types.get(a) or ("constexpr" if a in constexprs else "i32") for a in fn.arg_names}
    # What a launch tells the compiler about its arguments: Triton specializes a pointer or an
    # integer that is a multiple of 16 as such, and the vector width of every masked load rests on
    # it. Tensors from torch are that aligned, and so are the arguments named in DIVISIBLE.
    attrs = {(i,): [["tt.divisibility", 16]] for i, a in enumerate(fn.arg_names)
             if signature[a].startswith("*") or a in DIVISIBLE}
    try:
        compiled = triton.compile(ASTSource(fn=fn, signature=signature, constexprs=constexprs, attrs=attrs),
                                  target=GPUTarget("cuda", 90, 32), options=options)
        results[name] = "ok"
        ptx = compiled.asm["ptx"]
        # The matrix instructions tl.dot became, and how often each is written in the PTX.
        found = re.findall(r"\b((?:wgmma\.mma_async|mma)\.sync\.aligned\.m\d+n\d+k\d+[.\w]*)", ptx)
        mma[name] = {s: found.count(s) for s in set(found)}
        # The shared memory it asks for, and its asynchronous copies into it by width in bytes (keys
        # that JSON turns into strings).
        shared[name] = compiled.metadata.shared
        found = [int(w, 0) for w in re.findall(
            r"cp\.async\.c[ag]\.shared\.global(?:\.L2::\w+)? \[[^]]*\], \[[^]]*\], (0x[0-9a-f]+|\d+)", ptx)]
        copies[name] = {w: found.count(w) for w in set(found)}
        # Its loads from global memory, by kind (width and cache hints).
        loads[name] = sorted(set(re.findall(r"ld\.global[.:\w]*", ptx)))
        if os.path.exists(CUOBJDUMP):
            with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
                f.write(compiled.asm["cubin"])
                f.flush()
                usage = subprocess.run([CUOBJDUMP, "-res-usage", f.name], capture_output=True, text=True).stdout
            found = re.search(r"REG:(\d+)", usage)
            regs[name] = int(found.group(1)) if found else None
    except Exception as e:  # reported per kernel by the test
        results[name] = f"{type(e).__name__}: {str(e)[:2000]}"
print(json.dumps({"results": results, "mma": mma, "shared": shared, "copies": copies, "loads": loads,
                  "regs": regs}))
'''

_GEMM_PTRS = {"a_ptr": "*fp8e4nv", "b_ptr": "*fp8e4nv", "y_ptr": "*bf16", "sa_ptr": "*fp32", "sb_ptr": "*fp32",
              "ws_ptr": "*fp32", "count_ptr": "*i32"}
_COMMON = {"ROW_A": False, "ROW_B": True, "PROMOTE": True}
_TILE = {"BLOCK_M": 128, "BLOCK_N": 128, "BLOCK_K": 128}
_FP8 = "solutions.fp8_gemm"
# The integer arguments a launch at the Llama shapes passes as multiples of 16, so Triton
# specializes them as such: the GEMMs' N and K (the spec requires them), k_per_split (whole K
# steps) and slice_elems (M·N); the row kernels' row lengths and strides (4096, 8192, 14336);
# paged_decode's strides (head dim 128, pages of 16 tokens, 8 kv heads).
_DIVISIBLE = ["N", "K", "k_per_split", "slice_elems", "n_cols", "n", "x_row_stride", "res_row_stride",
              "gate_row_stride", "up_row_stride", "stride_qb", "stride_qh", "stride_kp", "stride_ks", "stride_kh",
              "stride_vp", "stride_vs", "stride_vh"]
_RMS = "solutions.rmsnorm"
_RMS_PTRS = {**{p: "*bf16" for p in ("x_ptr", "res_ptr", "w_ptr", "y_ptr", "h_ptr")}, "eps": "fp32"}
_DECODE = "solutions.paged_decode"
_DECODE_TYPES = {"q_ptr": "*bf16", "k_ptr": "*bf16", "v_ptr": "*bf16", "bt_ptr": "*i32", "lens_ptr": "*i32",
                 "out_ptr": "*bf16", "part_o_ptr": "*fp32", "part_lse_ptr": "*fp32", "qk_scale": "fp32"}
_DECODE_PLAN = {"GROUP": 4, "HEAD_DIM": 128, "KV_PACK": 1, "PAGE": 16, "BLOCK_N": 64, "DOT_PRECISION": "tf32"}
_QUANT_PTRS = {"x_ptr": "*bf16", "q_ptr": "*fp8e4nv", "scale_ptr": "*fp32", "amax_ptr": "*fp32"}
_KERNELS = [
    ("fp8_gemm v1", _FP8, "_fp8_gemm_v1_kernel", _GEMM_PTRS, {**_COMMON, **_TILE}, {"num_warps": 8, "num_stages": 4}),
    ("fp8_gemm v2", _FP8, "_fp8_gemm_v2_kernel", _GEMM_PTRS, {**_COMMON, **_TILE, "GROUP_M": 8},
     {"num_warps": 8, "num_stages": 4}),
    ("fp8_gemm v3, promoted every 128", _FP8, "_fp8_gemm_v3_kernel", _GEMM_PTRS,
     {**_COMMON, **_TILE, "GROUP_M": 8, "NUM_PROGRAMS": 132, "FLATTEN": False, "PROMOTE_EVERY": 1},
     {"num_warps": 8, "num_stages": 4}),
    ("fp8_gemm v3, promoted every 2048 (the pick)", _FP8, "_fp8_gemm_v3_kernel", _GEMM_PTRS,
     {**_COMMON, **_TILE, "GROUP_M": 8, "NUM_PROGRAMS": 132, "FLATTEN": False, "PROMOTE_EVERY": 16},
     {"num_warps": 8, "num_stages": 5}),
    ("fp8_gemm v4, split-K 4", _FP8, "_fp8_gemm_v4_kernel", {**_GEMM_PTRS, "y_ptr": "*fp32"},
     {**_COMMON, "BLOCK_M": 16, "BLOCK_N": 64, "BLOCK_K": 256, "SPLIT_K": 4}, {"num_warps": 4, "num_stages": 4}),
    ("fp8_gemm v5, split-K 2, promoted every 1024", _FP8, "_fp8_gemm_v5_kernel", _GEMM_PTRS,
     {**_COMMON, "BLOCK_N": 64, "BLOCK_M": 64, "BLOCK_K": 256, "SPLIT_K": 2, "TMA": False, "PROMOTE_EVERY": 4},
     {"num_warps": 4, "num_stages": 5}),
    ("fp8_gemm v5, TMA, split-K 2, promoted every 1024", _FP8, "_fp8_gemm_v5_kernel", _GEMM_PTRS,
     {**_COMMON, "BLOCK_N": 64, "BLOCK_M": 128, "BLOCK_K": 128, "SPLIT_K": 2, "TMA": True, "PROMOTE_EVERY": 8},
     {"num_warps": 4, "num_stages": 7}),
    ("fp8_gemm v5, 16 tokens, promoted every step", _FP8, "_fp8_gemm_v5_kernel", _GEMM_PTRS,
     {**_COMMON, "BLOCK_N": 64, "BLOCK_M": 16, "BLOCK_K": 256, "SPLIT_K": 1, "TMA": False, "PROMOTE_EVERY": 1},
     {"num_warps": 4, "num_stages": 6}),
    ("fp8_gemm v6, stream-K, 128 tokens, promoted every 1024", _FP8, "_fp8_gemm_v6_kernel", _GEMM_PTRS,
     {**_COMMON, "BLOCK_N": 128, "BLOCK_M": 128, "BLOCK_K": 128, "TMA": False, "PROMOTE_EVERY": 8},
     {"num_warps": 8, "num_stages": 5}),
    ("fp8_gemm v6, stream-K, TMA, 16 tokens", _FP8, "_fp8_gemm_v6_kernel", _GEMM_PTRS,
     {**_COMMON, "BLOCK_N": 128, "BLOCK_M": 16, "BLOCK_K": 128, "TMA": True, "PROMOTE_EVERY": 1},
     {"num_warps": 4, "num_stages": 6}),
    ("fp8_quantize amax", _FP8, "_amax_kernel", {"x_ptr": "*bf16", "amax_ptr": "*fp32"},
     {"BLOCK_M": 4, "BLOCK_N": 1024}, {"num_warps": 4}),
    ("fp8_quantize per token, one pass", _FP8, "_quantize_kernel", _QUANT_PTRS,
     {"PER_TOKEN": True, "BLOCK_M": 1, "BLOCK_N": 4096, "ONE_PASS": True}, {"num_warps": 8}),
    ("fp8_quantize per tensor, chunked", _FP8, "_quantize_kernel", _QUANT_PTRS,
     {"PER_TOKEN": False, "BLOCK_M": 1, "BLOCK_N": 2048, "ONE_PASS": False}, {"num_warps": 8}),
    ("paged_decode, split", _DECODE, "_paged_decode_split_kernel", _DECODE_TYPES,
     {**_DECODE_PLAN, "GROUP_PAD": 16, "ONE_SPLIT": False}, {"num_warps": 4, "num_stages": 3}),
    ("paged_decode, one split, two kv heads a program", _DECODE, "_paged_decode_split_kernel", _DECODE_TYPES,
     {**_DECODE_PLAN, "HEAD_DIM": 64, "KV_PACK": 2, "GROUP_PAD": 16, "BLOCK_N": 128, "ONE_SPLIT": True},
     {"num_warps": 4, "num_stages": 3}),
    ("paged_decode, merge", _DECODE, "_paged_decode_merge_kernel",
     {"part_o_ptr": "*fp32", "part_lse_ptr": "*fp32", "out_ptr": "*bf16"}, {"HEAD_DIM": 128, "BLOCK_S": 16},
     {"num_warps": 4}),
    ("silu_mul, rows", "solutions.silu_mul", "_silu_mul_kernel",
     {"gate_ptr": "*bf16", "up_ptr": "*bf16", "out_ptr": "*bf16"}, {"BLOCK": 1024}, {"num_warps": 4}),
    ("silu_mul, flat, 64-bit offsets", "solutions.silu_mul", "_silu_mul_flat_kernel",
     {"gate_ptr": "*bf16", "up_ptr": "*bf16", "out_ptr": "*bf16"}, {"BLOCK": 1024, "INT64": True},
     {"num_warps": 4}),
    ("rmsnorm, one pass", _RMS, "_rmsnorm_kernel", _RMS_PTRS,
     {"HAS_RESIDUAL": False, "BLOCK_M": 1, "BLOCK_N": 4096, "ONE_PASS": True}, {"num_warps": 16}),
    ("fused_add_rmsnorm, rows sharing a program", _RMS, "_rmsnorm_kernel", _RMS_PTRS,
     {"HAS_RESIDUAL": True, "BLOCK_M": 32, "BLOCK_N": 128, "ONE_PASS": True}, {"num_warps": 4}),
    ("fused_add_rmsnorm, two passes", _RMS, "_rmsnorm_kernel", _RMS_PTRS,
     {"HAS_RESIDUAL": True, "BLOCK_M": 1, "BLOCK_N": 8192, "ONE_PASS": False}, {"num_warps": 16}),
    ("rmsnorm, many rows: two passes, the first read evict-last", _RMS, "_rmsnorm_kernel", _RMS_PTRS,
     {"HAS_RESIDUAL": False, "BLOCK_M": 1, "BLOCK_N": 4096, "ONE_PASS": False, "FIRST_EVICT": "evict_last",
      "PDL": True}, {"num_warps": 16, "launch_pdl": True}),
    ("rmsnorm, many rows: one pass, x read evict-last", _RMS, "_rmsnorm_kernel", _RMS_PTRS,
     {"HAS_RESIDUAL": False, "BLOCK_M": 1, "BLOCK_N": 4096, "ONE_PASS": True, "ROW_EVICT": "evict_last",
      "PDL": True}, {"num_warps": 8, "launch_pdl": True}),
    *[(f"fused_add_rmsnorm, one pass, cache hints {c!r} {e!r}", _RMS, "_rmsnorm_kernel", _RMS_PTRS,
       {"HAS_RESIDUAL": True, "BLOCK_M": 1, "BLOCK_N": 4096, "ONE_PASS": True, "ROW_CACHE": c, "ROW_EVICT": e},
       {"num_warps": 16}) for c, e in ((".cg", ""), ("", "evict_first"))],
    *[(f"{'fused_add_rmsnorm' if add else 'rmsnorm'}, one pass, exact tile, weight early", _RMS, "_rmsnorm_kernel",
       _RMS_PTRS, {"HAS_RESIDUAL": add, "BLOCK_M": 1, "BLOCK_N": 4096, "ONE_PASS": True, "EXACT": True,
                   "W_EARLY": True, "ROW_EVICT": "evict_first"}, {"num_warps": 16}) for add in (False, True)],
    *[(f"{'fused_add_rmsnorm' if add else 'rmsnorm'}, one pass, programmatic dependent launch", _RMS,
       "_rmsnorm_kernel", _RMS_PTRS, {"HAS_RESIDUAL": add, "BLOCK_M": 1, "BLOCK_N": 4096, "ONE_PASS": True, "PDL": True},
       {"num_warps": 8, "launch_pdl": True}) for add in (False, True)],
    ("fp8_quantize amax, programmatic dependent launch", _FP8, "_amax_kernel", {"x_ptr": "*bf16", "amax_ptr": "*fp32"},
     {"BLOCK_M": 1, "BLOCK_N": 4096, "PDL": True}, {"num_warps": 8, "launch_pdl": True}),
    ("fp8_quantize per token, programmatic dependent launch", _FP8, "_quantize_kernel", _QUANT_PTRS,
     {"PER_TOKEN": True, "BLOCK_M": 1, "BLOCK_N": 4096, "ONE_PASS": True, "PDL": True},
     {"num_warps": 8, "launch_pdl": True}),
]


def _v5_picks() -> list:
    """The v5 kernels pick_config launches on 132 SMs (an H100's or H200's) at 1-128 tokens, at the
    Llama weights and at a vocabulary's projection (128256 x 4096), each once, named by the first
    shape that picks it. (These include the 16-token tile with dependent launch and the 128-token
    one with 64 weight rows.)"""
    from grading.specs.fp8_gemm import LLAMA_NK
    from solutions.fp8_gemm import pick_config
    picks = {}
    for n, k in (*LLAMA_NK, (128256, 4096)):
        for m in (1, 16, 48, 64, 128):
            c = pick_config(m, n, k, sms=132)
            if c.variant == 5:
                picks.setdefault(c, (m, n, k))
    return [(f"fp8_gemm v5 as picked at {m}x{n}x{k}: {c.block_m} tokens, {c.block_n} rows, {c.block_k} of K, "
             f"{c.num_warps} warps, {c.num_stages} stages, split {c.split_k}", _FP8, "_fp8_gemm_v5_kernel", _GEMM_PTRS,
             {**_COMMON, "BLOCK_N": c.block_n, "BLOCK_M": c.block_m, "BLOCK_K": c.block_k, "SPLIT_K": c.split_k,
              "TMA": c.tma, "PROMOTE_EVERY": c.promote_every, "PDL": c.pdl},
             {"num_warps": c.num_warps, "num_stages": c.num_stages, "launch_pdl": c.pdl})
            for c, (m, n, k) in picks.items()]


_PICKS = _v5_picks()
_KERNELS += _PICKS


@pytest.fixture(scope="module")
def compiled():
    pytest.importorskip("triton.backends.nvidia", reason="this Triton has no NVIDIA backend to compile with")
    env = {**os.environ, "KL_FORCE_GPU": "1"}
    env.pop("TRITON_INTERPRET", None)
    proc = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(_KERNELS), json.dumps(_DIVISIBLE)], cwd=REPO,
                          env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("name", [k[0] for k in _KERNELS])
def test_kernel_compiles_for_sm90(compiled, name):
    assert compiled["results"][name] == "ok", compiled["results"][name]


def _launch_of(name: str) -> tuple[dict, dict]:
    """The constexprs and compile options of kernel entry `name`."""
    return next((k[4], k[5]) for k in _KERNELS if k[0] == name)


def _skip_unless_compiled(compiled, name):
    """Skip a check of what `name` compiled to when it did not compile: the test above fails it."""
    if compiled["results"][name] != "ok":
        pytest.skip("does not compile: test_kernel_compiles_for_sm90 reports it")


@pytest.mark.parametrize("name", [k[0] for k in _KERNELS if k[0].startswith("fp8_gemm")])
def test_fp8_gemm_kernel_multiplies_fp8_on_the_tensor_cores(compiled, name):
    # Only wgmma multiplies fp8 natively on Hopper, and it is 64 rows tall. Where a tile gives
    # tl.dot fewer rows, Triton converts both operands to fp16 and issues mma.sync (v4's 16-token
    # tiles: m16n8k16 on f16), every operand byte through the CUDA cores first; the weight-
    # streaming kernels (v5, v6) put the weight's rows on the 64-row side to stay on wgmma.
    _skip_unless_compiled(compiled, name)
    kinds = compiled["mma"][name]
    if name.startswith("fp8_gemm v4"):
        assert kinds and all(s.startswith("mma.sync") and ".f16.f16." in s for s in kinds), kinds
    else:
        assert kinds and all(s.startswith("wgmma") and s.endswith(".e4m3.e4m3") for s in kinds), kinds


@pytest.mark.parametrize("name", [k[0] for k in _KERNELS if k[0].startswith("fp8_gemm")])
def test_fp8_gemm_k_loop_is_pipelined(compiled, name):
    # Each K step's tiles are copied into shared memory asynchronously while earlier steps are
    # multiplied: Triton's software pipeline, with num_stages steps' worth of buffers (one fewer
    # in some kernels), filled by the copy engine (TMA, v3 and the TMA variants) or by cp.async, 16
    # bytes a copy, the width the masks allow when K is a multiple of 16. A loop the pipeliner gives
    # up on (a loop-carried value it cannot rotate, a mask it cannot vectorize) still computes the
    # right result and runs at a fraction of the bandwidth, which only a GPU's timing would show.
    # Compiled without the divisibility a launch gives, every kernel here that loads its tiles with
    # its threads came out that way: one stage of shared memory, byte-wide loads.
    _skip_unless_compiled(compiled, name)
    constexprs, options = _launch_of(name)
    stage = (constexprs["BLOCK_N"] + constexprs["BLOCK_M"]) * constexprs["BLOCK_K"]  # e4m3: a byte each
    stages = options["num_stages"]
    assert compiled["shared"][name] >= (stages - 1) * stage, (
        f"{compiled['shared'][name]} bytes of shared memory, under {stages - 1} stages of {stage}")
    if "v3" not in name and not constexprs.get("TMA"):
        copies = compiled["copies"][name]
        assert copies and set(copies) == {"16"}, f"asynchronous copies by width in bytes: {copies}"


@pytest.mark.parametrize("name", [k[0] for k in _KERNELS if not k[0].startswith("fp8_gemm")])
def test_memory_bound_kernels_load_16_byte_vectors(compiled, name):
    # The memory-bound kernels reach the copy roof only with 16-byte accesses (8 bf16 a load), which
    # Triton emits where it can prove a row's start and length are multiples of 8 elements: from
    # the launch's divisibility, as a Llama-shaped launch gives it. A change that hides that (an
    # offset computed so the compiler loses it, a mask it cannot split) leaves every result right
    # and the kernel reading 2 bytes a load, which only a GPU's timing would show.
    _skip_unless_compiled(compiled, name)
    loads = compiled["loads"][name]
    assert any(kind.endswith(".v4.b32") for kind in loads), f"no 16-byte loads (.v4.b32), only {loads}"


@pytest.mark.parametrize("name", [k[0] for k in _PICKS])
def test_register_estimate_of_the_picks_matches_the_compiled_kernels(compiled, name):
    # pick_config plans each program's pipeline stages from how many programs share an SM, at most
    # as many as the registers hold (_programs_by_registers). An estimate above what ptxas gives
    # plans stages for programs that never come, and leaves the shared memory of the missing ones
    # idle; below, by more than one program, it plans fewer stages than would fit (tiles of 64
    # tokens and more: the ones the picks put more than one of on an SM).
    from solutions.fp8_gemm import _programs_by_registers, _programs_that_fit
    _skip_unless_compiled(compiled, name)
    regs = compiled["regs"].get(name)
    if regs is None:
        pytest.skip("this Triton ships no cuobjdump to read the kernel's registers with")
    constexprs, options = _launch_of(name)
    fit = _programs_that_fit(regs, options["num_warps"])
    estimate = _programs_by_registers(constexprs["BLOCK_N"], constexprs["BLOCK_M"], options["num_warps"],
                                      constexprs["BLOCK_K"])
    assert estimate <= fit, f"{regs} registers a thread: {fit} programs fit an SM, the estimate says {estimate}"
    if constexprs["BLOCK_M"] >= 64:
        assert estimate >= fit - 1, f"{regs} registers a thread: {fit} programs fit an SM, the estimate {estimate}"
