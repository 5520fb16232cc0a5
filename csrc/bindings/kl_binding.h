// What every binding shares: the op namespace macro, dtype codes and the row view of a tensor.
// Included by csrc/bindings/<kernel>.cpp only (torch headers; never by the plain CUDA files).
#pragma once

#include <torch/all.h>
#include <torch/library.h>

#include "kl_common.cuh"

#ifndef KL_NAMESPACE
#error "KL_NAMESPACE must be defined (grading/cuda.py passes -DKL_NAMESPACE=...)"
#endif

// TORCH_LIBRARY pastes its namespace argument into identifiers, which would paste the macro's
// name; one level of indirection expands KL_NAMESPACE first.
#define KL_TORCH_LIBRARY(ns, m) TORCH_LIBRARY(ns, m)
#define KL_TORCH_LIBRARY_IMPL(ns, k, m) TORCH_LIBRARY_IMPL(ns, k, m)

namespace kl {

inline int kl_dtype(const at::Tensor& t, const char* name) {
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
inline int64_t row_stride(const at::Tensor& t, const char* name) {
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

}  // namespace kl
