// rmsnorm and fused_add_rmsnorm, the host side: the launchers rmsnorm.h declares (input checks,
// dtype and vector-width dispatch, the choice of kernel, block size and lanes per row). The
// reference (csrc/rmsnorm.cu) and the exercise (chapters/01_rmsnorm/rmsnorm.cu) both include it at
// their end, so the exercise's kernels are launched exactly as the reference's are.
//
// The including file defines first, in its anonymous namespace:
//   kMaxThreads                              the largest block launched (the kernels' __launch_bounds__)
//   kDependentLaunch                         launch with programmatic dependent launch on sm_90+:
//                                            every kernel calls kl_wait_previous_grid() before
//                                            its first global access (kl_common.cuh)
//   _rmsnorm_kernel<T, VEC, PACKS, kAdd, kBlockRow, kWeightEarly, kExact>
//                                            PACKS = 1, 2, 4 (8 when VEC == 1) packs per lane and
//                                            threads_per_row lanes per row: 1..32 (a power of two)
//                                            in blocks of kRowsBlockThreads, or (kBlockRow) one row
//                                            per block of 128..kMaxThreads threads (whole warps);
//                                            its last argument is 1 / n; kWeightEarly: the weight
//                                            loaded with the row rather than after the reduction;
//                                            kExact (kBlockRow, VEC > 1, one row per block): every
//                                            lane's packs inside the row, no tail
//   _rmsnorm_streaming_kernel<T, VEC, kAdd>  longer rows: one row per block of kMaxThreads threads
// T: float, __half or __nv_bfloat16. VEC: kl_vec16<T> when every row start is 16-byte aligned,
// else 1. Grids stop at kMaxGrid blocks; the kernels loop over the rows past it.
#pragma once

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kl_common.cuh"
#include "rmsnorm.h"

namespace {

// Block size when a block holds several short rows: 8 blocks fill an SM's 2048 thread slots.
constexpr int kRowsBlockThreads = 256;
// A grid-stride loop over rows covers anything past gridDim.x's limit.
constexpr int64_t kMaxGrid = 2147483647;
// Up to this many rows (decode, small batches: about a block per SM or fewer), long rows get
// kFewRowPacks packs per thread (below) and more threads: more warps issuing a row's loads, and
// room for the reference kernel to load the weight with the row rather than after the reduction.
// Not more: with 4096 (H200, same run as a copy of the same bytes) rmsnorm at 4096 x 8192 fell
// from 0.98x that copy to 0.73x, at 4096 x 4096 from 0.90x to 0.85x, whether the weight was held
// across the reduction or read after it (benchmarks/h200_session9/call5, call6).
constexpr int64_t kFewRows = 1024;

// Packs per thread at few rows, where a block's time is one warp's path from its first load to
// its last store: the shorter each warp's share of the row, the sooner it is done. rmsnorm: 1 (a
// row of 4096 bf16 over 512 threads); on an H200 at 1-256 x 4096 1.75-3.08 µs against 1.86-3.24
// with 2 packs, and level with torch.compile (benchmarks/h200_session11, call 3). The fused kernel
// loads and stores twice as much per pack, and ran slower with 1 (1.95 against 1.75 µs at 1 x 4096).
// At N = 8192 one pack is 1024 threads: two such blocks share an SM only at 32 registers or fewer,
// which the one-pack kernel keeps by computing its offsets within a row in 32 bits (38 registers
// with 64-bit offsets: 256 x 8192 took two waves, 5.15 µs against 4.03; h200_session12, call 1).
template <bool kAdd>
constexpr int kFewRowPacks = kAdd ? 2 : 1;
// Packs per thread past kFewRows, the weight read after the reduction: rmsnorm 2 (a row of 4096
// bf16 over 256 threads, as the Triton rung's 8 warps; 32 registers, 8 blocks per SM), 4096 x 4096
// in 19.2 µs against 19.6 with 4 packs over 128 threads (H200, same run: h200_session12, call 1);
// fused 4.
template <bool kAdd>
constexpr int kManyRowPacks = kAdd ? 4 : 2;

// Packs (VEC-element accesses) a thread keeps in registers, at most: 4 x 16 B = 64 B of x per
// thread on the vector path. A bf16 row of 8192 then takes 256 threads; at ~64 registers an SM
// holds 1024 threads, 64 KB of loads in flight, 2.5x what Little's law asks for. The scalar path
// (one element per pack) keeps up to 8.
template <int VEC>
constexpr int kMaxPacks = VEC > 1 ? 4 : 8;

template <typename T, int VEC, int PACKS, bool kAdd>
void launch_resident(const T* x, const T* residual, const T* weight, T* y, T* h, int64_t rows,
                     int n, int64_t x_row_stride, int64_t residual_row_stride, float eps,
                     int threads, int threads_per_row, cudaStream_t stream) {
  const int rows_per_block = threads / threads_per_row;
  const int64_t blocks = std::min<int64_t>(kl_cdiv<int64_t>(rows, rows_per_block), kMaxGrid);
  const float inv_n = 1.0f / static_cast<float>(n);
  const unsigned grid = static_cast<unsigned>(blocks);
  if (threads_per_row == threads) {  // one row per block
    // The weight loaded with the row at few rows (see _rmsnorm_kernel); never with 4 packs, which
    // would spill holding it too (and so that kernel is not even instantiated).
    constexpr bool kEarlyFits = PACKS <= 2;
    // kExact: the plan covers the row exactly (n a multiple of VEC, every lane's PACKS packs inside
    // it; every Llama row at every plan) and a block gets one row: no guards, no tail, no row loop.
    // rmsnorm only: without the guards ptxas issued the fused kernel's weight loads after the
    // x + residual adds, which wait for x and the residual (64 x 4096 2.85 µs against 2.62 with
    // them; h200_session12, call 4).
    constexpr bool kExactFits = VEC > 1 && !kAdd;
    const bool exact = n == threads * PACKS * VEC && rows <= kMaxGrid;
    kl_with_flag<kEarlyFits>(rows <= kFewRows, [&](auto early) {
      kl_with_flag<kExactFits>(exact, [&](auto exact_fit) {
        kl_launch(_rmsnorm_kernel<T, VEC, PACKS, kAdd, true, decltype(early)::value, decltype(exact_fit)::value>,
                  grid, threads, stream, kDependentLaunch, x, residual, weight, y, h, rows, n, x_row_stride,
                  residual_row_stride, eps, threads_per_row, inv_n);
      });
    });
  } else {  // short rows, several per block: the weight with the row at 1-2 packs
    kl_launch(_rmsnorm_kernel<T, VEC, PACKS, kAdd, false, (PACKS <= 2), false>, grid, threads, stream, kDependentLaunch,
              x, residual, weight, y, h, rows, n, x_row_stride, residual_row_stride, eps, threads_per_row, inv_n);
  }
}

// Picks the kernel, the block size and the lanes per row from n.
template <typename T, int VEC, bool kAdd>
void launch_rows(const T* x, const T* residual, const T* weight, T* y, T* h, int64_t rows, int n,
                 int64_t x_row_stride, int64_t residual_row_stride, float eps, cudaStream_t stream) {
  constexpr int kPacks = kMaxPacks<VEC>;
  const int n_packs = std::max(1, n / VEC);  // for sizing; the tail rides along
  int threads, threads_per_row, packs;
  if (n_packs <= 32 * kPacks) {
    // Short rows (up to 1024 bf16 / 512 fp32 elements): a group of lanes per row, sized for 2
    // packs per lane (32 B of x in flight per thread, where 1 pack would leave an SM ~26 KB
    // short of Little's law); a 128-element bf16 row is 16 packs -> 8 lanes, 32 rows per block
    // of 256. No shared memory, no barrier.
    threads_per_row = std::min(32, kl_next_pow2(kl_cdiv(n_packs, 2)));
    packs = kl_next_pow2(kl_cdiv(n_packs, threads_per_row));
    threads = kRowsBlockThreads;
  } else if (n_packs <= kMaxThreads * kPacks) {
    // Long rows: a block per row, whole warps for the block reduction and at least 4 of them,
    // at most kPacks packs per thread (bf16 N = 32768 -> 1024 threads). Below that, the plan's
    // packs per thread and as many threads as that takes, up to kMaxThreads: kFewRowPacks at
    // few rows (N = 4096: rmsnorm 512 threads of 1 pack, fused 256 of 2), kManyRowPacks past
    // them (rmsnorm 256 of 2, fused 128 of 4).
    threads = std::max(128, 32 * kl_cdiv(kl_cdiv(n_packs, kPacks), 32));
    const int plan_packs = rows <= kFewRows ? kFewRowPacks<kAdd> : kManyRowPacks<kAdd>;
    threads = std::max(threads, std::min(kMaxThreads, 32 * kl_cdiv(kl_cdiv(n_packs, plan_packs), 32)));
    packs = kl_next_pow2(kl_cdiv(n_packs, threads));
    threads_per_row = threads;
  } else {
    const int64_t blocks = std::min<int64_t>(rows, kMaxGrid);
    kl_launch(_rmsnorm_streaming_kernel<T, VEC, kAdd>, static_cast<unsigned>(blocks), kMaxThreads, stream,
              kDependentLaunch, x, residual, weight, y, h, rows, n, x_row_stride, residual_row_stride, eps);
    return;
  }
  switch (packs) {
    case 1:
      launch_resident<T, VEC, 1, kAdd>(x, residual, weight, y, h, rows, n, x_row_stride,
                                       residual_row_stride, eps, threads, threads_per_row, stream);
      break;
    case 2:
      launch_resident<T, VEC, 2, kAdd>(x, residual, weight, y, h, rows, n, x_row_stride,
                                       residual_row_stride, eps, threads, threads_per_row, stream);
      break;
    case 4:
      launch_resident<T, VEC, 4, kAdd>(x, residual, weight, y, h, rows, n, x_row_stride,
                                       residual_row_stride, eps, threads, threads_per_row, stream);
      break;
    default:
      if constexpr (kPacks == 8) {
        launch_resident<T, VEC, 8, kAdd>(x, residual, weight, y, h, rows, n, x_row_stride,
                                         residual_row_stride, eps, threads, threads_per_row, stream);
      }
      break;
  }
  KL_CUDA_CHECK(cudaGetLastError());
}

template <typename T, bool kAdd>
void dispatch_rmsnorm(const void* x_ptr, const void* residual_ptr, const void* weight_ptr,
                      void* y_ptr, void* h_ptr, int64_t rows, int64_t n, int64_t x_row_stride,
                      int64_t residual_row_stride, float eps, cudaStream_t stream) {
  const T* x = static_cast<const T*>(x_ptr);
  const T* residual = static_cast<const T*>(residual_ptr);
  const T* weight = static_cast<const T*>(weight_ptr);
  T* y = static_cast<T*>(y_ptr);
  T* h = static_cast<T*>(h_ptr);
  // 16-byte packs need every row start 16-byte aligned in every tensor: the base pointers, and
  // with more than one row the row strides, y's and h's being n. A Llama row (n = 4096 or 8192)
  // always qualifies; n = 4097 or a slice one element off runs one element per access.
  constexpr int kVec = kl_vec16<T>;
  const bool pointers_ok = kl_is_aligned16(x) && kl_is_aligned16(weight) && kl_is_aligned16(y) &&
                           (!kAdd || (kl_is_aligned16(residual) && kl_is_aligned16(h)));
  const bool strides_ok = rows == 1 || (n % kVec == 0 && x_row_stride % kVec == 0 &&
                                        (!kAdd || residual_row_stride % kVec == 0));
  if (pointers_ok && strides_ok) {
    launch_rows<T, kVec, kAdd>(x, residual, weight, y, h, rows, static_cast<int>(n), x_row_stride,
                               residual_row_stride, eps, stream);
  } else {
    launch_rows<T, 1, kAdd>(x, residual, weight, y, h, rows, static_cast<int>(n), x_row_stride,
                            residual_row_stride, eps, stream);
  }
}

template <bool kAdd>
void rmsnorm_any(const void* x, const void* residual, const void* weight, void* y, void* h,
                 int64_t rows, int64_t n, int64_t x_row_stride, int64_t residual_row_stride,
                 float eps, int dtype, cudaStream_t stream) {
  // A grid with a zero dimension is a launch error; an empty tensor is simply done.
  if (rows <= 0 || n <= 0) return;
  if (n > 2147483647) throw std::invalid_argument("rmsnorm: rows longer than 2^31 - 1 elements");
  switch (dtype) {
    case KL_F32:
      return dispatch_rmsnorm<float, kAdd>(x, residual, weight, y, h, rows, n, x_row_stride,
                                           residual_row_stride, eps, stream);
    case KL_F16:
      return dispatch_rmsnorm<__half, kAdd>(x, residual, weight, y, h, rows, n, x_row_stride,
                                            residual_row_stride, eps, stream);
    case KL_BF16:
      return dispatch_rmsnorm<__nv_bfloat16, kAdd>(x, residual, weight, y, h, rows, n, x_row_stride,
                                                   residual_row_stride, eps, stream);
  }
  throw std::invalid_argument("rmsnorm: unknown dtype code " + std::to_string(dtype));
}

}  // namespace

extern "C" void rmsnorm_launch(const void* x, const void* weight, void* y, int64_t rows, int64_t n,
                               int64_t x_row_stride, float eps, int dtype, cudaStream_t stream) {
  rmsnorm_any<false>(x, nullptr, weight, y, nullptr, rows, n, x_row_stride, 0, eps, dtype, stream);
}

extern "C" void fused_add_rmsnorm_launch(const void* x, const void* residual, const void* weight,
                                         void* y, void* h, int64_t rows, int64_t n,
                                         int64_t x_row_stride, int64_t residual_row_stride,
                                         float eps, int dtype, cudaStream_t stream) {
  rmsnorm_any<true>(x, residual, weight, y, h, rows, n, x_row_stride, residual_row_stride, eps,
                    dtype, stream);
}
