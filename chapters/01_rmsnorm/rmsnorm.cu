// Exercise: the CUDA C++ rung of rmsnorm and fused_add_rmsnorm.
//   rmsnorm:           y = x / sqrt(mean(x^2) + eps) * weight, over each row, statistics in fp32
//   fused_add_rmsnorm: h = x + residual (rounded to the dtype, stored), y = rmsnorm(h)
//
// Write group_sum, block_sum and the bodies of the two kernels below. The launchers are the
// reference's (csrc/rmsnorm_launch.cuh, included at the end): they pick the kernel, the block
// size and the lanes per row. Grade with
//     python -m grading check rmsnorm --rung cuda
//     python -m grading check fused_add_rmsnorm --rung cuda
// (without a GPU the grader compiles this file with nvcc and shows its register report).
//
// Napkin math, H200, 16384 tokens x 8192 bf16: x read + y written = 537 MB; at 4.27 TB/s that is
// 126 us, against ~4 FLOPs per element. Fast means: x crosses HBM once (keep the row in
// registers between the reduction and the normalization), 16-byte accesses, and enough loads in
// flight (Little's law: ~26 KB per SM on an H200).
#include <type_traits>

#include "kl_common.cuh"
#include "rmsnorm.h"

namespace {

// Threads per block for long rows, at most, and the kernels' __launch_bounds__ (64 registers).
constexpr int kMaxThreads = 1024;
// Programmatic dependent launch (the notebook, section 7): set it to true only once every
// kernel below calls kl_wait_previous_grid() before its first load, or a kernel may read its
// inputs before the kernel that writes them has finished.
constexpr bool kDependentLaunch = false;

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
// kBlockRow: one row per block (threads_per_row == blockDim.x), known at compile time.
// kWeightEarly: the launcher's hint to load the weight with the row (few rows, where it is in no
// cache yet) rather than after the reduction; either order is correct.
// kExact: the launcher found every lane's PACKS packs inside the row (n == blockDim.x * PACKS *
// VEC, one row per block, VEC > 1): the guards and the tail may be skipped. Ignoring it is correct.
template <typename T, int VEC, int PACKS, bool kAdd, bool kBlockRow, bool kWeightEarly, bool kExact>
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
    int threads_per_row,             // a power of two <= 32 (rows share a block) or blockDim.x
    float inv_n) {                   // 1 / n, rounded once on the host
  // TODO: write this kernel, then delete the next line (it tells the grader the stub is unwritten).
#define KL_STUB_NOT_IMPLEMENTED 1
  //
  // using Pack = KlPack<T, VEC>;  (16 bytes on the vector path: one load instruction)
  // lane = threadIdx.x % threads_per_row; rows_per_block = blockDim.x / threads_per_row
  // (kBlockRow: lane = threadIdx.x, one row per block; otherwise threads_per_row is a power of
  // two, so a mask and a shift do it without a division).
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
  //  3. ss = kBlockRow ? block_sum(ss, warp_sums) : group_sum(ss, threads_per_row)
  //     (declare `__shared__ float warp_sums[32];` at the top), rstd = rsqrtf(ss * inv_n + eps).
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

}  // namespace

// The launchers rmsnorm.h declares, the same as the reference's. They launch the kernels above
// by these names and template parameters:
//   _rmsnorm_kernel<T, VEC, PACKS, kAdd, kBlockRow, kWeightEarly, kExact>
//                                            PACKS = 1, 2, 4 (8 when VEC == 1); short rows in
//                                            blocks of 256 threads, 1..32 lanes per row; long rows
//                                            (kBlockRow) one per block of 128..kMaxThreads threads
//   _rmsnorm_streaming_kernel<T, VEC, kAdd>  rows past kMaxThreads x 4 packs, kMaxThreads threads
// VEC: 16 / sizeof(T) when every row start is 16-byte aligned, else 1.
#include "rmsnorm_launch.cuh"
