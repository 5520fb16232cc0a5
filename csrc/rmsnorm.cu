// rmsnorm: y = x / sqrt(mean(x^2) + eps) * weight over each row of x, and fused_add_rmsnorm:
// h = x + residual (rounded to the dtype and stored), y = rmsnorm(h). fp32, fp16 and bf16; the
// statistics and the arithmetic are fp32 in every case.
//
// Napkin math, H200, Llama-3 70B prefill (16384 tokens x 8192, bf16):
//   bytes  x read + y written = 2 x 134M x 2 B = 537 MB (the 16 KB weight stays in L2)
//   SOL    537 MB / 4.27 TB/s (measured H200 copy bandwidth) = 126 us
//   FLOPs  ~4 per element, 1 FLOP/byte: two orders of magnitude left of the ridge point.
// A row is a reduction followed by an elementwise pass over the same row. The kernel is at the
// roof when x crosses HBM once (the row waits in registers between the two), every access is 16
// bytes wide, and enough bytes are in flight: by Little's law 4.27 TB/s x ~0.8 us of loaded
// latency = 3.4 MB, 26 KB per SM on 132 SMs.
//
// Two kernels:
//   _rmsnorm_kernel            the row in registers. Short rows (up to 32 x kMaxPacks packs): a
//                              group of 1-32 lanes per row, several rows per block, a shuffle
//                              reduction. Long rows (up to kMaxThreads x kMaxPacks packs, 32K bf16
//                              or 16K fp32): a block per row, shuffles then shared memory.
//   _rmsnorm_streaming_kernel  longer rows: a block per row reads the row twice, the second time
//                              mostly from L2.
// rmsnorm_launch.cuh, included at the end and shared with the exercise, picks between them.
#include <type_traits>

#include "kl_common.cuh"
#include "rmsnorm.h"

namespace {

// Threads per block for long rows, at most. Also the kernels' __launch_bounds__: 65536 / 1024 =
// 64 registers per thread, room for 4 packs of x and 4 of the residual (16 + 16) in flight.
constexpr int kMaxThreads = 1024;
// The launcher starts these kernels with programmatic dependent launch on sm_90+ (kl_launch): a
// kernel's blocks are scheduled while the kernel before it drains, and wait for its writes
// (kl_wait_previous_grid) before their first load. On an H200, CUDA graphs of back-to-back calls
// as the bench times them, beside the same kernels launched without it in one run: rmsnorm
// 1/64/256 x 4096 1.15/1.44/2.34 µs against 1.60/1.90/2.72, fused 1.40/1.93/3.20 against
// 1.82/2.39/3.64; from 4096 rows within the run's spread (benchmarks/h200_session16, call 1).
constexpr bool kDependentLaunch = true;
// a + b, rounded once to T: what torch's x + residual gives. fp16 and bf16 go two at a time
// (HADD2, one instruction per pair): unpacking both operands to fp32 first holds ~30 more
// registers at 4 packs per thread, which spilled on sm_90a.
template <typename T, int VEC>
__device__ __forceinline__ KlPack<T, VEC> add_rn(const KlPack<T, VEC>& a, const KlPack<T, VEC>& b) {
  KlPack<T, VEC> out;
  if constexpr (std::is_same_v<T, float> || VEC % 2 != 0) {
#pragma unroll
    for (int j = 0; j < VEC; ++j) out.v[j] = from_float<T>(to_float(a.v[j]) + to_float(b.v[j]));
  } else {
    // A pair of T, as the 4-byte vector type the HADD2 intrinsics take; a pack is 16-byte aligned.
    using T2 = std::conditional_t<std::is_same_v<T, __half>, __half2, __nv_bfloat162>;
    const T2* a2 = reinterpret_cast<const T2*>(a.v);
    const T2* b2 = reinterpret_cast<const T2*>(b.v);
    T2* out2 = reinterpret_cast<T2*>(out.v);
#pragma unroll
    for (int j = 0; j < VEC / 2; ++j) out2[j] = __hadd2(a2[j], b2[j]);
  }
  return out;
}

// Sum of v over an aligned group of `width` lanes (a power of two, at most 32), returned to each
// lane of the group: log2(width) butterfly steps through registers, no shared memory. Every lane
// ends with the same bits (a + b == b + a in IEEE arithmetic). All 32 lanes of the warp must call
// it: the mask says all of them take part.
__device__ __forceinline__ float group_sum(float v, int width) {
  for (int offset = width / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// Sum of v over the whole block (blockDim.x a multiple of 32), returned to every thread: each
// warp reduces with shuffles, then every warp reads the (at most 32) warp sums from shared memory
// and reduces them the same way, so all threads get identical bits. No barrier after the reads:
// warp_sums may be written again only past another barrier (RowSums below).
__device__ __forceinline__ float block_sum(float v, float* warp_sums) {
  const int lane = threadIdx.x % 32;
  const int warp = threadIdx.x / 32;
  v = group_sum(v, 32);
  if (lane == 0) warp_sums[warp] = v;
  __syncthreads();
  v = lane < static_cast<int>(blockDim.x / 32) ? warp_sums[lane] : 0.0f;
  return group_sum(v, 32);
}

// block_sum for a block that sums one row after another, with one barrier per row: two sets of
// warp sums, used by alternate rows. A warp that runs ahead into the next row writes the other
// set while slower warps still read this one, and reaching this set again takes the next row's
// barrier, which every warp must have passed, so past their reads.
class RowSums {
 public:
  __device__ explicit RowSums(float* shared64) : sums_(shared64) {}  // 64 floats of shared memory
  __device__ __forceinline__ float operator()(float v) {
    const float total = block_sum(v, sums_ + half_);
    half_ ^= 32;
    return total;
  }

 private:
  float* sums_;
  int half_ = 0;
};

// A 16-byte pack of x or the residual; kNoL1: loaded without allocating it in L1
// (ld.global.nc.L1::no_allocate). The few-rows block-row kernels (rows <= kFewRows) read their
// rows this way. On an H200, beside the same kernel with ordinary loads in one run
// (benchmarks/h200_session13, calls 3 and 4): rmsnorm 0.15-0.2 µs faster at 256 x 4096,
// 64 x 8192 and 256 x 8192, the fused kernel 0.2-0.25 µs faster at 64-256 rows, and at 1-16 rows
// within what moves between runs. With many rows the same loads ran 5% slower (16384 x 4096:
// 70.2 µs against 66.5), so those kernels do not read this way.
//
// kEvictLast: loaded with L1 and L2 evict-last policies (createpolicy makes the L2 one), the load
// Triton emits for eviction_policy="evict_last" on sm_90. The many-rows kernels read x (and the
// residual) this way. rmsnorm on an H200, beside the same
// kernel with ordinary loads in one run (benchmarks/h200_session24, call 2): 16384 x 4096 64.3 µs
// against 66.2, 32768 x 4096 125.6 against 130.9, 4096 x 8192 33.3 against 33.9, 16384 x 8192
// 125.3 against 129.9, 32768 x 8192 248.7 against 257.4 (torch's copy of x: 63.1, 126.6, 32.3,
// 126.9, 254.5; Inductor's kernel at N = 8192: 33.3, 125.2, 248.4), and 4096 x 4096 18.9 against
// 18.7. Reading x again after the reduction instead of holding it
// (Inductor's two passes) added nothing to the policy; without it, it gained at two of those
// shapes (16384 x 4096 64.3, 4096 x 8192 32.8) and not at the three largest. The Triton rung's
// fused kernel gained 3-4% at 4096-32768 rows of 4096 and 8192 from the same policy on x and the
// residual (benchmarks/h200_session26, call 1), and so the fused kernel here reads both this way:
// in the bench after (call 2) 1.05-1.08x the compiled rung from 4096 rows, 16384 x 8192 251.7 µs,
// where the bench before, with ordinary loads, had 1.02-1.05x and 260.1 (the compiled rung 265.7
// in both).
template <bool kNoL1, bool kEvictLast, typename P>
__device__ __forceinline__ P load_row_pack(const P* p) {
  if constexpr ((kNoL1 || kEvictLast) && sizeof(P) == 16) {
    uint4 r;
    if constexpr (kNoL1) {
      asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
          : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
          : "l"(p));
    } else {
      uint64_t policy;
      asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(policy));
      asm("ld.global.L1::evict_last.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
          : "=r"(r.x), "=r"(r.y), "=r"(r.z), "=r"(r.w)
          : "l"(p), "l"(policy));
    }
    P out;
    *reinterpret_cast<uint4*>(&out) = r;
    return out;
  } else {
    return *p;
  }
}

// The row in registers. Lane l of a row's group owns packs l, l + threads_per_row, ... (at most
// PACKS of them): neighbouring lanes read neighbouring 16-byte packs, so a warp reads 512
// contiguous bytes per instruction. VEC = elements per pack: 16 / sizeof(T) when the launcher
// found every row start 16-byte aligned, 1 otherwise. kAdd: fused_add_rmsnorm. kExact: the
// launcher found that the plan covers the row exactly (n == blockDim.x x PACKS x VEC, a block per
// row: every Llama row): every guard below folds to true, and the tail and the row loop go. At
// 1 x 4096 bf16 that is 131 instructions from entry to the last store instead of ~190.
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
    float inv_n) {                   // 1 / n, rounded once on the host (no division per row)
  using Pack = KlPack<T, VEC>;
  const int n_packs = n / VEC;
  const int tail = n - n_packs * VEC;  // the last n % VEC elements, in no pack
  // Lane and row within the block without an integer division (a dozen dependent instructions
  // ahead of the first load, when threads_per_row was divided at run time): kBlockRow, one row
  // per block, is a template parameter; otherwise threads_per_row is a power of two.
  const int shift = __ffs(threads_per_row) - 1;  // log2(threads_per_row) when !kBlockRow
  const int lane = kBlockRow ? static_cast<int>(threadIdx.x) : static_cast<int>(threadIdx.x) & (threads_per_row - 1);
  const int rows_per_block = kBlockRow ? 1 : static_cast<int>(blockDim.x) >> shift;
  const int row_in_block = kBlockRow ? 0 : static_cast<int>(threadIdx.x) >> shift;
  __shared__ float warp_sums[64];
  RowSums row_sum(warp_sums);
  // The few-rows block-row kernels (the weight loaded early) read x and the residual past L1;
  // the many-rows block-row kernels read them with evict-last policies (load_row_pack).
  constexpr bool kNoL1 = kBlockRow && kWeightEarly;
  constexpr bool kEvictLast = kBlockRow && !kWeightEarly;
  // Launched with programmatic dependent launch (kDependentLaunch): the index math above ran
  // while the previous kernel finished; its writes are visible from here on.
  kl_wait_previous_grid();
  kl_release_next_grid();

  // `first` is the same for every thread of the block, so all of them run the same iterations
  // and reach every shuffle and barrier; a thread whose row is past the end just idles.
  for (int64_t first = int64_t(blockIdx.x) * rows_per_block; first < rows;
       first += int64_t(gridDim.x) * rows_per_block) {
    const int64_t row = first + row_in_block;
    const bool active = row < rows;
    // The row's starts: the only 64-bit arithmetic; offsets within a row are 32-bit (n is an int).
    const T* x_row = x + row * x_row_stride;
    const T* r_row = residual + (kAdd ? row * residual_row_stride : 0);
    T* y_row = y + row * n;
    T* h_row = h + (kAdd ? row * n : 0);
    const Pack* xp = reinterpret_cast<const Pack*>(x_row);
    const Pack* wp = reinterpret_cast<const Pack*>(weight);

    // 1. Every load of the row is issued before any is used: PACKS 16-byte loads in flight per
    //    thread (2 x PACKS with the residual).
    Pack v[PACKS];
#pragma unroll
    for (int k = 0; k < PACKS; ++k) {
      const int p = lane + k * threads_per_row;
      if (kExact || (active && p < n_packs)) v[k] = load_row_pack<kNoL1, kEvictLast>(xp + p);
    }
    // The weight. kWeightEarly (the launcher's plan for rows <= kFewRows, and for short rows of
    // 1-2 packs): loaded now, with the row, into registers held across the reduction; at few rows
    // the weight is in no cache yet and a load issued after the reduction would be a second DRAM
    // round trip (~1 µs at M = 1). Otherwise it is read in step 4, from L1/L2 by then, and the
    // registers it would hold go to occupancy.
    Pack w[PACKS];  // unused, and removed by the compiler, when the weight is read late
    if constexpr (kWeightEarly) {
#pragma unroll
      for (int k = 0; k < PACKS; ++k) {
        const int p = lane + k * threads_per_row;
        if (kExact || (active && p < n_packs)) w[k] = wp[p];
      }
    }
    if constexpr (kAdd) {
      const Pack* rp = reinterpret_cast<const Pack*>(r_row);
      Pack* hp = reinterpret_cast<Pack*>(h_row);
      Pack r[PACKS];
#pragma unroll
      for (int k = 0; k < PACKS; ++k) {
        const int p = lane + k * threads_per_row;
        if (kExact || (active && p < n_packs)) r[k] = load_row_pack<kNoL1, kEvictLast>(rp + p);
      }
      // h = x + residual rounded to T: it is an output, and y is the norm of this rounded h.
#pragma unroll
      for (int k = 0; k < PACKS; ++k) {
        const int p = lane + k * threads_per_row;
        if (kExact || (active && p < n_packs)) {
          v[k] = add_rn(v[k], r[k]);
          hp[p] = v[k];
        }
      }
    }

    // 2. The sum of squares: this thread's share, in fp32.
    float ss = 0.0f;
#pragma unroll
    for (int k = 0; k < PACKS; ++k) {
      const int p = lane + k * threads_per_row;
      if (kExact || (active && p < n_packs)) {
#pragma unroll
        for (int j = 0; j < VEC; ++j) {
          const float f = to_float(v[k].v[j]);
          ss += f * f;
        }
      }
    }
    // The scalar tail (vector path only, at most VEC - 1 elements): one element per lane at a
    // time, read again in step 4 rather than held (it is in L1 by then).
    if constexpr (VEC > 1 && !kExact) {
      for (int i = lane; active && i < tail; i += threads_per_row) {
        const int c = n_packs * VEC + i;
        float f = to_float(x_row[c]);
        if constexpr (kAdd) {
          const T hv = from_float<T>(f + to_float(r_row[c]));
          h_row[c] = hv;
          f = to_float(hv);
        }
        ss += f * f;
      }
    }

    // 3. The row's total, on every lane of the row. Short rows stay inside a warp.
    if constexpr (kBlockRow) ss = row_sum(ss);
    else ss = group_sum(ss, threads_per_row);
    // rsqrtf (not fast-math) is within 2 ulp. A zero row gives rsqrt(eps): finite, y = 0.
    const float rstd = rsqrtf(ss * inv_n + eps);

    // 4. Normalize from registers; x is not read again.
    Pack* yp = reinterpret_cast<Pack*>(y_row);
#pragma unroll
    for (int k = 0; k < PACKS; ++k) {
      const int p = lane + k * threads_per_row;
      if (kExact || (active && p < n_packs)) {
        Pack wk;
        if constexpr (kWeightEarly) wk = w[k];
        else wk = wp[p];
        Pack out;
#pragma unroll
        for (int j = 0; j < VEC; ++j) out.v[j] = from_float<T>(to_float(v[k].v[j]) * rstd * to_float(wk.v[j]));
        yp[p] = out;
      }
    }
    if constexpr (VEC > 1 && !kExact) {
      for (int i = lane; active && i < tail; i += threads_per_row) {
        const int c = n_packs * VEC + i;
        // h[c] was stored by this same thread in step 2.
        const float f = kAdd ? to_float(h_row[c]) : to_float(x_row[c]);
        y_row[c] = from_float<T>(f * rstd * to_float(weight[c]));
      }
    }
    // kExact kernels are launched with a block per row: one iteration, and without the loop the
    // compiler keeps the weight's load beside the row's (hoisted out of a loop, its conversion
    // waited for it before the row's load was even issued).
    if constexpr (kExact) break;
  }
}

// Rows too long for registers: one block per row, two passes. Pass 1 streams the row once for
// the sum of squares (and stores h); pass 2 reads it again, x or the h just stored, and writes y.
// Each thread touches the same packs in both passes, so it re-reads only its own h stores.
// The second read mostly hits L2: 1-2 blocks of 1024 threads per SM x 132 SMs x 64 KB+ rows
// = 8-17 MB+ in flight against 50 MB of L2 (H100/H200).
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
  using Pack = KlPack<T, VEC>;
  const int n_packs = n / VEC;
  const int tail = n - n_packs * VEC;
  __shared__ float warp_sums[64];
  RowSums row_sum(warp_sums);
  kl_wait_previous_grid();  // as in _rmsnorm_kernel
  kl_release_next_grid();

  for (int64_t row = blockIdx.x; row < rows; row += gridDim.x) {
    const Pack* xp = reinterpret_cast<const Pack*>(x + row * x_row_stride);
    const Pack* rp = reinterpret_cast<const Pack*>(residual + (kAdd ? row * residual_row_stride : 0));
    const Pack* wp = reinterpret_cast<const Pack*>(weight);
    Pack* hp = reinterpret_cast<Pack*>(h + (kAdd ? row * n : 0));
    Pack* yp = reinterpret_cast<Pack*>(y + row * n);

    float ss = 0.0f;
    // Unrolled 4x: four independent 16-byte loads (eight with the residual) in flight per thread.
#pragma unroll 4
    for (int p = threadIdx.x; p < n_packs; p += blockDim.x) {
      Pack v = xp[p];
      if constexpr (kAdd) {
        v = add_rn(v, rp[p]);
        hp[p] = v;
      }
#pragma unroll
      for (int j = 0; j < VEC; ++j) {
        const float f = to_float(v.v[j]);
        ss += f * f;
      }
    }
    if constexpr (VEC > 1) {
      for (int i = threadIdx.x; i < tail; i += blockDim.x) {
        const int64_t c = int64_t(n_packs) * VEC + i;
        float f = to_float(x[row * x_row_stride + c]);
        if constexpr (kAdd) {
          const T hv = from_float<T>(f + to_float(residual[row * residual_row_stride + c]));
          h[row * n + c] = hv;
          f = to_float(hv);
        }
        ss += f * f;
      }
    }

    const float rstd = rsqrtf(row_sum(ss) / static_cast<float>(n) + eps);

#pragma unroll 4
    for (int p = threadIdx.x; p < n_packs; p += blockDim.x) {
      Pack v;
      if constexpr (kAdd) {
        v = hp[p];
      } else {
        v = xp[p];
      }
      const Pack w = wp[p];
      Pack out;
#pragma unroll
      for (int j = 0; j < VEC; ++j) out.v[j] = from_float<T>(to_float(v.v[j]) * rstd * to_float(w.v[j]));
      yp[p] = out;
    }
    if constexpr (VEC > 1) {
      for (int i = threadIdx.x; i < tail; i += blockDim.x) {
        const int64_t c = int64_t(n_packs) * VEC + i;
        const float f = kAdd ? to_float(h[row * n + c]) : to_float(x[row * x_row_stride + c]);
        y[row * n + c] = from_float<T>(f * rstd * to_float(weight[c]));
      }
    }
  }
}

}  // namespace

// The launchers, shared with the exercise.
#include "rmsnorm_launch.cuh"
