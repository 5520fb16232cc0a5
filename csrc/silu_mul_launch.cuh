// silu_mul, the host side: the launcher silu_mul.h declares (the dtype dispatch, the flattening
// of contiguous rows, the vector-width choice and the row kernel's grid). The reference
// (csrc/silu_mul.cu) and the exercise (chapters/00_speed_of_light/silu_mul.cu) both include it at
// their end, so the exercise's kernel is launched exactly as the reference's row kernel is.
//
// The including file defines first, in its anonymous namespace:
//   kUnroll, kMaxThreads      packs per thread per row, and the largest block
//   _silu_mul_kernel<T, VEC>  grid (column blocks, min(rows, 65535)); each block covers
//                             kUnroll * blockDim.x packs of a row (blockDim.x a multiple of 32, at
//                             most kMaxThreads) and strides over rows by gridDim.y
// T: float, __half or __nv_bfloat16. VEC: kl_vec16<T> when every row start is 16-byte aligned,
// else 1. The reference also has a flat kernel for contiguous tensors: it defines
// KL_SILU_MUL_HAS_FLAT_PATH and launch_silu_mul_flat_path(gate, up, out, rows, n, vector_ok,
// stream), which returns whether it launched, and the row kernel runs only when it did not.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kl_common.cuh"
#include "silu_mul.h"

namespace {

template <typename T, int VEC>
void launch_silu_mul(const T* gate, const T* up, T* out, int64_t rows, int64_t n,
                     int64_t gate_row_stride, int64_t up_row_stride, cudaStream_t stream) {
  const int64_t n_packs = n / VEC;
  // Column blocks per row: as few as kMaxThreads threads allow (at least one, for the tail)...
  const int64_t col_blocks = std::max<int64_t>(1, kl_cdiv<int64_t>(n_packs, kMaxThreads * kUnroll));
  // ...then the fewest warps that cover the row in that many blocks, so the row splits evenly:
  // a 14336-wide bf16 half of a fused [tokens, 2 x 14336] projection is 1792 packs per row ->
  // at kUnroll = 2, 4 blocks of 224 threads, rather than 4 of 256 with half of the last one idle.
  const int64_t threads =
      32 * std::max<int64_t>(1, kl_cdiv<int64_t>(kl_cdiv<int64_t>(n_packs, col_blocks * kUnroll), 32));
  // x: column blocks; y: one block row per tensor row, capped at gridDim.y's hardware limit of
  // 65535 (the kernel loops over the rest).
  const dim3 grid(static_cast<unsigned>(col_blocks),
                  static_cast<unsigned>(std::min<int64_t>(rows, 65535)));
  _silu_mul_kernel<T, VEC><<<grid, static_cast<unsigned>(threads), 0, stream>>>(
      gate, up, out, rows, n, gate_row_stride, up_row_stride);
  KL_CUDA_CHECK(cudaGetLastError());
}

template <typename T>
void dispatch_silu_mul(const void* gate_ptr, const void* up_ptr, void* out_ptr, int64_t rows,
                       int64_t n, int64_t gate_row_stride, int64_t up_row_stride,
                       cudaStream_t stream) {
  const T* gate = static_cast<const T*>(gate_ptr);
  const T* up = static_cast<const T*>(up_ptr);
  T* out = static_cast<T*>(out_ptr);
  // Rows packed back to back in both inputs (or a single row): all three tensors are flat
  // arrays, so run them as one row of rows * n elements. The vector path then needs only
  // aligned base pointers, whatever n is, and the grid is sized by elements, not rows.
  if (rows == 1 || (gate_row_stride == n && up_row_stride == n)) {
    n *= rows;
    rows = 1;
    gate_row_stride = up_row_stride = n;
  }
  // 16-byte accesses need every row start aligned: the base pointers, and (with more than one
  // row) every row stride, out's being n. gate/up as the halves of a [rows, 2N] tensor qualify
  // when N is a multiple of the pack.
  constexpr int kVec = kl_vec16<T>;
  const bool vector_ok =
      kl_is_aligned16(gate) && kl_is_aligned16(up) && kl_is_aligned16(out) &&
      (rows == 1 || (n % kVec == 0 && gate_row_stride % kVec == 0 && up_row_stride % kVec == 0));
#ifdef KL_SILU_MUL_HAS_FLAT_PATH
  // csrc/silu_mul.cu's flat 32-bit kernel, for a single row of fewer than 2^31 elements.
  if (launch_silu_mul_flat_path(gate, up, out, rows, n, vector_ok, stream)) return;
#endif
  if (vector_ok) {
    launch_silu_mul<T, kVec>(gate, up, out, rows, n, gate_row_stride, up_row_stride, stream);
  } else {
    launch_silu_mul<T, 1>(gate, up, out, rows, n, gate_row_stride, up_row_stride, stream);
  }
}

}  // namespace

extern "C" void silu_mul_launch(const void* gate, const void* up, void* out, int64_t rows,
                                int64_t n, int64_t gate_row_stride, int64_t up_row_stride,
                                int dtype, cudaStream_t stream) {
  // A grid with a zero dimension is a launch error; an empty tensor is simply done.
  if (rows <= 0 || n <= 0) return;
  switch (dtype) {
    case KL_F32:
      return dispatch_silu_mul<float>(gate, up, out, rows, n, gate_row_stride, up_row_stride, stream);
    case KL_F16:
      return dispatch_silu_mul<__half>(gate, up, out, rows, n, gate_row_stride, up_row_stride, stream);
    case KL_BF16:
      return dispatch_silu_mul<__nv_bfloat16>(gate, up, out, rows, n, gate_row_stride,
                                              up_row_stride, stream);
  }
  throw std::invalid_argument("silu_mul_launch: unknown dtype code " + std::to_string(dtype));
}
