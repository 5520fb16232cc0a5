"""Where kernels run: a CUDA GPU, or CPU mode (Triton interpreter, no speed checks)."""
import functools
import os
import sys

import torch

# Decide before any @triton.jit decorator runs: the interpreter is picked at decoration time.
if not torch.cuda.is_available() and os.environ.get("KL_FORCE_GPU") != "1":
    os.environ.setdefault("TRITON_INTERPRET", "1")

CPU_MODE: bool = not torch.cuda.is_available()
DEVICE: str = "cpu" if CPU_MODE else "cuda"

_announced = False


def device_summary() -> str:
    """One line saying where kernels run."""
    if CPU_MODE:
        return ("CPU mode: no CUDA GPU visible. Eager and torch.compile run on the CPU, Triton "
                "kernels in Triton's interpreter, CUDA sources are only compiled; speed is not graded.")
    p = torch.cuda.get_device_properties(0)
    return (f"GPU mode: {p.name} (sm_{p.major}{p.minor}, {p.multi_processor_count} SMs, "
            f"{p.total_memory / 2**30:.0f} GiB), torch {torch.__version__}")


def announce(stream=sys.stderr) -> None:
    """Print the mode line once per process."""
    global _announced
    if not _announced:
        print(device_summary(), file=stream)
        _announced = True


def capability() -> tuple[int, int] | None:
    return None if CPU_MODE else torch.cuda.get_device_capability(0)


@functools.cache
def _has_pdl(device_index: int) -> bool:
    if torch.cuda.get_device_capability(device_index)[0] < 9:
        return False
    # The Triton side: the device functions and the launch option (Triton 3.6 has both).
    try:
        from triton.backends.nvidia.compiler import CUDAOptions
        from triton.language.extra.cuda import gdc_launch_dependents, gdc_wait  # noqa: F401
    except ImportError:
        return False
    return "launch_pdl" in getattr(CUDAOptions, "__dataclass_fields__", {})


def pdl_launch(device: torch.device) -> dict:
    """Launch options for a Triton kernel with a `PDL` switch, on a GPU with programmatic dependent
    launch (sm_90+): the kernel's PDL=True (its programs wait for the previous kernel's writes
    before their first load, `tl.extra.cuda.gdc_wait`) and Triton's launch_pdl=True (the launch
    may be scheduled while that kernel drains). Elsewhere (an older GPU, a Triton without them,
    the interpreter) neither."""
    if device.type != "cuda" or not _has_pdl(device.index if device.index is not None else torch.cuda.current_device()):
        return {}
    return {"PDL": True, "launch_pdl": True}
