// What every binding shares: the op namespace macro, dtype codes and the row view of a tensor.
// Included by csrc/bindings/<kernel>.cpp only (torch headers; never by the plain CUDA files).
#pragma once

#include <torch/all.h>
#include <torch/library.h>

#include <cstdio>
#include <string>
#include <type_traits>

#include "kl_common.cuh"

#ifndef KL_NAMESPACE
#error "KL_NAMESPACE must be defined (grading/cuda.py passes -DKL_NAMESPACE=...)"
#endif

// TORCH_LIBRARY pastes its namespace argument into identifiers, which would paste the macro's
// name; one level of indirection expands KL_NAMESPACE first.
#define KL_TORCH_LIBRARY(ns, m) TORCH_LIBRARY(ns, m)
#define KL_TORCH_LIBRARY_IMPL(ns, k, m) TORCH_LIBRARY_IMPL(ns, k, m)

// The bindings' checks: KL_CHECK_VALUE raises ValueError, KL_CHECK_TYPE TypeError, each with a
// message joined from its arguments (text, integers, doubles, shapes, devices, dtypes) by
// kl::msg, which formats numbers itself and hands torch one finished string. Why not
// TORCH_CHECK_VALUE(cond, "got ", n) directly: with torch 2.11.0+cu130 (on an H200) a failed
// check whose message streams a number through std::ostream, as c10::str does, crashed the
// process with a segmentation fault instead of raising, in a minimal extension built by torch's
// own loader too; messages of text alone raised (benchmarks/raw_op_errors.py,
// benchmarks/h200_session9/call1/probe.txt). A practitioner calling an op directly gets the error.
#define KL_CHECK_VALUE(cond, ...) TORCH_CHECK_VALUE(cond, ::kl::msg(__VA_ARGS__))
#define KL_CHECK_TYPE(cond, ...) TORCH_CHECK_TYPE(cond, ::kl::msg(__VA_ARGS__))

namespace kl {

inline std::string piece(const char* s) { return s; }
inline std::string piece(const std::string& s) { return s; }
template <typename I, std::enable_if_t<std::is_integral_v<I>, int> = 0>
std::string piece(I v) {
  return std::to_string(v);
}
inline std::string piece(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
inline std::string piece(c10::IntArrayRef shape) {  // sizes() and strides(), as torch prints them
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}
inline std::string piece(const c10::Device& d) { return d.str(); }
inline std::string piece(at::ScalarType t) { return c10::toString(t); }

template <typename... Args>
std::string msg(const Args&... args) {
  std::string s;
  ((s += piece(args)), ...);
  return s;
}

inline int kl_dtype(const at::Tensor& t, const char* name) {
  switch (t.scalar_type()) {
    case at::kFloat:
      return KL_F32;
    case at::kHalf:
      return KL_F16;
    case at::kBFloat16:
      return KL_BF16;
    default:
      KL_CHECK_TYPE(false, name, ": expected dtype float32, float16 or bfloat16, got ",
                    t.scalar_type());
  }
}

// The stride between consecutive rows of t seen as [rows, N]: the leading dims must collapse
// into one (dims of size 1 place no constraint). A [B, S, N] slice of a [B, S, 2N] tensor
// collapses (row stride 2N); a transposed view does not.
inline int64_t row_stride(const at::Tensor& t, const char* name) {
  const int64_t n = t.size(-1);
  KL_CHECK_VALUE(n <= 1 || t.stride(-1) == 1, name,
                    ": the last dimension must be contiguous (stride 1), got strides ", t.strides());
  int64_t stride = -1;    // the innermost leading dim's stride: the row stride
  int64_t expected = -1;  // what the next outer dim's stride must be to collapse into it
  for (int64_t d = t.dim() - 2; d >= 0; --d) {
    if (t.size(d) == 1) continue;
    if (stride < 0) {
      stride = t.stride(d);
    } else {
      KL_CHECK_VALUE(t.stride(d) == expected, name,
                        ": the leading dimensions must collapse into rows with one row stride, got "
                        "shape ", t.sizes(), " and strides ", t.strides(), "; call .contiguous() first");
    }
    expected = t.stride(d) * t.size(d);
  }
  return stride < 0 ? n : stride;  // a single row: any stride will do
}

}  // namespace kl
