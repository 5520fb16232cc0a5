// silu_mul: out = silu(gate) * up = gate * sigmoid(gate) * up, the SwiGLU activation of
// Llama-class MLPs. fp32, fp16 and bf16 tensors; the arithmetic is fp32 in every case.
//
// Napkin math, H200, Llama-3 8B MLP (8192 tokens x 14336 = 117.4M elements, bf16):
//   bytes  3 streams (gate and up read, out written) x 117.4M x 2 B = 705 MB
//   SOL    705 MB / 4.27 TB/s (measured H200 copy bandwidth) = 165 us
//   FLOPs  ~5 per element: 0.8 FLOP/byte, 20x left of the H200's fp32 ridge point
//          (67 TFLOP/s / 4.27 TB/s = 16 FLOP/byte).
// Nothing here is compute: the kernel is fast when its accesses are wide and enough of them are
// in flight to cover HBM latency, and slow otherwise.
#include <algorithm>

#include "kl_common.cuh"
#include "silu_mul.h"

namespace {

// Packs each thread handles per row. Little's law for HBM: 4.27 TB/s x ~0.8 us loaded latency
// = 3.4 MB in flight, 26 KB per SM on 132 SMs. 4 packs x 2 loads x 16 B = 128 B per thread
// with 512 resident threads per SM make 64 KB per SM, 2.5x that.
// benchmarks/silu_mul_variants.py times the variants below by setting these macros.
// Measured on an H200, 8192 × 14336 bf16 (benchmarks/silu_mul_variants.json), µs contiguous /
// as halves of one [M, 2N] tensor (SOL 166 µs):
//   v1 unroll 2:                           205 / 216
//   v2 unroll 4:                           312 / 338
//   v3 unroll 2 + fast math:               182 / 187
//   v4 unroll 2 + streaming hints:         189 / 191
//   v5 unroll 4 + fast math + streaming:   183 / 180  (best at 2048 rows: 48.5 µs)
// Fast math is the step that counts (see silu_mul_one); v5's bf16 vector kernel takes 113
// registers on sm_90a (2 blocks of 256 threads per SM), no spills. A later run
// (benchmarks/silu_mul_variants_flat.json) added the flat 32-bit path below, contiguous only:
//   v5:                          183.3 us (2048 rows: 48.4)
//   v7 v5 + flat, 1 pack/thread: 177.7 us (48.0)
//   v8 v5 + flat, 2 packs:       178.6 us (48.4)
//   same run: Triton's flat kernel 166.4 (46.8), static torch.compile 166.3 (46.9).
// The 7% between v7 and the Triton kernel of the same shape: their PTX for sm_90a differed only
// in v7's streaming hints (ld/st.global.cs; Triton issues plain ld/st.global.v4) and div.approx vs
// div.full. Predicted: the hints are the 7%. Measured in one run (benchmarks/h200_session3/
// silu_mul_variants_s3.json), µs contiguous / chunked (halves of one [M, 2N] tensor, row path):
//   v7 (hints on both paths):          177.6 / 179.6   (2048 rows: 48.0)
//   v9 (no hints on either path):      166.5 / 253.3   (2048 rows: 47.0)
//   Triton 166.5 / 180.6, static torch.compile 166.5 / 202.2, a copy of the same bytes 168.7.
// So the hints cost the flat path 7% and save the strided row path 29%: the default keeps them on
// the row path only (KL_SILU_FLAT_STREAMING 0). At 2048 rows a copy of the same 176 MB takes
// 46.1 us, 90% of the 1 GiB copy figure: what is left there is fixed cost, not the kernel.
#ifndef KL_SILU_UNROLL
#define KL_SILU_UNROLL 4
#endif
#ifndef KL_SILU_FAST_MATH
#define KL_SILU_FAST_MATH 1
#endif
#ifndef KL_SILU_STREAMING
#define KL_SILU_STREAMING 1
#endif
// Flat path (contiguous tensors of fewer than 2^31 elements): 32-bit indices and
// KL_SILU_FLAT_PACKS packs per thread, the shape of Inductor's pointwise kernels, which the
// static torch.compile rung showed to be faster than v5 (166 vs 183 us at 8192 x 14336).
#ifndef KL_SILU_FLAT
#define KL_SILU_FLAT 1
#endif
#ifndef KL_SILU_FLAT_PACKS
#define KL_SILU_FLAT_PACKS 1
#endif
#ifndef KL_SILU_FLAT_STREAMING
#define KL_SILU_FLAT_STREAMING 0
#endif
constexpr int kUnroll = KL_SILU_UNROLL;
// At most 256 threads per block: 8 blocks fill an SM's 2048 thread slots, and a block is small
// enough that a partly filled last wave stays evenly spread over the SMs.
constexpr int kMaxThreads = 256;
// At least 8 / kUnroll resident blocks of 256 threads per SM: a register cap of 128 at unroll 4
// (64 at unroll 2) that the kernels fit without spills.
constexpr int kMinBlocksPerSm = 8 / kUnroll;

// silu(g) * u for one element, in fp32.
// The napkin math said accuracy would be free: at SOL the GPU finishes one bf16 element (6 B of
// traffic) every 1.4 ps, time for ~47 fp32 instructions (H200: 33.5 T/s), and an accurate expf
// plus an IEEE division take about 20. The measurement disagreed: with them the kernel reached
// 81% of the copy roof, with __expf and __fdividef 93% (the loads, conversions and address math
// fill the rest of the budget). __expf's error grows with |g| (2 + 1.17|g| ulp: ~1e-6 relative
// at g = -10); where it grows past that, silu(g) = g e^g / (1 + e^g) is below 1e-3 and the
// absolute error is what counts.
// g / (1 + e^-g) has the right limits: g << 0 gives g / inf = -0, g >> 0 gives g.
template <typename T>
__device__ __forceinline__ T silu_mul_one(T gate, T up) {
  const float g = to_float(gate);
  const float u = to_float(up);
#if KL_SILU_FAST_MATH
  // ex2.approx and an approximate divide: a few instructions instead of ~20.
  return from_float<T>(__fdividef(g, 1.0f + __expf(-g)) * u);
#else
  return from_float<T>(g / (1.0f + expf(-g)) * u);
#endif
}

// Streaming cache hints (ld.global.cs / st.global.cs): every byte is touched once, so ask the
// caches not to keep it. Plain accesses when kHint is 0 or the pack is not 16 bytes.
template <bool kHint = KL_SILU_STREAMING, typename P>
__device__ __forceinline__ P load_stream(const P* p) {
  if constexpr (kHint && sizeof(P) == 16) {
    uint4 r = __ldcs(reinterpret_cast<const uint4*>(p));
    return *reinterpret_cast<P*>(&r);
  } else {
    return *p;
  }
}

template <bool kHint = KL_SILU_STREAMING, typename P>
__device__ __forceinline__ void store_stream(P* p, const P& v) {
  if constexpr (kHint && sizeof(P) == 16) {
    __stcs(reinterpret_cast<uint4*>(p), *reinterpret_cast<const uint4*>(&v));
  } else {
    *p = v;
  }
}

// One block covers kUnroll * blockDim.x packs of a row (a column block) and walks down the rows.
// VEC = elements per access: 16 / sizeof(T) on the aligned path, 1 on the scalar path.
template <typename T, int VEC>
__global__ void __launch_bounds__(kMaxThreads, kMinBlocksPerSm) _silu_mul_kernel(
    const T* __restrict__ gate,  // [rows, gate_row_stride] view: row r at gate + r * gate_row_stride
    const T* __restrict__ up,    // [rows, up_row_stride] view: row r at up + r * up_row_stride
    T* __restrict__ out,         // [rows, n] contiguous
    int64_t rows,                // rows to process: gridDim.y blocks stride over them
    int64_t n,                   // elements per row
    int64_t gate_row_stride,     // elements; a multiple of VEC (keeps every row start aligned)
    int64_t up_row_stride) {     // elements; a multiple of VEC
  using Pack = KlPack<T, VEC>;
  const int64_t n_packs = n / VEC;  // whole packs per row; n % VEC tail elements follow them
  // Thread t of column block b takes packs b * kUnroll * blockDim.x + t + k * blockDim.x:
  // neighbouring lanes touch neighbouring packs, so a warp's load covers 32 x 16 = 512
  // contiguous bytes on the vector path.
  const int64_t first = int64_t(blockIdx.x) * kUnroll * blockDim.x + threadIdx.x;

  for (int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
    const Pack* g = reinterpret_cast<const Pack*>(gate + row * gate_row_stride);
    const Pack* u = reinterpret_cast<const Pack*>(up + row * up_row_stride);
    Pack* o = reinterpret_cast<Pack*>(out + row * n);

    // Every load is issued before any result is used: 2 * kUnroll independent loads in flight.
    Pack gv[kUnroll], uv[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      const int64_t p = first + int64_t(k) * blockDim.x;
      if (p < n_packs) {
        gv[k] = load_stream(g + p);
        uv[k] = load_stream(u + p);
      }
    }
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      const int64_t p = first + int64_t(k) * blockDim.x;
      if (p < n_packs) {
        Pack ov;
#pragma unroll
        for (int j = 0; j < VEC; ++j) ov.v[j] = silu_mul_one(gv[k].v[j], uv[k].v[j]);
        store_stream(o + p, ov);
      }
    }

    // The tail: the row's last n % VEC (< 8) elements, one each for the first threads of
    // column block 0. Only a flattened single row (see the launcher) has one.
    if constexpr (VEC > 1) {
      const int64_t i = n_packs * VEC + threadIdx.x;
      if (blockIdx.x == 0 && i < n) {
        out[row * n + i] = silu_mul_one(gate[row * gate_row_stride + i], up[row * up_row_stride + i]);
      }
    }
  }
}

// The flat path: one contiguous array of n < 2^31 elements, so every index fits 32 bits (fewer
// instructions per access than the 64-bit row/column math above). Thread t of block b takes
// packs (b * kFlatPacks + k) * blockDim.x + t: a warp's access is 512 contiguous bytes.
constexpr int kFlatPacks = KL_SILU_FLAT_PACKS;
constexpr int kFlatThreads = 128;

template <typename T, int VEC>
__global__ void __launch_bounds__(kFlatThreads) _silu_mul_flat_kernel(
    const T* __restrict__ gate,  // [n] contiguous
    const T* __restrict__ up,    // [n] contiguous
    T* __restrict__ out,         // [n] contiguous
    int n) {                     // elements, < 2^31
  using Pack = KlPack<T, VEC>;
  const int n_packs = n / VEC;
  const Pack* g = reinterpret_cast<const Pack*>(gate);
  const Pack* u = reinterpret_cast<const Pack*>(up);
  Pack* o = reinterpret_cast<Pack*>(out);
  const int first = blockIdx.x * kFlatPacks * kFlatThreads + threadIdx.x;
  Pack gv[kFlatPacks], uv[kFlatPacks];
#pragma unroll
  for (int k = 0; k < kFlatPacks; ++k) {
    const int p = first + k * kFlatThreads;
    if (p < n_packs) {
      gv[k] = load_stream<KL_SILU_FLAT_STREAMING>(g + p);
      uv[k] = load_stream<KL_SILU_FLAT_STREAMING>(u + p);
    }
  }
#pragma unroll
  for (int k = 0; k < kFlatPacks; ++k) {
    const int p = first + k * kFlatThreads;
    if (p < n_packs) {
      Pack ov;
#pragma unroll
      for (int j = 0; j < VEC; ++j) ov.v[j] = silu_mul_one(gv[k].v[j], uv[k].v[j]);
      store_stream<KL_SILU_FLAT_STREAMING>(o + p, ov);
    }
  }
  // The last n % VEC (< 8) elements: the first threads of block 0.
  if constexpr (VEC > 1) {
    const int i = n_packs * VEC + threadIdx.x;
    if (blockIdx.x == 0 && i < n) out[i] = silu_mul_one(gate[i], up[i]);
  }
}

template <typename T, int VEC>
void launch_silu_mul_flat(const T* gate, const T* up, T* out, int64_t n, cudaStream_t stream) {
  const int64_t blocks = std::max<int64_t>(1, kl_cdiv<int64_t>(n / VEC, kFlatPacks * kFlatThreads));
  _silu_mul_flat_kernel<T, VEC><<<static_cast<unsigned>(blocks), kFlatThreads, 0, stream>>>(
      gate, up, out, static_cast<int>(n));
  KL_CUDA_CHECK(cudaGetLastError());
}

// The reference's extra path, which dispatch_silu_mul (silu_mul_launch.cuh) tries first, once
// contiguous rows are flattened into one: a single row of fewer than 2^31 elements runs the flat
// kernel when KL_SILU_FLAT is set. Returns whether it launched.
template <typename T>
bool launch_silu_mul_flat_path(const T* gate, const T* up, T* out, int64_t rows, int64_t n,
                               bool vector_ok, cudaStream_t stream) {
  if (!(KL_SILU_FLAT && rows == 1 && n < (int64_t(1) << 31))) return false;
  if (vector_ok) {
    launch_silu_mul_flat<T, kl_vec16<T>>(gate, up, out, n, stream);
  } else {
    launch_silu_mul_flat<T, 1>(gate, up, out, n, stream);
  }
  return true;
}

}  // namespace

// The row kernel's launcher and the dispatch, shared with the exercise, with the flat path above.
#define KL_SILU_MUL_HAS_FLAT_PATH 1
#include "silu_mul_launch.cuh"
