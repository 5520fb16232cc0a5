"""Do the compiled ops refuse bad arguments with a Python exception when called directly?

    python benchmarks/raw_op_errors.py [--only silu_mul,rmsnorm,paged_decode,fp8_gemm] [--probe-only]

The solutions check their inputs in Python before calling a compiled op, so the grader never
reaches the op's own checks; a practitioner who calls the op directly does. Each bad call runs in
a child process of its own, so a crash (a signal instead of an exception) is reported for that call
and the others still run. The CUTLASS fp8_gemm op needs a Hopper GPU (its first build takes a
minute or two), the others any CUDA GPU; a minimal extension built with torch's own loader
("probe") fails one check kind each, with and without an integer in the message.
H200, torch 2.11 (benchmarks/h200_session8/raw_op_errors.txt, h200_session9/call1/probe.txt): every
check whose message streamed a number crashed the process (value_int, type_int, runtime_int), a
message of text alone raised (value_text, value_prebuilt, std_invalid). The bindings now build their
messages themselves (csrc/bindings/kl_binding.h, KL_CHECK_VALUE).
"""
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# Every child: a Python traceback on a crash, and torch. The course's ops need the solutions too.
PROBE_SETUP = """
import faulthandler; faulthandler.enable()
import torch
"""
SETUP = f"import sys; sys.path.insert(0, {str(REPO)!r})" + PROBE_SETUP + """
from solutions import fp8_gemm, paged_decode, rmsnorm, silu_mul
E4M3 = torch.float8_e4m3fn
def fp8(r, c): return torch.randn(r, c, device="cuda").to(E4M3)
one = torch.ones(1, device="cuda")
def bf16(*shape): return torch.randn(*shape, device="cuda", dtype=torch.bfloat16)
"""

CASES = {
    "silu_mul: gate on the CPU": "silu_mul._cuda_ops().silu_mul(torch.randn(4, 8), torch.randn(4, 8, device='cuda'))",
    "silu_mul: shapes differ": "silu_mul._cuda_ops().silu_mul(torch.randn(4, 8, device='cuda'), torch.randn(4, 16, device='cuda'))",
    "fp8_gemm: K = 40": "fp8_gemm._gemm_ops().fp8_gemm(fp8(4, 40), fp8(16, 40), one, one)",
    "fp8_gemm: N = 12": "fp8_gemm._gemm_ops().fp8_gemm(fp8(4, 64), fp8(12, 64), one, one)",
    "fp8_gemm: a in bf16": "fp8_gemm._gemm_ops().fp8_gemm(torch.randn(4, 64, device='cuda', dtype=torch.bfloat16), fp8(16, 64), one, one)",
    "fp8_gemm: scale shape": "fp8_gemm._gemm_ops().fp8_gemm(fp8(4, 64), fp8(16, 64), torch.ones(3, device='cuda'), one)",
    "fp8_gemm: a good call": "print(fp8_gemm._gemm_ops().fp8_gemm(fp8(4, 64), fp8(16, 64), one, one).shape)",
    "rmsnorm: weight shape": "rmsnorm._cuda_ops().rmsnorm(bf16(4, 64), bf16(32), 1e-6)",
    "rmsnorm: eps < 0": "rmsnorm._cuda_ops().rmsnorm(bf16(4, 64), bf16(64), -1.0)",
    "rmsnorm: weight in fp32": "rmsnorm._cuda_ops().rmsnorm(bf16(4, 64), torch.ones(64, device='cuda'), 1e-6)",
    "paged_decode: D = 96": "paged_decode._cuda_ops().paged_decode(bf16(2, 8, 96), bf16(4, 16, 2, 96), bf16(4, 16, 2, 96), "
                            "torch.zeros(2, 2, dtype=torch.int32, device='cuda'), torch.ones(2, dtype=torch.int32, device='cuda'), 0.1, 1)",
}
# Which op each case needs built (the rest are skipped when --only leaves that kernel out).
BUILD = {"silu_mul": "silu_mul._cuda_ops()", "fp8_gemm": "fp8_gemm._gemm_ops()",
         "rmsnorm": "rmsnorm._cuda_ops()", "paged_decode": "paged_decode._cuda_ops()"}


# A minimal extension, built with torch's own loader and no flags of ours: each op fails one check
# kind, with and without an integer in its message. Separates torch's translation of an exception
# kind from how the course's libraries are built.
PROBE = r"""
#include <stdexcept>
#include <torch/all.h>
#include <torch/library.h>
at::Tensor value_int(const at::Tensor& x) { TORCH_CHECK_VALUE(x.dim() == 5, "x: expected 5-D, got ", x.dim()); return x; }
at::Tensor value_text(const at::Tensor& x) { TORCH_CHECK_VALUE(x.dim() == 5, "x: expected 5-D"); return x; }
at::Tensor type_int(const at::Tensor& x) { TORCH_CHECK_TYPE(x.dim() == 5, "x: expected 5-D, got ", x.dim()); return x; }
at::Tensor runtime_int(const at::Tensor& x) { TORCH_CHECK(x.dim() == 5, "x: expected 5-D, got ", x.dim()); return x; }
at::Tensor value_prebuilt(const at::Tensor& x) {  // what the course's KL_CHECK_VALUE does
  TORCH_CHECK_VALUE(x.dim() == 5, std::string("x: expected 5-D, got ") + std::to_string(x.dim())); return x;
}
at::Tensor std_invalid(const at::Tensor& x) {
  if (x.dim() != 5) throw std::invalid_argument("x: expected 5-D, got " + std::to_string(x.dim()));
  return x;
}
TORCH_LIBRARY(kl_probe, m) {
  m.def("value_int(Tensor x) -> Tensor");
  m.def("value_text(Tensor x) -> Tensor");
  m.def("type_int(Tensor x) -> Tensor");
  m.def("runtime_int(Tensor x) -> Tensor");
  m.def("value_prebuilt(Tensor x) -> Tensor");
  m.def("std_invalid(Tensor x) -> Tensor");
}
TORCH_LIBRARY_IMPL(kl_probe, CompositeExplicitAutograd, m) {
  m.impl("value_int", &value_int); m.impl("value_text", &value_text); m.impl("type_int", &type_int);
  m.impl("runtime_int", &runtime_int); m.impl("value_prebuilt", &value_prebuilt);
  m.impl("std_invalid", &std_invalid);
}
"""
PROBE_OPS = ["value_int", "value_text", "type_int", "runtime_int", "value_prebuilt", "std_invalid"]


def probe_cases(folder: Path) -> dict:
    from torch.utils.cpp_extension import load
    (folder / "kl_probe.cpp").write_text(PROBE)
    load(name="kl_probe", sources=[str(folder / "kl_probe.cpp")], build_directory=str(folder),
         is_python_module=False, extra_cflags=["-O3"], verbose=False)
    lib = folder / "kl_probe.so"
    return {f"probe: {op}": f"torch.ops.load_library({str(lib)!r}); torch.ops.kl_probe.{op}(torch.ones(2))"
            for op in PROBE_OPS}


def main():
    import argparse
    import tempfile

    import torch
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--probe-only", action="store_true",
                    help="only the minimal extension (seconds of g++, no CUDA build)")
    ap.add_argument("--only", default=",".join(BUILD), help="comma-separated kernels whose ops to call")
    args = ap.parse_args()
    hopper = torch.cuda.is_available() and torch.cuda.get_device_capability()[0] == 9
    kernels = [] if args.probe_only else [k for k in args.only.split(",") if k != "fp8_gemm" or hopper]
    cases = {name: call for name, call in CASES.items() if name.split(":")[0] in kernels}
    cases.update(probe_cases(Path(tempfile.mkdtemp(prefix="kl_probe_"))))
    if kernels:  # build once here, so the children load from the cache
        subprocess.run([sys.executable, "-c", SETUP + "; ".join(BUILD[k] for k in kernels)], check=True)
    print(f"torch {torch.__version__}")
    for name, call in cases.items():
        setup = PROBE_SETUP if name.startswith("probe") else SETUP
        code = setup + f"""
try:
    {call}
    print("returned")
except Exception as e:
    print(f"raised {{type(e).__name__}}: {{str(e).splitlines()[0][:150]}}")
"""
        p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
        out = (p.stdout.strip().splitlines() or [""])[-1]
        if p.returncode != 0:
            tail = "\n    ".join(p.stderr.strip().splitlines()[-12:])
            out = f"CRASHED (exit {p.returncode})\n    {tail}"
        print(f"{name:28s} {out}", flush=True)


if __name__ == "__main__":
    main()
