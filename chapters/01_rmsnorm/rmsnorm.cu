// Exercise: the CUDA C++ rung of rmsnorm and fused_add_rmsnorm.
//   rmsnorm:           y = x / sqrt(mean(x^2) + eps) * weight, over each row, statistics in fp32
//   fused_add_rmsnorm: h = x + residual (rounded to the dtype, stored), y = rmsnorm(h)
//
// Write group_sum, block_sum and the bodies of the two kernels below; the launchers underneath
// already pick the kernel, the block size and the lanes per row. Grade with
//     python -m grading check rmsnorm --rung cuda
//     python -m grading check fused_add_rmsnorm --rung cuda
// (without a GPU the grader compiles this file with nvcc and shows its register report).
//
// Napkin math, H200, 16384 tokens x 8192 bf16: x read + y written = 537 MB; at 4.27 TB/s that is
// 126 us, against ~4 FLOPs per element. Fast means: x crosses HBM once (keep the row in
// registers between the reduction and the normalization), 16-byte accesses, and enough loads in
// flight (Little's law: ~26 KB per SM on an H200).
#include <algorithm>
#include <type_traits>

#include "kl_common.cuh"
#include "rmsnorm.h"

namespace {

// Threads per block for long rows, at most, and the kernels' __launch_bounds__ (64 registers).
constexpr int kMaxThreads = 1024;
// Block size when a block holds several short rows.
constexpr int kRowsBlockThreads = 256;
// Grid size cap; the kernels loop over any rows past it.
constexpr int64_t kMaxGrid = 2147483647;

// Packs (VEC-element accesses) a thread keeps in registers, at most: 4 x 16 B on the vector
// path, 8 single elements on the scalar path.
template <int VEC>
constexpr int kMaxPacks = VEC > 1 ? 4 : 8;

// Given: a + b for a whole pack, each sum rounded once to T (what torch's x + residual gives).
// fp16 and bf16 go two at a time through __hadd2, which needs fewer registers than converting
// both operands to fp32 first.
template <typename T, int VEC>
__device__ __forceinline__ KlPack<T, VEC> add_rn(const KlPack<T, VEC>& a, const KlPack<T, VEC>& b) {
  KlPack<T, VEC> out;
  if constexpr (std::is_same_v<T, float> || VEC % 2 != 0) {
#pragma unroll
    for (int j = 0; j < VEC; ++j) out.v[j] = from_float<T>(to_float(a.v[j]) + to_float(b.v[j]));
  } else {
    using T2 = std::conditional_t<std::is_same_v<T, __half>, __half2, __nv_bfloat162>;
    const T2* a2 = reinterpret_cast<const T2*>(a.v);
    const T2* b2 = reinterpret_cast<const T2*>(b.v);
    T2* out2 = reinterpret_cast<T2*>(out.v);
#pragma unroll
    for (int j = 0; j < VEC / 2; ++j) out2[j] = __hadd2(a2[j], b2[j]);
  }
  return out;
}

constexpr int next_pow2(int v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

// Sum of v over an aligned group of `width` lanes of a warp (width a power of two, at most 32),
// returned to every lane of the group. All 32 lanes of the warp call it.
__device__ __forceinline__ float group_sum(float v, int width) {
  // TODO: a butterfly: for offset = width / 2, width / 4, ..., 1:
  //   v += __shfl_xor_sync(0xffffffffu, v, offset);
  // Lane l exchanges with lane l ^ offset, which stays inside l's aligned group of `width`.
  return v;
}

// Sum of v over the whole block (blockDim.x a multiple of 32), returned to every thread.
// warp_sums: 32 floats of shared memory.
__device__ __forceinline__ float block_sum(float v, float* warp_sums) {
  // TODO:
  //  1. v = group_sum(v, 32): each warp's total, on every lane of the warp.
  //  2. Lane 0 of warp w writes it to warp_sums[w]; __syncthreads().
  //  3. Every warp reads warp_sums[lane] (0 for lane >= blockDim.x / 32) and group_sum()s it:
  //     every thread now holds the block's total.
  //  4. __syncthreads() again before returning, so no warp overwrites warp_sums (next row)
  //     while another still reads it.
  return v;
}

// One row per group of `threads_per_row` lanes, the row held in registers.
// Lane l of a row owns packs p = l + k * threads_per_row for k = 0 .. PACKS - 1 (p < n / VEC).
template <typename T, int VEC, int PACKS, bool kAdd>
__global__ void __launch_bounds__(kMaxThreads) _rmsnorm_kernel(
    const T* __restrict__ x,         // row r at x + r * x_row_stride, n contiguous elements
    const T* __restrict__ residual,  // row r at residual + r * residual_row_stride (kAdd only)
    const T* __restrict__ weight,    // [n]
    T* __restrict__ y,               // [rows, n] contiguous
    T* __restrict__ h,               // [rows, n] contiguous, x + residual (kAdd only)
    int64_t rows,                    // rows to normalize
    int n,                           // elements per row
    int64_t x_row_stride,            // elements; a multiple of VEC unless rows == 1
    int64_t residual_row_stride,     // elements; a multiple of VEC unless rows == 1
    float eps,                       // added to the mean of squares
    int threads_per_row) {           // a power of two <= 32 (rows share a block) or blockDim.x
  // TODO: write this kernel, then delete the next line (it tells the grader the stub is unwritten).
#define KL_STUB_NOT_IMPLEMENTED 1
  //
  // using Pack = KlPack<T, VEC>;  (16 bytes on the vector path: one load instruction)
  // lane = threadIdx.x % threads_per_row; rows_per_block = blockDim.x / threads_per_row.
  // Loop: for (int64_t first = blockIdx.x * rows_per_block; first < rows;
  //            first += gridDim.x * rows_per_block), all in int64_t (offsets pass 2^31).
  //   `first` is the same for the whole block, so every thread reaches every shuffle and
  //   barrier. row = first + threadIdx.x / threads_per_row; active = row < rows.
  //  1. Load this lane's packs of the row into Pack v[PACKS] (only when active && p < n / VEC),
  //     all of them before using any. kAdd: also load residual's packs, v[k] = add_rn(v[k], r),
  //     store v[k] to h's row (h + row * n).
  //  2. ss = sum of to_float(element)^2 over the lane's packs, in fp32.
  //     The tail, when VEC > 1: the last n % VEC elements belong to no pack. Lanes take them one
  //     at a time (i = lane; i < n % VEC; i += threads_per_row), add them to ss (kAdd: form and
  //     store h for them too).
  //  3. ss = threads_per_row <= 32 ? group_sum(ss, threads_per_row) : block_sum(ss, warp_sums)
  //     (declare `__shared__ float warp_sums[32];` at the top), rstd = rsqrtf(ss / n + eps).
  //  4. y = to_float(v) * rstd * to_float(weight), from registers, weight read as packs too;
  //     store with from_float<T>(). The tail: read x (or the h this thread stored) again.
}

// Rows too long for registers: one block per row, two passes over it.
template <typename T, int VEC, bool kAdd>
__global__ void __launch_bounds__(kMaxThreads) _rmsnorm_streaming_kernel(
    const T* __restrict__ x,         // row r at x + r * x_row_stride
    const T* __restrict__ residual,  // row r at residual + r * residual_row_stride (kAdd only)
    const T* __restrict__ weight,    // [n]
    T* __restrict__ y,               // [rows, n] contiguous
    T* __restrict__ h,               // [rows, n] contiguous (kAdd only)
    int64_t rows,
    int n,
    int64_t x_row_stride,            // elements; a multiple of VEC unless rows == 1
    int64_t residual_row_stride,     // elements; a multiple of VEC unless rows == 1
    float eps) {
  // TODO: for (int64_t row = blockIdx.x; row < rows; row += gridDim.x):
  //  1. Pass 1: for (int p = threadIdx.x; p < n / VEC; p += blockDim.x) load pack p of x
  //     (kAdd: add residual's, store to h), accumulate the squares; then the tail.
  //  2. rstd from block_sum(ss, warp_sums).
  //  3. Pass 2: the same loop, reading x again (kAdd: the h this thread stored in pass 1) and
  //     the weight, writing y; then the tail.
}

template <typename T, int VEC, int PACKS, bool kAdd>
void launch_resident(const T* x, const T* residual, const T* weight, T* y, T* h, int64_t rows,
                     int n, int64_t x_row_stride, int64_t residual_row_stride, float eps,
                     int threads, int threads_per_row, cudaStream_t stream) {
  const int rows_per_block = threads / threads_per_row;
  const int64_t blocks = std::min<int64_t>(kl_cdiv<int64_t>(rows, rows_per_block), kMaxGrid);
  _rmsnorm_kernel<T, VEC, PACKS, kAdd><<<static_cast<unsigned>(blocks), threads, 0, stream>>>(
      x, residual, weight, y, h, rows, n, x_row_stride, residual_row_stride, eps, threads_per_row);
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
    threads_per_row = std::min(32, next_pow2(kl_cdiv(n_packs, 2)));
    packs = next_pow2(kl_cdiv(n_packs, threads_per_row));
    threads = kRowsBlockThreads;
  } else if (n_packs <= kMaxThreads * kPacks) {
    // Long rows: a block per row, kPacks packs per thread (bf16 N = 4096 -> 128 threads, 8192
    // -> 256, 32768 -> 1024), whole warps for the block reduction, and at least 4 of them: a
    // 2048-element bf16 row gets 128 threads x 2 packs rather than 64 x 4, its loads issued by
    // twice as many warps.
    threads = std::max(128, 32 * kl_cdiv(kl_cdiv(n_packs, kPacks), 32));
    packs = next_pow2(kl_cdiv(n_packs, threads));
    threads_per_row = threads;
  } else {
    const int64_t blocks = std::min<int64_t>(rows, kMaxGrid);
    _rmsnorm_streaming_kernel<T, VEC, kAdd><<<static_cast<unsigned>(blocks), kMaxThreads, 0, stream>>>(
        x, residual, weight, y, h, rows, n, x_row_stride, residual_row_stride, eps);
    KL_CUDA_CHECK(cudaGetLastError());
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
