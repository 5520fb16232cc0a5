// paged_decode: one decode step of attention over a paged KV cache, grouped-query heads,
// flash-decoding (split-KV). fp32, fp16 and bf16; scores, softmax and accumulation in fp32.
//
// Napkin math, H200, Llama-3 8B decode (32 query / 8 kv heads, D = 128, bf16), 64 x 4096 tokens:
//   bytes   K + V rows read once: 64 x 4096 x 8 x 128 x 2 B x 2 = 1.07 GB (q and out: 1 MB)
//   SOL     1.07 GB / 4.27 TB/s (measured copy bandwidth) = 252 us
//   flight  Little's law: 4.27 TB/s x ~1 us of DRAM latency under load = ~4 MB in flight, ~32 KB
//           per SM. A load into registers holds its registers until the data is used (16 B = 4
//           registers a thread): with ~200 registers a thread for queries and accumulators, 2 blocks
//           fit on an SM and keep ~16 KB in flight, half enough. So K and V go through shared memory
//           with cp.async (sm_80+), which holds no register: 3 tiles of 16 KB ahead per block,
//           2-3 blocks per SM, 96-144 KB in flight, set by shared memory alone.
//   issue   At SOL an SM takes in one token row (K + V of one kv head, 512 B) every 31 cycles
//           (2.1 M rows / 132 SMs in 252 us at 1.98 GHz): 4 schedulers x 31 = ~125 warp
//           instructions per row. With 64 query / 8 kv heads (group G = 8) the FMAs alone are
//           2 x 8 x 128 / 32 = 64 of them, so the rest must stay small: a 16-lane shuffle butterfly
//           per score (4 shuffles, at 1/4 the FMA rate) and an exp2 on each of 16 lanes would cost
//           as much as the FMAs. Below, a lane ends up with one whole score after ~1 shuffle per
//           score, and each exp2 is computed once. The main loop's SASS (sm_90a, bf16, D = 128),
//           per row: ~115 warp instructions at G = 8, ~76 at G = 4, ~52 at G = 1. G = 8 is close
//           to issue-bound even so (69% of the copy roof at 64/8 heads): from G = 4, and at D = 64,
//           in 16 bits, q.k and p.v go to the tensor cores (mma.sync), the third kernel below.
//
// Three kernels:
//   _paged_decode_split_kernel  one block of 4 warps per (split, kv head [, chunk of its query
//     heads], sequence) walks its share of the sequence in tiles of 16 KB of K and V (32 tokens at
//     D = 128 bf16; every split but the sequence's last is whole tiles).
//     Layout: a token's K (and V) row for one kv head is D contiguous elements; LANES = D / VEC
//     lanes hold 16 bytes of it each (16 lanes at D = 128 bf16), and these lanes own kTileRows = 4
//     consecutive tokens (rows) of every tile. Each lane copies its 16-byte pieces of its rows'
//     K and V rows with cp.async into its own slots of a kStages-deep ring in shared memory and
//     later reads back only what it copied itself: no __syncthreads in the main loop, a lane just
//     waits for its own copies (cp.async.wait_group). A tile's page numbers are looked up one tile
//     before its copies are issued, so the table lookup never delays a copy.
//     Scores: a lane multiplies its piece of R rows with its piece of all G queries: E = R x G
//     partial dot products (E = LANES where the tile has enough rows). A reduce-scatter butterfly
//     over the row's LANES lanes halves them at every stage (send one half, add the partner's
//     other half), so each lane ends with one whole score, its (row, query head) set by its lane
//     index: E - 1 shuffles for E scores, where a butterfly per score takes log2(LANES) each.
//     Softmax: one running max per query head for the whole warp (the scores of head g sit on the
//     lanes with lane % G == g), one exp2 per score, the weights p through shared memory to every
//     lane of the row.
//     p.V: a lane accumulates its VEC dims of V for all G query heads of the block.
//     At the end the warp's row groups are summed (they share the max) and the 4 warps are merged
//     by their maxima.
//   _paged_decode_mma_kernel  the same split, blocks and merge, each warp a flash-decoding worker
//     over 16-token tiles whose scores and p.V are mma.sync.m16n8k16 (fp32 accumulation); see
//     its own comment. 16-bit K/V with G >= 4 or D = 64 (kUseMma).
//   _paged_decode_merge_kernel  one block per (sequence, query head): the splits' partial
//                               results merged by their log-sum-exp, all splits read at once.
//
// The split count comes from the caller (solutions/paged_decode.py: a cost model over rounds of
// resident blocks: 3 per SM for the CUDA-core kernel, 2 for the tensor-core one at D = 128, 4 at
// D = 64).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <cstring>
#include <string>
#include <type_traits>

#include "kl_common.cuh"
#include "paged_decode.h"
#include "paged_decode_launch.cuh"  // Args, the checks and dispatch, paged_decode_launch

namespace {

constexpr int kWarps = 4;
constexpr int kThreads = kWarps * 32;
// Rows (tokens) a lane copies and reads per tile; 2 x kTileRows x 16 B of K and V a thread, so a
// tile is 128 x 128 B = 16 KB whatever the dtype and head dimension.
constexpr int kTileRows = 4;
// Tiles in the ring: kStages - 1 in flight while one is computed on. 4 x 16 KB = 64 KB a block.
constexpr int kStages = 4;
constexpr unsigned kFull = 0xffffffffu;

// Everything the kernel and its launcher derive from (dtype, head dim, query heads per block).
template <typename T, int D, int G>
struct Tile {
  static constexpr int VEC = kl_vec16<T>;       // elements per 16 bytes: 8 bf16/fp16, 4 fp32
  static constexpr int LANES = D / VEC;         // lanes that hold one row: 8, 16 or 32
  static constexpr int ROWS = 32 / LANES;       // row groups in a warp, each owns kTileRows rows
  static constexpr int TOKENS = kWarps * ROWS * kTileRows;  // tokens per tile: 16 to 64
  // Rows per score step: enough that the E = R x G partial dots fill the LANES lanes (one score
  // each after the reduce-scatter), at most the lane's rows of the tile.
  static constexpr int R = LANES / G < kTileRows ? LANES / G : kTileRows;
  static constexpr int E = R * G;
  static constexpr int STEPS = kTileRows / R;   // score steps per tile
  static constexpr int RING = kStages * 2 * kTileRows * kThreads;  // 16-byte chunks
  static constexpr int P_FLOATS = kWarps * ROWS * kTileRows * G;   // the tile's weights p
  static constexpr size_t SMEM = size_t(RING) * 16 + size_t(P_FLOATS) * sizeof(float);
  static_assert(LANES >= 8 && LANES <= 32 && 32 % LANES == 0, "a row is 128 to 512 bytes");
  static_assert(E <= LANES && kTileRows % R == 0, "at most one score per lane");
  // At the end the ring holds the 4 warps' results: [kWarps][G][D] accumulators, m and l.
  static_assert(size_t(kWarps) * G * (D + 2) * sizeof(float) <= size_t(RING) * 16, "merge fits the ring");
};

// --- cp.async (sm_80+): 16 bytes global -> shared, no register held while in flight --------------
__device__ __forceinline__ void cp_async16(void* dst, const void* src, bool read) {
  const unsigned dst_shared = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  // .cg: cached in L2 only (each byte is read once). Source size 0 reads nothing and writes 16
  // zero bytes: a token past the end becomes zeros in shared memory, never stale data or NaN.
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst_shared), "l"(src),
               "r"(read ? 16 : 0)
               : "memory");
}

// Closes the copies issued since the last commit into one group (one tile).
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }

// Waits until at most `pending` of this thread's groups are still in flight. Only the issuing
// thread is guaranteed to see the data: here every lane reads back only its own copies.
template <int pending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(pending) : "memory");
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

// What one block of either split kernel works on, decoded from the grid launch_split builds,
// (split, kv head x chunk of its query heads, sequence): query heads [head0, head0 + heads_here)
// of kv head kvh, and the split's tokens [start, end), whole runs of `tokens` (only the sequence's
// last run is partial).
struct BlockWork {
  int split, kvh, head0, heads_here;
  int64_t b;
  int start, end;
};

template <int G>
__device__ __forceinline__ BlockWork block_work(int group, const int32_t* __restrict__ seq_lens, int num_splits,
                                                int tokens) {
  BlockWork w;
  w.split = blockIdx.x;
  const int chunks = (group + G - 1) / G;  // blocks per kv head when the group exceeds G
  w.kvh = blockIdx.y / chunks;
  w.head0 = w.kvh * group + (blockIdx.y % chunks) * G;
  w.heads_here = min(G, w.kvh * group + group - w.head0);
  w.b = blockIdx.z;
  const int seq_len = seq_lens[w.b];
  const int per_split = kl_cdiv(kl_cdiv(seq_len, tokens), num_splits) * tokens;
  w.start = w.split * per_split;
  w.end = min(w.start + per_split, seq_len);
  return w;
}

// The end of both split kernels: the 4 warps' states in shared memory (acc [kWarps][G][D], m and l
// [kWarps][G]) merged by their maxima, normalized, and stored: the answer when there is one split,
// else this split's partial result and its base-2 log-sum-exp. row0 = the first head's row of out.
template <typename T, int D, int G>
__device__ __forceinline__ void merge_warps_and_store(const float* sm_acc, const float* sm_m, const float* sm_l,
                                                      int heads_here, int64_t row0, int split, int num_splits,
                                                      T* __restrict__ out, float* __restrict__ part_o,
                                                      float* __restrict__ part_lse) {
  for (int i = threadIdx.x; i < heads_here * D; i += kThreads) {
    const int g = i / D;
    const int d = i % D;
    float mx = -INFINITY;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) mx = fmaxf(mx, sm_m[w * G + g]);
    const float m_use = mx == -INFINITY ? 0.0f : mx;
    float lsum = 0.0f, o = 0.0f;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      const float f = exp2f(sm_m[w * G + g] - m_use);
      lsum += sm_l[w * G + g] * f;
      o += sm_acc[(w * G + g) * D + d] * f;
    }
    const int64_t row = row0 + g;
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

// (kThreads, 2): up to 255 registers a thread. G = 8 takes ~200 (2 blocks per SM; in 16 bits the
// tensor-core kernel runs there instead), the others fit 3, as many as the ring's 66 KB allows.
// Without the hint ptxas held a few instantiations to 80 or 128 registers and spilled a few bytes.
template <typename T, int D, int G>
__global__ void __launch_bounds__(kThreads, 2) _paged_decode_split_kernel(
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
  using L = Tile<T, D, G>;
  constexpr int VEC = L::VEC, LANES = L::LANES, ROWS = L::ROWS, R = L::R, E = L::E;
  using Pack = KlPack<T, VEC>;

  // Dynamic shared memory: the ring [kStages][2 x kTileRows][kThreads] of 16-byte chunks (a
  // thread's K rows, then its V rows, consecutive threads adjacent: conflict-free 16-byte
  // accesses), then the weights p [kWarps][ROWS][kTileRows][G].
  extern __shared__ __align__(128) uint4 smem[];
  float* p_buf = reinterpret_cast<float*>(smem + L::RING);

  const BlockWork w = block_work<G>(group, seq_lens, num_splits, L::TOKENS);
  const int split = w.split, kvh = w.kvh, head0 = w.head0, heads_here = w.heads_here, start = w.start, end = w.end;
  const int64_t b = w.b;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int sub = lane / LANES;              // the lane's row group in the warp
  const int part = lane % LANES;             // which VEC elements of a row
  const int rows = warp * ROWS + sub;        // row group in the block: tokens kTileRows x rows + [0, 4)
  // After the reduce-scatter this lane holds score x = part % E of a step: row x / G of the step's
  // R rows, query head x % G (= lane % G, the same head in every step and every row group).
  const int x = part % E;
  const int xr = x / G, xg = x % G;

  // This split's tokens, whole tiles (block_work).
  const int n_tiles = start < end ? kl_cdiv(end - start, L::TOKENS) : 0;
  const int row0 = start + kTileRows * rows;  // token of this lane's row 0 in tile 0

  // 1. The copy pipeline. lookup(j) reads the page numbers of the lane's rows of tile j (none
  //    past `end`: table entries and slots past the sequence are never read); issue(j) then
  //    starts the copies of tile j into ring slot j % kStages and commits them as one group.
  const int32_t* table = block_table + b * bt_stride;
  const T* k_head = k_cache + int64_t(kvh) * k_stride_head + part * VEC;
  const T* v_head = v_cache + int64_t(kvh) * v_stride_head + part * VEC;
  int page[kTileRows], slot[kTileRows];      // the lookups of the next tile to issue
  auto lookup = [&](int j) {
    // The lane's rows are consecutive tokens: one division, then the next slot, or slot 0 of the
    // next page. A row past the end gets page 0: an address that exists, never read.
    const int t0 = row0 + j * L::TOKENS;
    int col = static_cast<unsigned>(t0) / page_size;
    int s = t0 - col * page_size;
#pragma unroll
    for (int r = 0; r < kTileRows; ++r) {
      page[r] = t0 + r < end ? table[col] : 0;
      slot[r] = s;
      if (++s == page_size) {
        s = 0;
        ++col;
      }
    }
  };
  auto issue = [&](int j) {
    if (j < n_tiles) {
      const int t0 = row0 + j * L::TOKENS;
      uint4* dst = smem + (j % kStages) * (2 * kTileRows * kThreads) + threadIdx.x;
#pragma unroll
      for (int r = 0; r < kTileRows; ++r) {
        // page and slot are >= 0: zero-extended, a cheaper 64-bit product than sign-extended.
        const int64_t pg = static_cast<uint32_t>(page[r]), sl = static_cast<uint32_t>(slot[r]);
        const T* k_src = k_head + pg * k_stride_page + sl * k_stride_slot;
        const T* v_src = v_head + pg * v_stride_page + sl * v_stride_slot;
        cp_async16(dst + r * kThreads, k_src, t0 + r < end);
        cp_async16(dst + (kTileRows + r) * kThreads, v_src, t0 + r < end);
      }
    }
    cp_async_commit();  // an empty group past the last tile keeps the group count uniform
  };
#pragma unroll
  for (int j = 0; j < kStages - 1; ++j) {
    lookup(j);
    issue(j);
  }
  lookup(kStages - 1);

  // The group's queries, this lane's VEC dimensions, pre-scaled, in fp32 registers. Lane part
  // keeps head g ^ xg in register row g: the reduce-scatter below then always sends the upper
  // half of its partial dots and keeps the lower, with no lane-dependent select.
  float qr[G][VEC];
#pragma unroll
  for (int g = 0; g < G; ++g) {
    const int h = g ^ xg;
    const T* qp = q + b * q_stride_b + int64_t(head0 + h) * q_stride_h + part * VEC;
#pragma unroll
    for (int j = 0; j < VEC; ++j) qr[g][j] = h < heads_here ? to_float(qp[j]) * qk_scale : 0.0f;
  }
  // Online-softmax state. m and l: of head xg (lanes with the same head agree on m; l is this
  // lane's share of the sum). acc: the lane's VEC dims of every head, over its row group's tokens.
  float m = -INFINITY, l = 0.0f, acc[G][VEC];
#pragma unroll
  for (int g = 0; g < G; ++g) {
#pragma unroll
    for (int j = 0; j < VEC; ++j) acc[g][j] = 0.0f;
  }

  float* p_rows = p_buf + rows * kTileRows * G;  // [kTileRows][G]: the weights of the lane's rows
  for (int j = 0; j < n_tiles; ++j) {
    issue(j + kStages - 1);  // into the slot tile j - 1 used: this lane is done with it
    lookup(j + kStages);
    cp_async_wait<kStages - 1>();  // tile j has landed (this lane's copies)
    const uint4* tile = smem + (j % kStages) * (2 * kTileRows * kThreads) + threadIdx.x;
    const int t0 = row0 + j * L::TOKENS;  // token of the lane's row 0 in this tile

    // 2. Scores, R rows per step. Partial dot i = rr x G + g is of row rr ^ xr and head g ^ xg:
    //    entry i ^ x of the step. A butterfly stage at offset o adds the partner's (lane ^ o)
    //    upper half to this lane's lower half, the entries whose bit o agrees with this lane's;
    //    after log2(E) stages dot[0] holds entry x, complete. (When E < LANES, the first stages,
    //    offsets LANES / 2 .. E, sum all E entries: lanes part and part + E then hold copies.)
    float score[L::STEPS];
#pragma unroll
    for (int s = 0; s < L::STEPS; ++s) {
      float dot[E];
#pragma unroll
      for (int rr = 0; rr < R; ++rr) {
        const Pack kp = *reinterpret_cast<const Pack*>(tile + (s * R + (rr ^ xr)) * kThreads);
        float k[VEC];
#pragma unroll
        for (int e = 0; e < VEC; ++e) k[e] = to_float(kp.v[e]);
#pragma unroll
        for (int g = 0; g < G; ++g) {
          float d = 0.0f;
#pragma unroll
          for (int e = 0; e < VEC; ++e) d = fmaf(qr[g][e], k[e], d);
          dot[rr * G + g] = d;
        }
      }
#pragma unroll
      for (int o = LANES / 2; o >= E; o /= 2) {
#pragma unroll
        for (int i = 0; i < E; ++i) dot[i] += __shfl_xor_sync(kFull, dot[i], o);
      }
#pragma unroll
      for (int o = E / 2; o >= 1; o /= 2) {
#pragma unroll
        for (int i = 0; i < E / 2; ++i) {
          if (i < o) dot[i] += __shfl_xor_sync(kFull, dot[i + o], o);
        }
      }
      score[s] = t0 + s * R + xr < end ? dot[0] : -INFINITY;  // garbage past the end: weight 0
    }

    // 3. Online softmax, one rescale per tile: the tile's maximum of head xg over the warp's
    //    lanes of that head (lane ^ G, ^ 2G, ...), the factor alpha for what was accumulated
    //    before, one exp2 per score.
    float mx = score[0];
#pragma unroll
    for (int s = 1; s < L::STEPS; ++s) mx = fmaxf(mx, score[s]);
#pragma unroll
    for (int o = G; o < 32; o *= 2) mx = fmaxf(mx, __shfl_xor_sync(kFull, mx, o));
    const Rescale f = merge_factors(m, mx);
    const float alpha = f.a;
    const float m_use = f.m == -INFINITY ? 0.0f : f.m;
    m = f.m;
    l *= alpha;
    __syncwarp();  // every lane has read the previous tile's p
#pragma unroll
    for (int s = 0; s < L::STEPS; ++s) {
      const float p = exp2f(score[s] - m_use);
      l += p;
      if (part < E) p_rows[(s * R + xr) * G + xg] = p;  // one writer per (row, head)
    }
    __syncwarp();  // this tile's p visible to the warp

    // 4. p.V: the lane's VEC dims of its rows' V for all G heads. The max rarely moves after the
    //    first tiles: the rescale of acc is skipped (by the whole warp) when no head's did.
    if (__any_sync(kFull, alpha != 1.0f)) {
#pragma unroll
      for (int g = 0; g < G; ++g) {
        const float a = __shfl_sync(kFull, alpha, g);  // lane g holds head g
#pragma unroll
        for (int e = 0; e < VEC; ++e) acc[g][e] *= a;
      }
    }
#pragma unroll
    for (int r = 0; r < kTileRows; ++r) {
      const Pack vp = *reinterpret_cast<const Pack*>(tile + (kTileRows + r) * kThreads);
      const KlPack<float, G> p = *reinterpret_cast<const KlPack<float, G>*>(p_rows + r * G);
#pragma unroll
      for (int e = 0; e < VEC; ++e) {
        const float v = to_float(vp.v[e]);
#pragma unroll
        for (int g = 0; g < G; ++g) acc[g][e] = fmaf(p.v[g], v, acc[g][e]);
      }
    }
  }

  // 5. The warp's results: its row groups share the max, so their sums simply add; l of head g
  //    summed over the lanes of head g, each score counted LANES / E times (the copies in 2.).
#pragma unroll
  for (int o = LANES; o < 32; o *= 2) {
#pragma unroll
    for (int g = 0; g < G; ++g) {
#pragma unroll
      for (int e = 0; e < VEC; ++e) acc[g][e] += __shfl_xor_sync(kFull, acc[g][e], o);
    }
  }
#pragma unroll
  for (int o = G; o < 32; o *= 2) l += __shfl_xor_sync(kFull, l, o);
  l *= static_cast<float>(E) / LANES;  // a power of two: exact

  // 6. The block's 4 warps merged through shared memory (the ring, now free), then normalized and
  //    stored.
  cp_async_wait<0>();  // only empty groups are left, but the ring is reused below
  __syncthreads();
  float* sm_acc = reinterpret_cast<float*>(smem);  // [kWarps][G][D]
  float* sm_m = sm_acc + kWarps * G * D;           // [kWarps][G]
  float* sm_l = sm_m + kWarps * G;                 // [kWarps][G]
  if (sub == 0) {
#pragma unroll
    for (int g = 0; g < G; ++g) {
#pragma unroll
      for (int e = 0; e < VEC; ++e) sm_acc[(warp * G + g) * D + part * VEC + e] = acc[g][e];
    }
  }
  if (lane < G) {  // lane g holds head g
    sm_m[warp * G + lane] = m;
    sm_l[warp * G + lane] = l;
  }
  __syncthreads();
  merge_warps_and_store<T, D, G>(sm_acc, sm_m, sm_l, heads_here, b * q_heads + head0, split, num_splits, out, part_o,
                                 part_lse);
}

// --- The tensor-core split kernel (16-bit K/V, sm_80+): mma.sync for q.k and p.v ------------------
// Where the kernel above is issue-bound (G = 8 query heads a block: ~115 warp instructions per
// token row; D = 64: half the bytes per row for the same per-row work), the products go to the
// tensor cores. mma.sync.m16n8k16 multiplies a 16 x 16 tile of A by a 16 x 8 tile of B into
// 16 x 8 fp32 accumulators spread over the warp's 32 lanes (4 registers each):
//   scores  S [16 x 16 tokens] = Q [16 heads x D] . K^T [D x 16 tokens]: the G query heads are
//           the rows (padded to 16 with zeros), 2 x D / 16 mma per 16 tokens;
//   p.V     O [16 x D] += P [16 x 16 tokens] . V [16 tokens x D]: D / 8 mma per 16 tokens.
// The score accumulators land in the lanes exactly where p.V wants its A operand (row = lane / 4,
// columns 2 x (lane % 4) + {0, 1} and + 8), so P goes from scores to the next mma in registers
// (the FlashAttention-2 arrangement): the online softmax is 4 scores a lane and two shuffles
// across the 4 lanes of a row per tile. Per 16 tokens at D = 128: 32 mma and 16 ldmatrix.x4
// where the CUDA-core kernel issues ~1,800 instructions at G = 8.
// Each warp is an independent flash-decoding worker over 16-token tiles (the warp's tiles are
// every 4th of its block's split) with its own cp.async ring; the block merges its 4 warps at the
// end as above. K and V tiles sit in shared memory as [16 tokens][D] rows with 16-byte chunk c of
// row r stored at c ^ (r % 8): ldmatrix reads 8 rows at one column, which would otherwise all hit
// the same 4 banks (8-way conflict at a 256-byte row pitch).
constexpr int kMmaTok = 16;     // tokens per warp tile
constexpr int kMmaStages = 3;   // warp ring depth: 2 tiles in flight while one is computed on

template <typename T, int D>
struct MmaTile {
  static constexpr int CH = D * 2 / 16;                  // 16-byte chunks per row: 16 or 8
  static constexpr int STEP = 32 / CH;                   // rows a copy instruction of the warp covers
  static constexpr int ROWS = kMmaTok / STEP;            // rows (tokens) a lane copies per tile
  static constexpr int TILE = 2 * kMmaTok * CH;          // chunks of K then V per warp tile
  static constexpr int TOKENS = kWarps * kMmaTok;        // tokens per round of the block's warps
  static constexpr size_t SMEM = size_t(kWarps) * kMmaStages * TILE * 16;  // 96 KB at D = 128
  static_assert(sizeof(T) == 2, "tensor-core path: 16-bit K and V");
  static_assert(D % 32 == 0 && CH <= 16, "D = 64 or 128");
};

__device__ __forceinline__ unsigned smem_addr(const void* p) {
  return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t r[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}

__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t r[4], const void* p) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(smem_addr(p)));
}

// c += a . b, m16n8k16, fp32 accumulators. a: rows 0-7 / 8-15 x k 0-7 / 8-15 (4 registers),
// b: k 0-7 / 8-15 x the lane's column (2 registers).
template <typename T>
__device__ __forceinline__ void mma_16816(float c[4], const uint32_t a[4], uint32_t b0, uint32_t b1) {
  if constexpr (std::is_same_v<T, __nv_bfloat16>) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
        "{%0, %1, %2, %3};\n"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

// Two values in one register, `lo` in the low half (the mma operands' element order).
template <typename T>
__device__ __forceinline__ uint32_t pack2(float lo, float hi) {
  const T l = from_float<T>(lo), h = from_float<T>(hi);
  uint16_t bl, bh;
  memcpy(&bl, &l, 2);
  memcpy(&bh, &h, 2);
  return uint32_t(bl) | (uint32_t(bh) << 16);
}

template <typename T>
__device__ __forceinline__ uint32_t pack2_raw(T lo, T hi) {
  uint16_t bl, bh;
  memcpy(&bl, &lo, 2);
  memcpy(&bh, &hi, 2);
  return uint32_t(bl) | (uint32_t(bh) << 16);
}

template <typename T, int D, int G>
__global__ void __launch_bounds__(kThreads, 2) _paged_decode_mma_kernel(
    const T* __restrict__ q, const T* __restrict__ k_cache, const T* __restrict__ v_cache,
    const int32_t* __restrict__ block_table, const int32_t* __restrict__ seq_lens, T* __restrict__ out,
    float* __restrict__ part_o, float* __restrict__ part_lse, int q_heads, int group, int page_size,
    int64_t q_stride_b, int64_t q_stride_h, int64_t k_stride_page, int64_t k_stride_slot, int64_t k_stride_head,
    int64_t v_stride_page, int64_t v_stride_slot, int64_t v_stride_head, int64_t bt_stride, float qk_scale,
    int num_splits) {
  using L = MmaTile<T, D>;
  constexpr int CH = L::CH;
  static_assert(G <= 8, "the heads are rows 0-7 of the mma tile");
  extern __shared__ __align__(128) uint4 smem[];

  const BlockWork w = block_work<G>(group, seq_lens, num_splits, L::TOKENS);
  const int split = w.split, kvh = w.kvh, head0 = w.head0, heads_here = w.heads_here, start = w.start, end = w.end;
  const int64_t b = w.b;
  const int warp = threadIdx.x / 32;
  const int lane = threadIdx.x % 32;
  const int g = lane / 4;     // the mma row (query head) of this lane's scores and outputs
  const int quad = lane % 4;  // its column pair

  // This warp's tiles: every kWarps-th 16-token tile of the split, from tile `warp`.
  const int first = start + warp * kMmaTok;
  const int n_tiles = first < end ? kl_cdiv(end - first, kWarps * kMmaTok) : 0;

  // 1. The copy pipeline, as in the kernel above but per warp: lane copies chunk lane % CH of
  //    rows lane / CH + STEP x r of each tile, K and V, into its warp's ring.
  uint4* ring = smem + warp * kMmaStages * L::TILE;
  const int32_t* table = block_table + b * bt_stride;
  const int my_chunk = lane % CH, my_row = lane / CH;
  const T* k_head = k_cache + int64_t(kvh) * k_stride_head + my_chunk * 8;
  const T* v_head = v_cache + int64_t(kvh) * v_stride_head + my_chunk * 8;
  int page[L::ROWS], slot[L::ROWS];
  auto lookup = [&](int j) {
    const int t0 = first + j * kWarps * kMmaTok + my_row;  // the lane's row 0 of tile j
    int col = static_cast<unsigned>(t0) / page_size;
    int s = t0 - col * page_size;
#pragma unroll
    for (int r = 0; r < L::ROWS; ++r) {
      page[r] = t0 + r * L::STEP < end ? table[col] : 0;
      slot[r] = s;
      s += L::STEP;
      while (s >= page_size) {  // once at most, unless a page is shorter than STEP tokens
        s -= page_size;
        ++col;
      }
    }
  };
  auto issue = [&](int j) {
    if (j < n_tiles) {
      const int t0 = first + j * kWarps * kMmaTok + my_row;
      uint4* dst = ring + (j % kMmaStages) * L::TILE;
#pragma unroll
      for (int r = 0; r < L::ROWS; ++r) {
        const int row = my_row + r * L::STEP;
        const int at = row * CH + (my_chunk ^ (row & 7));
        const int64_t pg = static_cast<uint32_t>(page[r]), sl = static_cast<uint32_t>(slot[r]);
        cp_async16(dst + at, k_head + pg * k_stride_page + sl * k_stride_slot, t0 + r * L::STEP < end);
        cp_async16(dst + kMmaTok * CH + at, v_head + pg * v_stride_page + sl * v_stride_slot,
                   t0 + r * L::STEP < end);
      }
    }
    cp_async_commit();
  };
#pragma unroll
  for (int j = 0; j < kMmaStages - 1; ++j) {
    lookup(j);
    issue(j);
  }
  lookup(kMmaStages - 1);

  // 2. Q as the mma's A operand: row g = query head head0 + g (zero past the block's heads),
  //    k = dims. Rows 8-15 are padding: their registers (a[1], a[3]) are zero.
  uint32_t qa[D / 16][2];
  {
    const T* qp = q + b * q_stride_b + int64_t(head0 + g) * q_stride_h + 2 * quad;
    const T zero = from_float<T>(0.0f);
#pragma unroll
    for (int kk = 0; kk < D / 16; ++kk) {
      const bool ok = g < heads_here;
      qa[kk][0] = ok ? pack2_raw<T>(qp[16 * kk], qp[16 * kk + 1]) : pack2_raw<T>(zero, zero);
      qa[kk][1] = ok ? pack2_raw<T>(qp[16 * kk + 8], qp[16 * kk + 9]) : pack2_raw<T>(zero, zero);
    }
  }
  // Online softmax of row g: m (agreed by the row's 4 lanes), l (this lane's share), and the
  // accumulators o[n] of dims 8n + 2 quad + {0, 1} (o[n][2..3]: padding rows, always 0).
  float m = -INFINITY, l = 0.0f, o[D / 8][4];
#pragma unroll
  for (int n = 0; n < D / 8; ++n) o[n][0] = o[n][1] = o[n][2] = o[n][3] = 0.0f;

  for (int j = 0; j < n_tiles; ++j) {
    __syncwarp();  // every lane is done reading the slot tile j - 1 used
    issue(j + kMmaStages - 1);
    lookup(j + kMmaStages);
    cp_async_wait<kMmaStages - 1>();
    __syncwarp();  // tile j's chunks, copied by all 32 lanes, visible to the warp
    const uint4* kt = ring + (j % kMmaStages) * L::TILE;
    const uint4* vt = kt + kMmaTok * CH;
    const int t0 = first + j * kWarps * kMmaTok;

    // 3. Scores: n-tile h = tokens 8h..8h+7. ldmatrix.x4 at row 8h + lane % 8, chunk 2kk + lane / 8
    //    gives the B operands of k-steps kk and kk + 1.
    float sc[2][4];
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      sc[h][0] = sc[h][1] = sc[h][2] = sc[h][3] = 0.0f;
      const int row = 8 * h + (lane & 7);
#pragma unroll
      for (int kk = 0; kk < D / 16; kk += 2) {
        uint32_t kb[4];
        ldmatrix_x4(kb, kt + row * CH + ((2 * kk + lane / 8) ^ (row & 7)));
        const uint32_t a0[4] = {qa[kk][0], 0u, qa[kk][1], 0u};
        const uint32_t a1[4] = {qa[kk + 1][0], 0u, qa[kk + 1][1], 0u};
        mma_16816<T>(sc[h], a0, kb[0], kb[1]);
        mma_16816<T>(sc[h], a1, kb[2], kb[3]);
      }
    }
    // 4. Online softmax over the tile: lane holds tokens 8h + 2 quad + {0, 1} of row g.
    float s[4];
    float mx = -INFINITY;
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const int tok = t0 + 8 * (i / 2) + 2 * quad + (i % 2);
      s[i] = tok < end ? sc[i / 2][i % 2] * qk_scale : -INFINITY;  // garbage past the end: weight 0
      mx = fmaxf(mx, s[i]);
    }
    mx = fmaxf(mx, __shfl_xor_sync(kFull, mx, 1));
    mx = fmaxf(mx, __shfl_xor_sync(kFull, mx, 2));
    const Rescale f = merge_factors(m, mx);
    const float m_use = f.m == -INFINITY ? 0.0f : f.m;
    m = f.m;
    float p[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) p[i] = exp2f(s[i] - m_use);
    l = l * f.a + (p[0] + p[1]) + (p[2] + p[3]);
#pragma unroll
    for (int n = 0; n < D / 8; ++n) {
      o[n][0] *= f.a;
      o[n][1] *= f.a;
    }
    // 5. p.V: P in registers as the A operand (k = the tile's 16 tokens); V's B operands by
    //    ldmatrix.trans at row (token) lane % 8 + 8 x (lane / 8 % 2), chunk n + lane / 16.
    const uint32_t pa[4] = {pack2<T>(p[0], p[1]), 0u, pack2<T>(p[2], p[3]), 0u};
    const int vrow = (lane & 7) + 8 * ((lane >> 3) & 1);
#pragma unroll
    for (int n = 0; n < D / 8; n += 2) {
      uint32_t vb[4];
      ldmatrix_x4_trans(vb, vt + vrow * CH + ((n + lane / 16) ^ (vrow & 7)));
      mma_16816<T>(o[n], pa, vb[0], vb[1]);
      mma_16816<T>(o[n + 1], pa, vb[2], vb[3]);
    }
  }

  // 6. The row's l over its 4 lanes; the warps merged through shared memory as above.
  l += __shfl_xor_sync(kFull, l, 1);
  l += __shfl_xor_sync(kFull, l, 2);
  cp_async_wait<0>();
  __syncthreads();
  float* sm_acc = reinterpret_cast<float*>(smem);  // [kWarps][G][D]
  float* sm_m = sm_acc + kWarps * G * D;           // [kWarps][G]
  float* sm_l = sm_m + kWarps * G;                 // [kWarps][G]
  if (g < G) {
#pragma unroll
    for (int n = 0; n < D / 8; ++n) {
      sm_acc[(warp * G + g) * D + 8 * n + 2 * quad] = o[n][0];
      sm_acc[(warp * G + g) * D + 8 * n + 2 * quad + 1] = o[n][1];
    }
    if (quad == 0) {
      sm_m[warp * G + g] = m;
      sm_l[warp * G + g] = l;
    }
  }
  __syncthreads();
  merge_warps_and_store<T, D, G>(sm_acc, sm_m, sm_l, heads_here, b * q_heads + head0, split, num_splits, out, part_o,
                                 part_lse);
}

// out = sum_s 2^(lse_s - M) o_s / sum_s 2^(lse_s - M), M the largest lse: one block of kThreads
// per (sequence, query head). The splits are read side by side: with one thread per dim looping
// over all of them (unrolled by 4), 49 splits at 1 x 32768 were ~17 dependent rounds of L2 loads
// (~0.5 us each, napkin: against ~32 us for the split kernel at the copy roof). Here the block finds M in
// one round of kThreads lanes; then D / 4 lanes (16 bytes each) cover a split's row, and the
// kThreads / (D / 4) groups of them take every GROUPS-th split, kMergeBatch loads in flight per
// lane: 2-3 rounds. The groups meet in shared memory.
constexpr int kMergeBatch = 8;

template <typename T, int D>
__global__ void __launch_bounds__(kThreads) _paged_decode_merge_kernel(
    const float* __restrict__ part_o,    // [B x Hq, num_splits, D]
    const float* __restrict__ part_lse,  // [B x Hq, num_splits]
    T* __restrict__ out,                 // [B x Hq, D]
    int num_splits) {
  constexpr int LANES = D / 4;             // float4 lanes per row: 32 at D = 128, 16 at D = 64
  constexpr int GROUPS = kThreads / LANES;  // splits read at once: 4 or 8
  __shared__ float sm_max[kWarps];
  __shared__ float4 sm_o[GROUPS][LANES];
  __shared__ float sm_l[GROUPS];
  const int64_t row = blockIdx.x;
  const float* lse = part_lse + row * num_splits;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  float mx = -INFINITY;
  for (int s = threadIdx.x; s < num_splits; s += kThreads) mx = fmaxf(mx, lse[s]);
#pragma unroll
  for (int o = 16; o >= 1; o /= 2) mx = fmaxf(mx, __shfl_xor_sync(kFull, mx, o));
  if (lane == 0) sm_max[warp] = mx;
  __syncthreads();
#pragma unroll
  for (int w = 0; w < kWarps; ++w) mx = fmaxf(mx, sm_max[w]);
  const float m_use = mx == -INFINITY ? 0.0f : mx;  // every split empty: weights 0, never NaN

  const int g = threadIdx.x / LANES, part = threadIdx.x % LANES;
  const float4* rows = reinterpret_cast<const float4*>(part_o + row * num_splits * D) + part;
  float4 o = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float l = 0.0f;
  for (int s0 = g; s0 < num_splits; s0 += kMergeBatch * GROUPS) {
    // The batch's loads first, all in flight together, then their sum.
    float lse_s[kMergeBatch];
    float4 v[kMergeBatch];
#pragma unroll
    for (int i = 0; i < kMergeBatch; ++i) {
      const int s = s0 + i * GROUPS;
      lse_s[i] = s < num_splits ? lse[s] : -INFINITY;
      v[i] = s < num_splits ? rows[int64_t(s) * LANES] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
#pragma unroll
    for (int i = 0; i < kMergeBatch; ++i) {
      const float w = exp2f(lse_s[i] - m_use);  // an empty split: lse = -inf, weight 0
      o.x = fmaf(w, v[i].x, o.x);
      o.y = fmaf(w, v[i].y, o.y);
      o.z = fmaf(w, v[i].z, o.z);
      o.w = fmaf(w, v[i].w, o.w);
      l += w;
    }
  }
  sm_o[g][part] = o;
  if (part == 0) sm_l[g] = l;
  __syncthreads();
  if (g == 0) {
    float lsum = 0.0f;
#pragma unroll
    for (int i = 0; i < GROUPS; ++i) lsum += sm_l[i];
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
#pragma unroll
    for (int i = 0; i < GROUPS; ++i) {
      const float4 v = sm_o[i][part];
      sum.x += v.x;
      sum.y += v.y;
      sum.z += v.z;
      sum.w += v.w;
    }
    T* dst = out + row * D + part * 4;
    dst[0] = from_float<T>(sum.x / lsum);
    dst[1] = from_float<T>(sum.y / lsum);
    dst[2] = from_float<T>(sum.z / lsum);
    dst[3] = from_float<T>(sum.w / lsum);
  }
}

// Which split kernel: the tensor-core one for 16-bit K/V from 4 query heads a block, and at D = 64;
// solutions/paged_decode.py's _cuda_plan mirrors this. H200, same run, bf16, 64 x 4096 tokens
// (benchmarks/h200_session8/pd_variants.txt): 256.3 against 368.1 us at 64/8 heads (G = 8), 136.6
// against 152.1 at D = 64, 256.1 against 265.9 at 32/8 heads (G = 4); at 32/32 heads (G = 1) the
// CUDA-core kernel stays ahead, 955.4 against 965.3, a block's single row wasting 15/16 of each mma.
template <typename T, int D, int G>
constexpr bool kUseMma = sizeof(T) == 2 && (G >= 4 || D == 64);

template <typename T, int D, int G>
void launch_split(const Args& a) {
  const int group = static_cast<int>(a.q_heads / a.kv_heads);
  const int chunks = (group + G - 1) / G;
  const dim3 grid(a.num_splits, static_cast<unsigned>(a.kv_heads * chunks), static_cast<unsigned>(a.batch));
  // The rings take 48-96 KB: above the 48 KB a launch may take without opting in.
  auto run = [&](auto kernel, size_t smem) {
    KL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(smem)));
    kernel<<<grid, kThreads, smem, a.stream>>>(
        static_cast<const T*>(a.q), static_cast<const T*>(a.k), static_cast<const T*>(a.v), a.block_table,
        a.seq_lens, static_cast<T*>(a.out), a.part_o, a.part_lse, static_cast<int>(a.q_heads), group,
        static_cast<int>(a.page_size), a.q_sb, a.q_sh, a.k_sp, a.k_ss, a.k_sh, a.v_sp, a.v_ss, a.v_sh,
        a.bt_stride, a.qk_scale, a.num_splits);
  };
  if constexpr (kUseMma<T, D, G>) {
    run(&_paged_decode_mma_kernel<T, D, G>, MmaTile<T, D>::SMEM);
  } else {
    run(&_paged_decode_split_kernel<T, D, G>, Tile<T, D, G>::SMEM);
  }
  KL_CUDA_CHECK(cudaGetLastError());
  if (a.num_splits > 1) {
    _paged_decode_merge_kernel<T, D><<<static_cast<unsigned>(a.batch * a.q_heads), kThreads, 0, a.stream>>>(
        a.part_o, a.part_lse, static_cast<T*>(a.out), a.num_splits);
    KL_CUDA_CHECK(cudaGetLastError());
  }
}

}  // namespace
