// Exercise: the CUDA C++ rung of paged_decode (flash-decoding over a paged KV cache).
//   out[b, h] = softmax(q[b, h] . K_b^T x scale) V_b over the first seq_lens[b] tokens of sequence b,
//   token t in page block_table[b, t / S] at slot t % S, query head h reading kv head h / (Hq / Hkv).
//
// Write group_sum, the main loop of _paged_decode_split_kernel (steps 1-3) and the body of
// _paged_decode_merge_kernel; the setup, the merges across lanes and warps and the launchers are
// given. Grade with
//     python -m grading check paged_decode --rung cuda
// (without a GPU the grader compiles this file with nvcc and shows its register report).
//
// Napkin math, H200, 64 sequences x 4096 tokens, 32 query / 8 kv heads, D = 128, bf16: K and V
// are read once, 1.07 GB, 252 us at 4.27 TB/s. Fast means: each K/V row read by one block with
// 16-byte loads, used for all query heads of its group while in registers, and enough loads in
// flight (U rows of K and of V per thread per iteration).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kl_common.cuh"
#include "paged_decode.h"
#include "paged_decode_launch.cuh"  // Args, the checks and dispatch, paged_decode_launch (given)

namespace {

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;

// Sum of v over aligned groups of `width` lanes (a power of two <= 32), on every lane of the group.
template <int width>
__device__ __forceinline__ float group_sum(float v) {
  // TODO: a butterfly, for offset = width / 2, width / 4, ..., 1:
  //   v += __shfl_xor_sync(0xffffffffu, v, offset);
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
  // TODO: write this loop, then delete the next line (it tells the grader the stub is unwritten).
#define KL_STUB_NOT_IMPLEMENTED 1
  // for (int s0 = start; s0 < end; s0 += STEP):
  //  1. For u = 0 .. U-1 this thread's token is t = s0 + (warp * U + u) * TPW + sub; it is valid
  //     when t < end. Look its page up (table[t / page_size], slot t % page_size) and load this
  //     lane's 16 bytes of the K row and of the V row as Packs:
  //       *reinterpret_cast<const Pack*>(k_head + page * k_stride_page + slot * k_stride_slot)
  //     (zeros for an invalid token: 0 x garbage can be NaN). Issue all 2U loads before using any.
  //  2. For each u and query head g < G: dot = sum_j qr[g][j] * to_float(kp[u].v[j]), then
  //     group_sum<LANES>(dot) (every lane must call it); the score is -INFINITY for invalid tokens.
  //  3. Online softmax per head g: the new maximum over m[g] and the U scores (merge_factors gives
  //     it with the factor that rescales l[g] and acc[g][*]); then for each u, p = exp2f(score -
  //     max) (use 0 for the max while it is -INFINITY), l[g] += p, acc[g][j] += p * v.
  (void)table;
  (void)k_head;
  (void)v_head;

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
  // TODO: the largest of the num_splits values part_lse[row * num_splits + s], then
  //   lsum = sum_s exp2f(lse_s - max),  o = sum_s exp2f(lse_s - max) * part_o[(row * num_splits + s) * D + d]
  float lsum = 1.0f, o = 0.0f;
  (void)part_o;
  (void)part_lse;
  (void)num_splits;
  out[row * D + d] = from_float<T>(o / lsum);
}

template <typename T, int D, int G>
void launch_split(const Args& a) {
  // Loads in flight per thread per iteration: U K rows and U V rows. 8 query heads hold 2 x 64
  // fp32 registers of q and accumulators already; 2 rows each keeps them under the 255 limit.
  constexpr int U = G >= 8 ? 2 : 4;
  const int group = static_cast<int>(a.q_heads / a.kv_heads);
  const int chunks = (group + G - 1) / G;
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

}  // namespace
