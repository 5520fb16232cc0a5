"""The kernel registry: one spec module per kernel."""
from __future__ import annotations

from grading.spec import KernelSpec
from grading.specs import fp8_gemm, paged_decode, rmsnorm, silu_mul

SPECS: dict[str, KernelSpec] = {s.name: s for s in (silu_mul.SPEC, rmsnorm.SPEC, rmsnorm.FUSED_SPEC,
                                                fp8_gemm.QUANTIZE_SPEC, fp8_gemm.GEMM_SPEC, paged_decode.SPEC)}


def get_spec(name: str) -> KernelSpec:
    try:
        return SPECS[name]
    except KeyError:
        raise KeyError(f"unknown kernel {name!r}; valid kernels: {', '.join(sorted(SPECS))}") from None
