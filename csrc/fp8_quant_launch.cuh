// fp8_quantize, the host side: the launcher fp8_quant.h declares (input checks, dtype and
// vector-width dispatch, the per-token and per-tensor plans, the choice of kernel and block size).
// The reference (csrc/fp8_quant.cu) and the exercise (chapters/02_fp8_gemm/fp8_quant.cu) both
// include it at their end, so the exercise's kernels are launched exactly as the reference's are.
//
// The including file defines first, in its anonymous namespace:
//   kMaxThreads  the largest block launched (the kernels' __launch_bounds__)
//   kDependentLaunch  launch with programmatic dependent launch on sm_90+: every kernel calls
//       kl_wait_previous_grid() before its first global access (kl_common.cuh)
//   _fp8_quantize_kernel<T, VEC, PACKS, kPerToken, kExact>  one row per block of 32..kMaxThreads
//       threads (whole warps), PACKS = 1, 2, 4 (8 when VEC == 1) packs per thread
//   _fp8_quantize_streaming_kernel<T, VEC, kPerToken>  rows past kMaxThreads x 4 packs: one row
//       per block of kMaxThreads threads
//   _amax_kernel<T, VEC>  per tensor, before the quantize kernel: blocks of 256 threads, at most
//       8 per SM
// T: float, __half or __nv_bfloat16. VEC: kl_vec16<T> when x's row starts are 16-byte aligned and
// k and the row stride are multiples of it, else 1. Grids stop at kMaxGrid blocks; the kernels
// loop over the rows past it.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>

#include "fp8_quant.h"
#include "kl_common.cuh"

namespace {

// A grid-stride loop over rows covers anything past gridDim.x's limit.
constexpr int64_t kMaxGrid = 2147483647;

// Packs a thread keeps in registers, at most: 4 x 16 B on the vector path (a 32K-element bf16 row
// on 1024 threads), 8 single elements on the scalar path.
template <int VEC>
constexpr int kMaxPacks = VEC > 1 ? 4 : 8;
// ... and as many as rows up to kMaxThreads x this many packs get: 2 x 16 B of x per thread on
// the vector path, as Triton's plan (88-96% of copy at M >= 4096 on the H200). More threads per
// row, fewer registers each: at 4 packs the kernel held 59 registers and an SM 1024 threads; at 2,
// ~30 and 2048, and a block's reduction and stores overlap other blocks' loads.
template <int VEC>
constexpr int kRowPacks = VEC > 1 ? 2 : 8;

int sm_count() {
  int device = 0, sms = 0;
  KL_CUDA_CHECK(cudaGetDevice(&device));
  KL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

template <typename T, int VEC, int PACKS, bool kPerToken>
void launch_resident(const T* x, uint8_t* q, float* scale, const float* amax, int64_t rows, int k,
                     int64_t x_row_stride, int threads, cudaStream_t stream) {
  const int64_t blocks = std::min<int64_t>(rows, kMaxGrid);
  // kExact: every thread's packs inside the row and a block per row (every Llama row).
  kl_with_flag<(VEC > 1)>(k == threads * PACKS * VEC && rows <= kMaxGrid, [&](auto exact) {
    kl_launch(_fp8_quantize_kernel<T, VEC, PACKS, kPerToken, decltype(exact)::value>, static_cast<unsigned>(blocks),
              threads, stream, kDependentLaunch, x, q, scale, amax, rows, k, x_row_stride);
  });
}

template <typename T, int VEC, bool kPerToken>
void launch_rows(const T* x, uint8_t* q, float* scale, const float* amax, int64_t rows, int k,
                 int64_t x_row_stride, cudaStream_t stream) {
  constexpr int kPacks = kMaxPacks<VEC>;
  const int n_packs = std::max(1, k / VEC);
  if (n_packs > kMaxThreads * kPacks) {
    const int64_t blocks = std::min<int64_t>(rows, kMaxGrid);
    kl_launch(_fp8_quantize_streaming_kernel<T, VEC, kPerToken>, static_cast<unsigned>(blocks), kMaxThreads,
              stream, kDependentLaunch, x, q, scale, amax, rows, k, x_row_stride);
    return;
  }
  // Whole warps, kRowPacks packs per thread up to kMaxThreads threads, kPacks past that (bf16
  // K = 4096 -> 256 threads, 8192 -> 512, 16384 -> 1024 x 2 packs, 32768 -> 1024 x 4); short
  // rows get one warp and fewer packs.
  const int per_thread = n_packs <= kMaxThreads * kRowPacks<VEC> ? kRowPacks<VEC> : kPacks;
  const int threads = std::max(32, 32 * kl_cdiv(kl_cdiv(n_packs, per_thread), 32));
  switch (kl_next_pow2(kl_cdiv(n_packs, threads))) {
    case 1:
      return launch_resident<T, VEC, 1, kPerToken>(x, q, scale, amax, rows, k, x_row_stride, threads, stream);
    case 2:
      return launch_resident<T, VEC, 2, kPerToken>(x, q, scale, amax, rows, k, x_row_stride, threads, stream);
    case 4:
      return launch_resident<T, VEC, 4, kPerToken>(x, q, scale, amax, rows, k, x_row_stride, threads, stream);
    default:
      if constexpr (kPacks == 8) {
        return launch_resident<T, VEC, 8, kPerToken>(x, q, scale, amax, rows, k, x_row_stride, threads, stream);
      }
  }
}

template <typename T, int VEC>
void quantize(const T* x, uint8_t* q, float* scale, float* amax, int64_t rows, int k,
              int64_t x_row_stride, bool per_token, cudaStream_t stream) {
  if (per_token) {
    launch_rows<T, VEC, true>(x, q, scale, amax, rows, k, x_row_stride, stream);
  } else {
    // Pass 1: 8 blocks of 256 threads per SM (all the threads it holds) cover the tensor once,
    // 32-64 B in flight per thread: 64-128 KB per SM.
    const int64_t blocks = std::min<int64_t>(rows, 8 * int64_t(sm_count()));
    kl_launch(_amax_kernel<T, VEC>, static_cast<unsigned>(blocks), 256, stream,
              kDependentLaunch, x, amax, rows, k, x_row_stride);
    launch_rows<T, VEC, false>(x, q, scale, amax, rows, k, x_row_stride, stream);
  }
  KL_CUDA_CHECK(cudaGetLastError());
}

template <typename T>
void dispatch(const void* x_ptr, void* q_ptr, float* scale, float* amax, int64_t rows, int64_t k,
              int64_t x_row_stride, bool per_token, cudaStream_t stream) {
  const T* x = static_cast<const T*>(x_ptr);
  uint8_t* q = static_cast<uint8_t*>(q_ptr);
  // 16-byte packs need every row start of x 16-byte aligned, and q's rows (k bytes apart) aligned
  // to the pack's VEC bytes: k and the row stride multiples of VEC. K = 4096 or 8192 qualifies;
  // K = 1000 in bf16 (125 packs of 8) too; K = 37 runs one element per access.
  constexpr int kVec = kl_vec16<T>;
  const bool aligned = kl_is_aligned16(x) && k % kVec == 0 && (rows == 1 || x_row_stride % kVec == 0);
  if (aligned) {
    quantize<T, kVec>(x, q, scale, amax, rows, static_cast<int>(k), x_row_stride, per_token, stream);
  } else {
    quantize<T, 1>(x, q, scale, amax, rows, static_cast<int>(k), x_row_stride, per_token, stream);
  }
}

}  // namespace

extern "C" void fp8_quantize_launch(const void* x, void* q, float* scale, float* amax, int64_t rows,
                                    int64_t k, int64_t x_row_stride, bool per_token, int dtype,
                                    cudaStream_t stream) {
  if (rows < 0 || k < 0) throw std::invalid_argument("fp8_quantize: negative size");
  if (k > 2147483647) throw std::invalid_argument("fp8_quantize: rows longer than 2^31 - 1 elements");
  if (!per_token && amax == nullptr) throw std::invalid_argument("fp8_quantize: per tensor needs the amax workspace");
  if (rows == 0 || k == 0) return;  // a grid with a zero dimension is a launch error
  switch (dtype) {
    case KL_F32:
      return dispatch<float>(x, q, scale, amax, rows, k, x_row_stride, per_token, stream);
    case KL_F16:
      return dispatch<__half>(x, q, scale, amax, rows, k, x_row_stride, per_token, stream);
    case KL_BF16:
      return dispatch<__nv_bfloat16>(x, q, scale, amax, rows, k, x_row_stride, per_token, stream);
  }
  throw std::invalid_argument("fp8_quantize: unknown dtype code " + std::to_string(dtype));
}
