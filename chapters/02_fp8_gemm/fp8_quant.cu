// Exercise: the CUDA C++ rung of fp8_quantize.
//   scale = max(amax, 1e-12) / 448, amax = the largest |x| of each row (per token) or of x (per
//   tensor); q = x / scale rounded to the nearest e4m3 value, saturated to +-448.
//
// Write block_max and the bodies of the three kernels below. The launcher is the reference's
// (csrc/fp8_quant_launch.cuh, included at the end): it picks the kernel, the vector width and the
// block size. Grade with
//     python -m grading check fp8_quantize --rung cuda
// (without a GPU the grader compiles this file with nvcc and shows its register report).
//
// Napkin math, H200, 4096 tokens x 8192 bf16 per token: x read + q written = 101 MB, 24 us at
// 4.25 TB/s. Fast means what chapter 01 taught: x crosses HBM once (keep the row in registers
// between the max and the cast), 16-byte loads, enough of them in flight.
#include <cuda_fp8.h>

#include "fp8_quant.h"
#include "kl_common.cuh"

namespace {

constexpr float kE4m3Max = 448.0f;  // the largest finite e4m3 value
constexpr float kAmaxMin = 1e-12f;  // an all-zero row gets this amax: q = 0, not 0 / 0
constexpr int kMaxThreads = 1024;
// Programmatic dependent launch (kl_common.cuh): set it to true only once every kernel below calls
// kl_wait_previous_grid() before its first global access.
constexpr bool kDependentLaunch = false;

// Max of v over the whole block (blockDim.x a multiple of 32), returned to every thread: shuffles
// inside each warp, then the warp maxima through shared memory. Every thread must call it.
__device__ __forceinline__ float block_max(float v, float* warp_max) {
  // TODO: a butterfly over the warp (v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset)) for
  // offset 16, 8, 4, 2, 1), lane 0 of each warp writes warp_max[warp], __syncthreads(), every
  // warp reduces warp_max[lane] (0 for lanes past blockDim.x / 32) the same way, and a last
  // __syncthreads() before returning, so the next row cannot overwrite warp_max while it is read.
  return v;
}

template <typename T, int VEC>
__device__ __forceinline__ float pack_amax(const KlPack<T, VEC>& p, float m) {
#pragma unroll
  for (int j = 0; j < VEC; ++j) m = fmaxf(m, fabsf(to_float(p.v[j])));
  return m;
}

// VEC elements / scale, rounded to nearest even e4m3 and saturated to +-448 (satfinite: e4m3
// has no inf, and without it a quotient rounding past 448 would become NaN). Stored as one
// VEC-byte access. x / s, not x * (1 / s): one rounding before e4m3's.
template <typename T, int VEC>
__device__ __forceinline__ void store_e4m3(uint8_t* q, const KlPack<T, VEC>& p, float s) {
  if constexpr (VEC == 1) {
    *q = __nv_cvt_float_to_fp8(to_float(p.v[0]) / s, __NV_SATFINITE, __NV_E4M3);
  } else {
    static_assert(VEC % 4 == 0, "packs of 4 or 8 elements");
    uint32_t words[VEC / 4];
#pragma unroll
    for (int w = 0; w < VEC / 4; ++w) {
      const float2 lo = make_float2(to_float(p.v[4 * w]) / s, to_float(p.v[4 * w + 1]) / s);
      const float2 hi = make_float2(to_float(p.v[4 * w + 2]) / s, to_float(p.v[4 * w + 3]) / s);
      words[w] = uint32_t(__nv_cvt_float2_to_fp8x2(lo, __NV_SATFINITE, __NV_E4M3)) |
                 (uint32_t(__nv_cvt_float2_to_fp8x2(hi, __NV_SATFINITE, __NV_E4M3)) << 16);
    }
    if constexpr (VEC == 8) {
      *reinterpret_cast<uint2*>(q) = make_uint2(words[0], words[1]);  // 8 bytes
    } else {
      *reinterpret_cast<uint32_t*>(q) = words[0];
    }
  }
}

// One block per row (grid-stride over rows past the grid limit), the row in registers.
// Thread t owns packs t, t + blockDim.x, ..., so a warp reads 512 contiguous bytes per load.
// kExact: the launcher found k == blockDim.x * PACKS * VEC (VEC > 1) and a block for every row:
// the guards and the row loop may be skipped. Ignoring it is correct.
template <typename T, int VEC, int PACKS, bool kPerToken, bool kExact>
__global__ void __launch_bounds__(kMaxThreads) _fp8_quantize_kernel(
    const T* __restrict__ x,       // row r at x + r * x_row_stride
    uint8_t* __restrict__ q,       // [rows, k] contiguous e4m3 bytes
    float* __restrict__ scale,     // [rows] (per token) or [1]
    const float* __restrict__ amax_in,  // per tensor: the global amax from _amax_kernel
    int64_t rows,
    int k,                         // a multiple of VEC
    int64_t x_row_stride) {        // elements; a multiple of VEC unless rows == 1
  // TODO: write this kernel, then delete the next line (it tells the grader the stub is unwritten).
#define KL_STUB_NOT_IMPLEMENTED 1
  //
  // using Pack = KlPack<T, VEC>;  (16 bytes on the vector path: one load instruction)
  // __shared__ float warp_max[32];
  // for (int64_t row = blockIdx.x; row < rows; row += gridDim.x)   (the same row for the whole
  // block, so every thread reaches every barrier):
  //  1. Load this thread's packs p = threadIdx.x + i * blockDim.x (i < PACKS, p < k / VEC) of the
  //     row into Pack v[PACKS], all loads before any use; m = the largest |element| (pack_amax).
  //  2. amax = kPerToken ? block_max(m, warp_max) : *amax_in;  s = fmaxf(amax, kAmaxMin) / kE4m3Max.
  //  3. store_e4m3(q + row * k + p * VEC, v[i], s) for each pack; kPerToken: thread 0 writes
  //     scale[row] = s.
  // Per tensor, after the loop: block 0's thread 0 writes scale[0].
}

// Rows longer than registers hold: a block per row reads it twice.
template <typename T, int VEC, bool kPerToken>
__global__ void __launch_bounds__(kMaxThreads) _fp8_quantize_streaming_kernel(
    const T* __restrict__ x, uint8_t* __restrict__ q, float* __restrict__ scale,
    const float* __restrict__ amax_in, int64_t rows, int k, int64_t x_row_stride) {
  // TODO: rows too long for registers. For each row (as above): per token, a first loop over the
  // row's packs (p = threadIdx.x; p < k / VEC; p += blockDim.x) for the max, then block_max; a
  // second loop loads each pack again (mostly from L2) and stores it with store_e4m3.
}

// Per tensor, pass 1: each block takes rows blockIdx.x, + gridDim.x, ... and adds its max with
// one atomicMax. |x| >= 0, and non-negative floats order like their bits read as unsigned ints.
template <typename T, int VEC>
__global__ void __launch_bounds__(kMaxThreads) _amax_kernel(
    const T* __restrict__ x, float* __restrict__ amax_out, int64_t rows, int k, int64_t x_row_stride) {
  // TODO: per tensor, pass 1. Each block takes rows blockIdx.x, + gridDim.x, ...; m = the largest
  // |x| it sees; then block_max, and thread 0 adds it to the global max with
  //   atomicMax(reinterpret_cast<unsigned int*>(amax_out), __float_as_uint(m));
  // (|x| >= 0, and non-negative floats order like their bits read as unsigned integers).
}

}  // namespace

// The launcher fp8_quant.h declares, the same as the reference's. It launches the kernels above
// by these names and template parameters:
//   _fp8_quantize_kernel<T, VEC, PACKS, kPerToken, kExact>  one row per block of 32..kMaxThreads
//                                                      threads (whole warps), PACKS = 1, 2, 4
//                                                      (8 when VEC == 1) packs per thread
//   _fp8_quantize_streaming_kernel<T, VEC, kPerToken>  rows past kMaxThreads x 4 packs, one row
//                                                      per block of kMaxThreads threads
//   _amax_kernel<T, VEC>                               per tensor, first: blocks of 256 threads
// VEC: 16 / sizeof(T) when x's rows are 16-byte aligned and k is a multiple of it, else 1.
#include "fp8_quant_launch.cuh"
