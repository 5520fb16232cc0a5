// Registers silu_mul(Tensor gate, Tensor up) -> Tensor as a torch op in the namespace the loader
// passes as KL_NAMESPACE (grading/cuda.py: one per build, so a student's build and the reference
// can live in one process). The kernel itself is in a plain CUDA file behind silu_mul_launch.
#include <torch/all.h>
#include <torch/library.h>

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "kl_common.cuh"
#include "silu_mul.h"

#ifndef KL_NAMESPACE
#error "KL_NAMESPACE must be defined (grading/cuda.py passes -DKL_NAMESPACE=...)"
#endif

// TORCH_LIBRARY pastes its namespace argument into identifiers, which would paste the macro's
// name; one level of indirection expands KL_NAMESPACE first.
#define KL_TORCH_LIBRARY(ns, m) TORCH_LIBRARY(ns, m)
#define KL_TORCH_LIBRARY_IMPL(ns, k, m) TORCH_LIBRARY_IMPL(ns, k, m)

namespace {

int kl_dtype(const at::Tensor& t, const char* name) {
  switch (t.scalar_type()) {
    case at::kFloat:
      return KL_F32;
    case at::kHalf:
      return KL_F16;
    case at::kBFloat16:
      return KL_BF16;
    default:
      TORCH_CHECK_TYPE(false, name, ": expected dtype float32, float16 or bfloat16, got ",
                       t.scalar_type());
  }
}

// The stride between consecutive rows of t seen as [rows, N]: the leading dims must collapse
// into one (dims of size 1 place no constraint). A [B, S, N] slice of a [B, S, 2N] tensor
// collapses (row stride 2N); a transposed view does not.
int64_t row_stride(const at::Tensor& t, const char* name) {
  const int64_t n = t.size(-1);
  TORCH_CHECK_VALUE(n <= 1 || t.stride(-1) == 1, name,
                    ": the last dimension must be contiguous (stride 1), got strides ", t.strides());
  int64_t stride = -1;    // the innermost leading dim's stride: the row stride
  int64_t expected = -1;  // what the next outer dim's stride must be to collapse into it
  for (int64_t d = t.dim() - 2; d >= 0; --d) {
    if (t.size(d) == 1) continue;
    if (stride < 0) {
      stride = t.stride(d);
    } else {
      TORCH_CHECK_VALUE(t.stride(d) == expected, name,
                        ": the leading dimensions must collapse into rows with one row stride, got "
                        "shape ", t.sizes(), " and strides ", t.strides(), "; call .contiguous() first");
    }
    expected = t.stride(d) * t.size(d);
  }
  return stride < 0 ? n : stride;  // a single row: any stride will do
}

at::Tensor silu_mul(const at::Tensor& gate, const at::Tensor& up) {
  TORCH_CHECK_VALUE(gate.is_cuda(), "gate: expected a CUDA tensor, got one on ", gate.device());
  TORCH_CHECK_VALUE(up.is_cuda(), "up: expected a CUDA tensor, got one on ", up.device());
  TORCH_CHECK_VALUE(up.device() == gate.device(), "up: expected the device of gate (",
                    gate.device(), "), got ", up.device());
  TORCH_CHECK_VALUE(gate.dim() >= 1, "gate: expected at least 1 dimension, got a 0-d tensor");
  TORCH_CHECK_VALUE(up.sizes() == gate.sizes(), "up: expected the shape of gate ", gate.sizes(),
                    ", got ", up.sizes());
  const int dtype = kl_dtype(gate, "gate");
  TORCH_CHECK_TYPE(up.scalar_type() == gate.scalar_type(), "up: expected the dtype of gate (",
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
