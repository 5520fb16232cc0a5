// paged_decode: one decode step of attention over a paged KV cache, grouped-query heads,
// flash-decoding (split-KV). fp32, fp16 and bf16; scores, softmax and accumulation in fp32.
//
// Napkin math, H200, Llama-3 8B decode (32 query / 8 kv heads, D = 128, bf16), 64 x 4096 tokens:
//   bytes  K + V rows read once: 64 x 4096 x 8 x 128 x 2 B x 2 = 1.07 GB (q and out: 1 MB)
//   SOL    1.07 GB / 4.27 TB/s (measured copy bandwidth) = 252 us
//   FLOPs  4 per (token, query head, dim): 4.3 GFLOP. On the fp32 pipes (67 TFLOP/s) that is 64 us,
//          a quarter of the SOL time: memory-bound, but the arithmetic and the shuffles are not
//          free, so each K/V element is used for all query heads of its group while in registers.
//
// Two kernels:
//   _paged_decode_split_kernel  one block of 4 warps per (split, kv head [, chunk of its query
//                               heads], sequence). A token's K (and V) row for one kv head is D
//                               contiguous elements: LANES = D / VEC lanes read it with one
//                               16-byte load each, so a warp reads 32 / LANES rows per load
//                               instruction, every byte of the 32-byte sectors it touches used.
//                               Dot products: VEC products per lane, then a shuffle butterfly
//                               over the row's LANES lanes. Online softmax in base 2 (q is
//                               pre-scaled by scale x log2(e), so exp2f is one instruction).
//   _paged_decode_merge_kernel  one block per (sequence, query head): the splits' partial
//                               results merged by their log-sum-exp.
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kl_common.cuh"
#include "paged_decode.h"

namespace {

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
constexpr float kLog2e = 1.4426950408889634f;
// Batch rides in gridDim.z, kv heads x head chunks in gridDim.y: both limited to 65535.
constexpr int64_t kMaxGridYZ = 65535;

// Sum of v over aligned groups of `width` lanes (a power of two <= 32), on every lane of the group.
template <int width>
__device__ __forceinline__ float group_sum(float v) {
#pragma unroll
  for (int offset = width / 2; offset > 0; offset /= 2) v += __shfl_xor_sync(0xffffffffu, v, offset);
  return v;
}

// Merging two online-softmax states (m, l, acc): the new maximum and the exp2 factors that
// rescale each state to it. A -inf maximum (no token seen) gets factor 0, never exp2f(-inf + inf).
struct Rescale {
  float m, a, b;
};

__device__ __forceinline__ Rescale merge_factors(float m_a, float m_b) {
  const float m = fmaxf(m_a, m_b);
  const float m_use = m == -INFINITY ? 0.0f : m;
  return {m, exp2f(m_a - m_use), exp2f(m_b - m_use)};
}

template <typename T, int D, int G, int U>
__global__ void __launch_bounds__(kThreads) _paged_decode_split_kernel(
    const T* __restrict__ q,                 // [B, Hq, D], rows at q_stride_b, q_stride_h
    const T* __restrict__ k_cache,           // [P, S, Hkv, D] (strides in elements)
    const T* __restrict__ v_cache,
    const int32_t* __restrict__ block_table, // [B, *], row stride bt_stride
    const int32_t* __restrict__ seq_lens,    // [B]
    T* __restrict__ out,                     // [B, Hq, D] contiguous (num_splits == 1)
    float* __restrict__ part_o,              // [B, Hq, num_splits, D] (num_splits > 1)
    float* __restrict__ part_lse,            // [B, Hq, num_splits], base-2 log-sum-exp
    int q_heads, int group, int page_size,
    int64_t q_stride_b, int64_t q_stride_h,
    int64_t k_stride_page, int64_t k_stride_slot, int64_t k_stride_head,
    int64_t v_stride_page, int64_t v_stride_slot, int64_t v_stride_head,
    int64_t bt_stride,
    float qk_scale,                          // scale x log2(e)
    int num_splits) {
  constexpr int VEC = kl_vec16<T>;           // elements per 16-byte load: 8 bf16/fp16, 4 fp32
  constexpr int LANES = D / VEC;             // lanes that read one token's row
  constexpr int TPW = 32 / LANES;            // tokens a warp reads per load instruction
  constexpr int STEP = kWarps * TPW * U;     // tokens the block reads per iteration
  static_assert(LANES >= 1 && LANES <= 32 && 32 % LANES == 0, "D / VEC must divide 32");
  using Pack = KlPack<T, VEC>;

  const int split = blockIdx.x;
  const int chunks = (group + G - 1) / G;    // blocks per kv head when the group exceeds G
  const int kvh = blockIdx.y / chunks;
  const int head0 = kvh * group + (blockIdx.y % chunks) * G;
  const int heads_here = min(G, kvh * group + group - head0);
  const int64_t b = blockIdx.z;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int sub = lane / LANES;              // which of the warp's TPW tokens
  const int part = lane % LANES;             // which VEC elements of the row

  // This split's tokens: whole iterations, so only the sequence's last one is partial.
  const int seq_len = seq_lens[b];
  const int per_split = kl_cdiv(kl_cdiv(seq_len, STEP), num_splits) * STEP;
  const int start = split * per_split;
  const int end = min(start + per_split, seq_len);

  // The group's queries, this lane's VEC dimensions, pre-scaled, in fp32 registers.
  float qr[G][VEC];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const T* qp = q + b * q_stride_b + int64_t(head0 + g) * q_stride_h + part * VEC;
#pragma unroll
    for (int j = 0; j < VEC; ++j) qr[g][j] = g < heads_here ? to_float(qp[j]) * qk_scale : 0.0f;
  }
  float m[G], l[G], acc[G][VEC];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    m[g] = -INFINITY;
    l[g] = 0.0f;
#pragma unroll
    for (int j = 0; j < VEC; ++j) acc[g][j] = 0.0f;
  }

  const int32_t* table = block_table + b * bt_stride;
  const T* k_head = k_cache + int64_t(kvh) * k_stride_head + part * VEC;
  const T* v_head = v_cache + int64_t(kvh) * v_stride_head + part * VEC;
  for (int s0 = start; s0 < end; s0 += STEP) {
    // 1. Every load of the iteration in flight before any is used: U K rows and U V rows.
    Pack kp[U], vp[U];
    bool ok[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int t = s0 + (warp * U + u) * TPW + sub;
      ok[u] = t < end;
      if (ok[u]) {
        const int64_t page = table[t / page_size];
        const int slot = t % page_size;
        kp[u] = *reinterpret_cast<const Pack*>(k_head + page * k_stride_page + slot * k_stride_slot);
        vp[u] = *reinterpret_cast<const Pack*>(v_head + page * v_stride_page + slot * v_stride_slot);
      } else {
#pragma unroll
        for (int j = 0; j < VEC; ++j) kp[u].v[j] = vp[u].v[j] = from_float<T>(0.0f);  // 0 x garbage could be NaN
      }
    }
    // 2. Scores: VEC products per lane, summed over the row's LANES lanes. Every lane takes part
    //    in the shuffles; tokens past the end get -inf.
    float s[U][G];
#pragma unroll
    for (int u = 0; u < U; ++u) {
#pragma unroll
      for (int g = 0; g < G; ++g) {
        float dot = 0.0f;
#pragma unroll
        for (int j = 0; j < VEC; ++j) dot = fmaf(qr[g][j], to_float(kp[u].v[j]), dot);
        dot = group_sum<LANES>(dot);
        s[u][g] = ok[u] ? dot : -INFINITY;
      }
    }
    // 3. Online softmax, one rescale per iteration: the U new scores share one new maximum.
#pragma unroll
    for (int g = 0; g < G; ++g) {
      float chunk = s[0][g];
#pragma unroll
      for (int u = 1; u < U; ++u) chunk = fmaxf(chunk, s[u][g]);
      const Rescale r = merge_factors(m[g], chunk);
      const float alpha = r.a;
      const float m_new = r.m;
      const float m_use = m_new == -INFINITY ? 0.0f : m_new;
      l[g] *= alpha;
#pragma unroll
      for (int j = 0; j < VEC; ++j) acc[g][j] *= alpha;
#pragma unroll
      for (int u = 0; u < U; ++u) {
        const float p = exp2f(s[u][g] - m_use);
        l[g] += p;
#pragma unroll
        for (int j = 0; j < VEC; ++j) acc[g][j] = fmaf(p, to_float(vp[u].v[j]), acc[g][j]);
      }
      m[g] = m_new;
    }
  }

  // 4. The warp's TPW token streams merged: lanes `part`, `part + LANES`, ... hold the same dims.
#pragma unroll
  for (int offset = LANES; offset < 32; offset *= 2) {
#pragma unroll
    for (int g = 0; g < G; ++g) {
      const float m_o = __shfl_xor_sync(0xffffffffu, m[g], offset);
      const float l_o = __shfl_xor_sync(0xffffffffu, l[g], offset);
      const Rescale f = merge_factors(m[g], m_o);
      m[g] = f.m;
      l[g] = l[g] * f.a + l_o * f.b;
#pragma unroll
      for (int j = 0; j < VEC; ++j) {
        acc[g][j] = acc[g][j] * f.a + __shfl_xor_sync(0xffffffffu, acc[g][j], offset) * f.b;
      }
    }
  }

  // 5. The block's 4 warps merged through shared memory, then normalized and stored.
  __shared__ float sm_m[kWarps][G];
  __shared__ float sm_l[kWarps][G];
  __shared__ float sm_acc[kWarps][G][D];
  if (sub == 0) {
#pragma unroll
    for (int g = 0; g < G; ++g) {
#pragma unroll
      for (int j = 0; j < VEC; ++j) sm_acc[warp][g][part * VEC + j] = acc[g][j];
      if (part == 0) {
        sm_m[warp][g] = m[g];
        sm_l[warp][g] = l[g];
      }
    }
  }
  __syncthreads();
  for (int i = threadIdx.x; i < heads_here * D; i += kThreads) {
    const int g = i / D;
    const int d = i % D;
    float mx = -INFINITY;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) mx = fmaxf(mx, sm_m[w][g]);
    const float m_use = mx == -INFINITY ? 0.0f : mx;
    float lsum = 0.0f, o = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      const float f = exp2f(sm_m[w][g] - m_use);
      lsum += sm_l[w][g] * f;
      o += sm_acc[w][g][d] * f;
    }
    const int64_t row = b * q_heads + head0 + g;
    if (num_splits == 1) {
      out[row * D + d] = from_float<T>(o / lsum);
    } else {
      // An empty split (a short sequence in a batch sized for a long one) weighs 0 in the merge.
      const int64_t r = row * num_splits + split;
      part_o[r * D + d] = lsum > 0.0f ? o / lsum : 0.0f;
      if (d == 0) part_lse[r] = lsum > 0.0f ? m_use + log2f(lsum) : -INFINITY;
    }
  }
}

// out = sum_s 2^(lse_s - M) o_s / sum_s 2^(lse_s - M), M the largest lse: one thread per dim.
template <typename T, int D>
__global__ void __launch_bounds__(D) _paged_decode_merge_kernel(
    const float* __restrict__ part_o,    // [B x Hq, num_splits, D]
    const float* __restrict__ part_lse,  // [B x Hq, num_splits]
    T* __restrict__ out,                 // [B x Hq, D]
    int num_splits) {
  const int64_t row = blockIdx.x;
  const int d = threadIdx.x;
  const float* lse = part_lse + row * num_splits;
  float mx = -INFINITY;
  for (int s = 0; s < num_splits; ++s) mx = fmaxf(mx, lse[s]);
  float lsum = 0.0f, o = 0.0f;
  for (int s = 0; s < num_splits; ++s) {
    const float w = exp2f(lse[s] - mx);
    lsum += w;
    o = fmaf(w, part_o[(row * num_splits + s) * D + d], o);
  }
  out[row * D + d] = from_float<T>(o / lsum);
}

struct Args {
  const void *q, *k, *v;
  const int32_t *block_table, *seq_lens;
  void* out;
  float *part_o, *part_lse;
  int64_t batch, q_heads, kv_heads, page_size;
  int64_t q_sb, q_sh, k_sp, k_ss, k_sh, v_sp, v_ss, v_sh, bt_stride;
  float qk_scale;
  int num_splits;
  cudaStream_t stream;
};

template <typename T, int D, int G>
void launch_split(const Args& a) {
  // Loads in flight per thread per iteration: U K rows and U V rows. 8 query heads hold 2 x 64
  // fp32 registers of q and accumulators already; 2 rows each keeps them under the 255 limit.
  constexpr int U = G >= 8 ? 2 : 4;
  const int group = static_cast<int>(a.q_heads / a.kv_heads);
  const int chunks = (group + G - 1) / G;
  if (a.kv_heads * chunks > kMaxGridYZ || a.batch > kMaxGridYZ) {
    throw std::invalid_argument("paged_decode: at most 65535 sequences and 65535 kv heads x head "
                                "chunks per call, got batch " + std::to_string(a.batch));
  }
  const dim3 grid(a.num_splits, static_cast<unsigned>(a.kv_heads * chunks), static_cast<unsigned>(a.batch));
  _paged_decode_split_kernel<T, D, G, U><<<grid, kThreads, 0, a.stream>>>(
      static_cast<const T*>(a.q), static_cast<const T*>(a.k), static_cast<const T*>(a.v), a.block_table,
      a.seq_lens, static_cast<T*>(a.out), a.part_o, a.part_lse, static_cast<int>(a.q_heads), group,
      static_cast<int>(a.page_size), a.q_sb, a.q_sh, a.k_sp, a.k_ss, a.k_sh, a.v_sp, a.v_ss, a.v_sh,
      a.bt_stride, a.qk_scale, a.num_splits);
  KL_CUDA_CHECK(cudaGetLastError());
  if (a.num_splits > 1) {
    _paged_decode_merge_kernel<T, D><<<static_cast<unsigned>(a.batch * a.q_heads), D, 0, a.stream>>>(
        a.part_o, a.part_lse, static_cast<T*>(a.out), a.num_splits);
    KL_CUDA_CHECK(cudaGetLastError());
  }
}

// Query heads per block: the group, rounded up to 1, 2, 4 or 8; larger groups take several blocks
// per kv head (each reads the kv head again, mostly from L2).
template <typename T, int D>
void launch_group(const Args& a) {
  const int64_t group = a.q_heads / a.kv_heads;
  if (group <= 1) {
    launch_split<T, D, 1>(a);
  } else if (group <= 2) {
    launch_split<T, D, 2>(a);
  } else if (group <= 4) {
    launch_split<T, D, 4>(a);
  } else {
    launch_split<T, D, 8>(a);
  }
}

template <typename T>
void launch_dim(const Args& a, int64_t head_dim) {
  constexpr int kVec = kl_vec16<T>;
  // 16-byte loads need every K/V row start 16-byte aligned.
  const int64_t strides[] = {a.k_sp, a.k_ss, a.k_sh, a.v_sp, a.v_ss, a.v_sh};
  for (int64_t s : strides) {
    if (s % kVec != 0) {
      throw std::invalid_argument("paged_decode: k_cache and v_cache strides must be multiples of " +
                                  std::to_string(kVec) + " elements (16 bytes), got " + std::to_string(s));
    }
  }
  if (!kl_is_aligned16(a.k) || !kl_is_aligned16(a.v)) {
    throw std::invalid_argument("paged_decode: k_cache and v_cache must start on a 16-byte boundary");
  }
  if (head_dim == 64) {
    launch_group<T, 64>(a);
  } else if (head_dim == 128) {
    launch_group<T, 128>(a);
  } else {
    throw std::invalid_argument("paged_decode: head_dim must be 64 or 128, got " + std::to_string(head_dim));
  }
}

}  // namespace

extern "C" void paged_decode_launch(const void* q, const void* k_cache, const void* v_cache,
                                    const int32_t* block_table, const int32_t* seq_lens, void* out,
                                    float* part_o, float* part_lse, int64_t batch, int64_t q_heads,
                                    int64_t kv_heads, int64_t head_dim, int64_t page_size,
                                    int64_t q_stride_b, int64_t q_stride_h, int64_t k_stride_page,
                                    int64_t k_stride_slot, int64_t k_stride_head,
                                    int64_t v_stride_page, int64_t v_stride_slot,
                                    int64_t v_stride_head, int64_t bt_stride, float scale,
                                    int num_splits, int dtype, cudaStream_t stream) {
  if (batch == 0) return;  // a grid with a zero dimension is a launch error
  if (kv_heads <= 0 || q_heads % kv_heads != 0) {
    throw std::invalid_argument("paged_decode: q_heads must be a multiple of kv_heads");
  }
  if (num_splits < 1 || page_size < 1) {
    throw std::invalid_argument("paged_decode: num_splits and page_size must be at least 1");
  }
  const Args a{q, k_cache, v_cache, block_table, seq_lens, out, part_o, part_lse, batch, q_heads,
               kv_heads, page_size, q_stride_b, q_stride_h, k_stride_page, k_stride_slot,
               k_stride_head, v_stride_page, v_stride_slot, v_stride_head, bt_stride,
               scale * kLog2e, num_splits, stream};
  switch (dtype) {
    case KL_F32:
      launch_dim<float>(a, head_dim);
      break;
    case KL_F16:
      launch_dim<__half>(a, head_dim);
      break;
    case KL_BF16:
      launch_dim<__nv_bfloat16>(a, head_dim);
      break;
    default:
      throw std::invalid_argument("paged_decode: unsupported dtype code " + std::to_string(dtype));
  }
}
