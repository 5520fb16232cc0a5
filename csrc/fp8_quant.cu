// fp8_quantize: q = x / scale rounded to e4m3 (saturated to +-448), scale = max(amax, 1e-12) / 448
// with amax the largest |x| of each row (per token) or of the whole tensor (per tensor).
//
// Napkin math, H200, per token, 4096 tokens x 8192 bf16:
//   bytes  x read (2 B) + q written (1 B) = 3 x 33.5M = 101 MB, plus 16 KB of scales
//   SOL    101 MB / 4.25 TB/s (measured copy bandwidth) = 24 us
// A row is a max-reduction followed by an elementwise pass over the same row, like RMSNorm
// (chapter 01): at the roof when x crosses HBM once, its row waiting in registers between the two.
// Per tensor the global amax must be known before the first element is cast: one pass to find
// it (an atomicMax per block), a second to cast. x is read twice, 5 bytes per element instead
// of 3: at most 60% of SOL once x is larger than L2 (50 MB), a little more when the second pass
// starts with the rows the first one read last (still in L2).
//
// What the first version (68-80% of copy at M >= 4096 per token, against Triton's 79-96%) did
// wrong, from its SASS and ptxas report:
//   - x / s as an IEEE division: MUFU.RCP, 5 FFMA, FCHK and a branch to a slow path per element,
//     ~14 instructions per element where the rest of the work is ~4. 4096 x 4096 is 16.7M
//     elements: 16.7M x 14 / 32 lanes / (132 SMs x 4 schedulers x 1.98 GHz) = 7 us of issue
//     against 12 us of memory, in the phase between a row's loads and its stores, when the
//     block has no loads in flight. Now one reciprocal per row and, per element, a multiply and
//     two FMAs: q = x * inv corrected by its residual x - q * s, which gives x / s rounded once
//     (bit-equal to the division on 2M random elements per dtype). The multiply alone would do
//     for the spec (one e4m3 step allowed), but it differs from x / s on ~3e-4 of bf16 inputs:
//     a bf16 x over a bf16 amax often lands exactly on an e4m3 midpoint, and one more rounding
//     moves it off.
//   - 4 packs of 16 B per thread and the divisions' temporaries: 59 registers, so 8 blocks of
//     128 threads per SM (K = 4096), half the threads an SM holds. Now 2 packs per thread
//     (32 B of x, Triton's plan at these shapes) and ~30 registers: 2048 threads per SM, 64 KB of
//     x in flight per SM while every block is loading, 2.5x the ~26 KB Little's law asks for
//     (4.25 TB/s x ~0.8 us / 132 SMs), so a block in its reduction or its stores costs nothing.
//   - the amax pass (per tensor) and the streaming kernel loaded each 16-byte pack as eight
//     2-byte loads (LDG.E.U16: the pack went by reference into a loop over its elements), one
//     pack in flight per thread, 16 KB per SM. Now explicit 16-byte loads, 4 per thread in flight.
// Stores: 8 bytes of e4m3 per pack (bf16/fp16), so a warp writes 256 contiguous bytes per
// instruction, 8 whole 32-byte sectors; 16-byte stores would halve the store instructions (2% of
// the instructions) and not the bytes.
//
// Kernels:
//   _fp8_quantize_kernel            a block per row, the row in registers (2 packs of 16 bytes per
//                                   thread up to 1024 threads, 4 past that: 32K bf16)
//   _fp8_quantize_streaming_kernel  longer rows: the row read twice, the second time mostly from L2
//   _amax_kernel                    per tensor: the global max |x|, one atomicMax per block
#include <type_traits>

#include <cuda_fp8.h>

#include "fp8_quant.h"
#include "kl_common.cuh"

namespace {

constexpr float kE4m3Max = 448.0f;  // the largest finite e4m3 value
constexpr float kAmaxMin = 1e-12f;  // an all-zero row gets this amax: q = 0, not 0 / 0
constexpr int kMaxThreads = 1024;
// Programmatic dependent launch on sm_90+ (kl_launch, kl_common.cuh): each kernel waits for the
// previous kernel's writes before its first global access, so the launcher starts them with it:
// a call's blocks are scheduled while the kernel before it drains. On an H200, per token, CUDA
// graphs of back-to-back calls as the bench times them, beside the same kernels launched without
// it in one run: 1 / 128 / 4096 x 4096 1.16 / 1.82 / 13.49 µs against 1.37 / 2.46 / 13.95,
// 4096 x 8192 26.59 against 26.87; 16384 x 4096 (timed alone) level (benchmarks/h200_session17,
// call 1).
constexpr bool kDependentLaunch = true;

// Max of v over the whole block (blockDim.x a multiple of 32), returned to every thread: shuffles
// inside each warp, then the warp maxima through shared memory. Every thread must call it.
// kReuse: warp_max is written again for a next row, so a second barrier keeps a warp that runs
// ahead from overwriting it while others still read; a block with one row skips it.
template <bool kReuse>
__device__ __forceinline__ float block_max(float v, float* warp_max) {
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (lane == 0) warp_max[warp] = v;
  __syncthreads();
  v = lane < blockDim.x / 32 ? warp_max[lane] : 0.0f;
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, offset));
  if constexpr (kReuse) __syncthreads();
  return v;
}

// One pack of x as a single 16-byte load (LDG.128) on the vector path. Reading the pack through
// a reference into an element loop instead let the compiler split it into VEC narrow loads.
template <typename T, int VEC>
__device__ __forceinline__ KlPack<T, VEC> load_pack(const KlPack<T, VEC>* p) {
  if constexpr (sizeof(KlPack<T, VEC>) == 16) {
    const uint4 bits = __ldg(reinterpret_cast<const uint4*>(p));
    KlPack<T, VEC> out;
    *reinterpret_cast<uint4*>(&out) = bits;
    return out;
  } else {
    return *p;
  }
}

// max(m, |each element|). fp16 and bf16 pairs go through the packed max (HMNMX2: exact, one
// instruction per pair) and only the pack's maximum is widened to fp32: half the instructions,
// and registers to spare (widening all 32 bf16 values of 4 packs first spilled at 32 registers).
template <typename T, int VEC>
__device__ __forceinline__ float pack_amax(const KlPack<T, VEC>& p, float m) {
  if constexpr (std::is_same_v<T, float> || VEC % 2 != 0) {
#pragma unroll
    for (int j = 0; j < VEC; ++j) m = fmaxf(m, fabsf(to_float(p.v[j])));
    return m;
  } else {
    using T2 = std::conditional_t<std::is_same_v<T, __half>, __half2, __nv_bfloat162>;
    const T2* p2 = reinterpret_cast<const T2*>(p.v);  // a pack is 16-byte aligned
    T2 acc = __habs2(p2[0]);
#pragma unroll
    for (int j = 1; j < VEC / 2; ++j) acc = __hmax2(acc, __habs2(p2[j]));
    return fmaxf(m, fmaxf(to_float(acc.x), to_float(acc.y)));
  }
}

// A row's scale and its reciprocal, computed once per row.
struct Scale {
  float s, inv;
};
__device__ __forceinline__ Scale make_scale(float amax) {
  const float s = fmaxf(amax, kAmaxMin) / kE4m3Max;
  return {s, 1.0f / s};
}

// x / s without a division: the product by the reciprocal is within an ulp or so of the
// quotient, and one Newton step on the residual (exact in an FMA) rounds it as x / s would.
__device__ __forceinline__ float div_scale(float x, Scale sc) {
  const float q = x * sc.inv;
  return fmaf(fmaf(-q, sc.s, x), sc.inv, q);
}

// VEC elements / scale, rounded to nearest even e4m3 and saturated to +-448 (satfinite: e4m3
// has no inf, and without it a quotient rounding past 448 would become NaN). Stored as one
// VEC-byte access.
template <typename T, int VEC>
__device__ __forceinline__ void store_e4m3(uint8_t* q, const KlPack<T, VEC>& p, Scale sc) {
  if constexpr (VEC == 1) {
    *q = __nv_cvt_float_to_fp8(div_scale(to_float(p.v[0]), sc), __NV_SATFINITE, __NV_E4M3);
  } else {
    static_assert(VEC % 4 == 0, "packs of 4 or 8 elements");
    uint32_t words[VEC / 4];
#pragma unroll
    for (int w = 0; w < VEC / 4; ++w) {
      const float2 lo = make_float2(div_scale(to_float(p.v[4 * w]), sc), div_scale(to_float(p.v[4 * w + 1]), sc));
      const float2 hi = make_float2(div_scale(to_float(p.v[4 * w + 2]), sc), div_scale(to_float(p.v[4 * w + 3]), sc));
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
// Per tensor the blocks take the rows last to first: _amax_kernel read them first to last, so
// the first rows here are the ones it read last, still in L2 (up to ~50 MB of x not read from
// HBM twice). kExact (the launcher found k == blockDim.x x PACKS x VEC and a block for every row:
// every Llama row): no guards and no row loop, one barrier. On the H200, beside the kernel
// without it in one run: 1 x 4096 1.36 µs against 1.71, 4096 x 4096 15.68 against 15.81
// (benchmarks/h200_session13, call 1).
template <typename T, int VEC, int PACKS, bool kPerToken, bool kExact>
__global__ void __launch_bounds__(kMaxThreads) _fp8_quantize_kernel(
    const T* __restrict__ x,       // row r at x + r * x_row_stride
    uint8_t* __restrict__ q,       // [rows, k] contiguous e4m3 bytes
    float* __restrict__ scale,     // [rows] (per token) or [1]
    const float* __restrict__ amax_in,  // per tensor: the global amax from _amax_kernel
    int64_t rows,
    int k,                         // a multiple of VEC
    int64_t x_row_stride) {        // elements; a multiple of VEC unless rows == 1
  using Pack = KlPack<T, VEC>;
  __shared__ float warp_max[32];
  const int n_packs = k / VEC;
  auto in_row = [&](int p) { return kExact || p < n_packs; };
  kl_wait_previous_grid();  // launched with programmatic dependent launch (kDependentLaunch)
  kl_release_next_grid();
  for (int64_t i = blockIdx.x; i < rows; i += gridDim.x) {  // uniform per block
    const int64_t row = kPerToken ? i : rows - 1 - i;
    // The row's starts are the only 64-bit arithmetic; offsets within a row are 32-bit (k is an int).
    const Pack* xr = reinterpret_cast<const Pack*>(x + row * x_row_stride);
    uint8_t* qr = q + row * k;
    Pack v[PACKS];
    float m = 0.0f;
#pragma unroll
    for (int j = 0; j < PACKS; ++j) {  // every load issued before any is used
      const int p = threadIdx.x + j * blockDim.x;
      if (in_row(p)) v[j] = load_pack(xr + p);
    }
#pragma unroll
    for (int j = 0; j < PACKS; ++j) {
      if (in_row(threadIdx.x + j * blockDim.x)) m = pack_amax(v[j], m);
    }
    const float amax = kPerToken ? block_max<!kExact>(m, warp_max) : *amax_in;
    const Scale sc = make_scale(amax);
#pragma unroll
    for (int j = 0; j < PACKS; ++j) {
      const int p = threadIdx.x + j * blockDim.x;
      if (in_row(p)) store_e4m3(qr + p * VEC, v[j], sc);
    }
    if (kPerToken && threadIdx.x == 0) scale[row] = sc.s;
    if constexpr (kExact) break;
  }
  if (!kPerToken && blockIdx.x == 0 && threadIdx.x == 0) scale[0] = fmaxf(*amax_in, kAmaxMin) / kE4m3Max;
}

// Rows longer than registers hold: a block per row reads it twice.
template <typename T, int VEC, bool kPerToken>
__global__ void __launch_bounds__(kMaxThreads) _fp8_quantize_streaming_kernel(
    const T* __restrict__ x, uint8_t* __restrict__ q, float* __restrict__ scale,
    const float* __restrict__ amax_in, int64_t rows, int k, int64_t x_row_stride) {
  using Pack = KlPack<T, VEC>;
  __shared__ float warp_max[32];
  const int n_packs = k / VEC;
  kl_wait_previous_grid();
  kl_release_next_grid();
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const Pack* xr = reinterpret_cast<const Pack*>(x + row * x_row_stride);
    float amax;
    if constexpr (kPerToken) {
      float m = 0.0f;
      for (int p = threadIdx.x; p < n_packs; p += blockDim.x) m = pack_amax(load_pack(xr + p), m);
      amax = block_max<true>(m, warp_max);
    } else {
      amax = *amax_in;
    }
    const Scale sc = make_scale(amax);
    uint8_t* qr = q + row * k;
    for (int p = threadIdx.x; p < n_packs; p += blockDim.x) store_e4m3(qr + int64_t(p) * VEC, load_pack(xr + p), sc);
    if (kPerToken && threadIdx.x == 0) scale[row] = sc.s;
  }
  if (!kPerToken && blockIdx.x == 0 && threadIdx.x == 0) scale[0] = fmaxf(*amax_in, kAmaxMin) / kE4m3Max;
}

// Per tensor, pass 1: each block takes rows blockIdx.x, + gridDim.x, ... and adds its max with
// one atomicMax. A thread loads up to kAmaxPacks packs of its row before it uses any: 32 B in
// flight at K = 4096 bf16, 64 B from 8192 on (the element loop over one pack at a time had 16
// B). The blocks move through the rows together, so the tensor is read first row to last (the
// quantize pass reverses that). |x| >= 0, and non-negative floats order like their bits read as
// unsigned ints. The launcher runs 8 blocks of 256 threads per SM: the bounds hold the kernel to
// 65536 / 2048 = 32 registers so that they all fit (unbounded, ptxas took 50, and 4 blocks).
constexpr int kAmaxPacks = 4;

template <typename T, int VEC>
__global__ void __launch_bounds__(256, 8) _amax_kernel(
    const T* __restrict__ x, float* __restrict__ amax_out, int64_t rows, int k, int64_t x_row_stride) {
  using Pack = KlPack<T, VEC>;
  __shared__ float warp_max[32];
  const int n_packs = k / VEC;
  float m = 0.0f;
  kl_wait_previous_grid();
  kl_release_next_grid();
  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const Pack* xr = reinterpret_cast<const Pack*>(x + row * x_row_stride);
    for (int p0 = threadIdx.x; p0 < n_packs; p0 += kAmaxPacks * blockDim.x) {
      Pack v[kAmaxPacks];
#pragma unroll
      for (int j = 0; j < kAmaxPacks; ++j) {
        const int p = p0 + j * blockDim.x;
        if (p < n_packs) v[j] = load_pack(xr + p);
      }
#pragma unroll
      for (int j = 0; j < kAmaxPacks; ++j) {
        if (p0 + j * blockDim.x < n_packs) m = pack_amax(v[j], m);
      }
    }
  }
  m = block_max<false>(m, warp_max);
  if (threadIdx.x == 0) atomicMax(reinterpret_cast<unsigned int*>(amax_out), __float_as_uint(m));
}

}  // namespace

// The launcher, shared with the exercise.
#include "fp8_quant_launch.cuh"
