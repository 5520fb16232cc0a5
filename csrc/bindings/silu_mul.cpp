// Registers silu_mul(Tensor gate, Tensor up) -> Tensor as a torch op in the namespace the loader
// passes as KL_NAMESPACE (grading/cuda.py: one per build, so a student's build and the reference
// can live in one process). The kernel itself is in a plain CUDA file behind silu_mul_launch.
#include <torch/all.h>
#include <torch/library.h>

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "kl_binding.h"
#include "silu_mul.h"

namespace {

using kl::kl_dtype;
using kl::row_stride;

at::Tensor silu_mul(const at::Tensor& gate, const at::Tensor& up) {
  KL_CHECK_VALUE(gate.is_cuda(), "gate: expected a CUDA tensor, got one on ", gate.device());
  KL_CHECK_VALUE(up.is_cuda(), "up: expected a CUDA tensor, got one on ", up.device());
  KL_CHECK_VALUE(up.device() == gate.device(), "up: expected the device of gate (",
                 gate.device(), "), got ", up.device());
  KL_CHECK_VALUE(gate.dim() >= 1, "gate: expected at least 1 dimension, got a 0-d tensor");
  KL_CHECK_VALUE(up.sizes() == gate.sizes(), "up: expected the shape of gate ", gate.sizes(),
                 ", got ", up.sizes());
  const int dtype = kl_dtype(gate, "gate");
  KL_CHECK_TYPE(up.scalar_type() == gate.scalar_type(), "up: expected the dtype of gate (",
                gate.scalar_type(), "), got ", up.scalar_type());

  const c10::cuda::CUDAGuard device_guard(gate.device());
  at::Tensor out = torch::empty(gate.sizes(), gate.options());  // contiguous
  if (out.numel() == 0) return out;  // nothing to compute, and an empty view's strides mean nothing
  const int64_t gate_rs = row_stride(gate, "gate");
  const int64_t up_rs = row_stride(up, "up");
  const int64_t n = gate.size(-1);
  const int64_t rows = gate.numel() / n;
  silu_mul_launch(gate.data_ptr(), up.data_ptr(), out.data_ptr(), rows, n, gate_rs, up_rs, dtype,
                  c10::cuda::getCurrentCUDAStream().stream());
  return out;
}

}  // namespace

KL_TORCH_LIBRARY(KL_NAMESPACE, m) {
  m.def("silu_mul(Tensor gate, Tensor up) -> Tensor");
}

KL_TORCH_LIBRARY_IMPL(KL_NAMESPACE, CUDA, m) {
  m.impl("silu_mul", &silu_mul);
}
