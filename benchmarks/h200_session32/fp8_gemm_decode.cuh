// NOT SHIPPED: the decode kernel tried in benchmarks/h200_session32, call 1, kept as the record of
// what ran (wired in by decode.patch beside it). Slower than the CUTLASS decode picks at M = 1 and
// about half their speed at M = 16: on sm_90 ptxas turns fp8 mma.sync into F2FP conversions and
// fp16 HMMA. It also hit an illegal memory access at 8192 x 8192, M = 1, whose cause was not found.
// Do not copy it.
//
// fp8_gemm at M <= 16 without CUTLASS: a weight-streaming kernel on mma.sync, the CUDA rung's
// decode path. Plain CUDA C++ (kl_common.cuh only); csrc/fp8_gemm_cutlass.cu dispatches it.
//
// Why a hand-written kernel here. At M <= 16 the time is the weight's bytes (28672 x 8192: 235 MB,
// 55 us at the 4.25 TB/s copy roof) and the FLOPs are 2-30x under it, so what counts is that
// every SM keeps enough of the weight in flight from the first microsecond to the last. The
// CUTLASS decode kernels (43, 64, 65) stream whole tiles of 64 or 128 weight rows through a
// shared-memory pipeline: a producer warp, TMA, mbarriers, one tile (or a few) a CTA, and at N =
// 28672 the tiles come out at 3.4 a CTA, so the last round runs on part of the GPU. This kernel
// has none of that machinery:
//   - each CTA takes 16 x kRowTiles weight rows and all of K; its 8 warps take turns along K in
//     128-byte chunks (one cache line of each row), so a CTA is small (16 rows: 1792 CTAs at N =
//     28672) and the hardware spreads them evenly, several an SM, with no tail to speak of;
//   - every thread loads its operands straight from global memory into registers, 16 bytes at a
//     time, and feeds them to mma.sync.m16n8k32 (e4m3, fp32 accumulation; sm_89 and newer) with
//     the weight's rows on the instruction's 16-row side (swap-AB) and the tokens on its 8-wide
//     one. No shared-memory staging: the operands of a 16 x 8 x 32 product are already in the
//     registers the loads filled, because of the permutation below;
//   - the 8 warps' partial sums meet once, in shared memory, at the end.
//
// The permutation. mma.sync wants thread (g = lane / 4, t = lane % 4) to hold, of a 16 x 32 A
// tile, rows g and g + 8 at columns 4t..4t+3 and 16+4t..16+4t+3, and of the 32 x 8 B tile the
// same columns (as rows of k) for token g. A dot product does not care in which order it adds its
// k terms, only that A's k-th column and B's k-th row are the same k. So each thread loads 16
// contiguous bytes of its row (bytes 16t..16t+15 and 64+16t.. of a 128-byte chunk: four threads
// read 64 contiguous bytes, two full 32-byte sectors) and hands the instruction 8 of them per
// k-step, and does the same with its token's row of a. Four k-steps use each chunk's 128 bytes
// once; A and B agree on the order because both follow the same rule.
//
// Accuracy: each chunk's four k-steps add into a zeroed fragment, which is then added to the fp32
// sums: a promotion every 128 of K, as CUTLASS's default.
#pragma once

#include <cstdint>

#include "kl_common.cuh"

namespace kl_decode {

constexpr int kWarps = 8;
constexpr int kThreads = 32 * kWarps;
constexpr int kChunk = 128;  // bytes of K a warp takes at a time: four k-steps of 32

struct Params {
  const uint8_t* a;  // [m, k] e4m3, row stride lda
  const uint8_t* b;  // [n, k] e4m3, row stride ldb
  const float* scale_a;
  const float* scale_b;
  __nv_bfloat16* y;  // [m, n], contiguous
  int m, n, k;
  int64_t lda, ldb;
  bool scale_a_per_row, scale_b_per_row;
};

// The weight is read once: no L1 allocation.
__device__ __forceinline__ uint4 load_weight(const uint8_t* p) {
  uint4 v;
  asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
      : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
      : "l"(p));
  return v;
}

// The tokens' rows are read by every CTA: through L1 and L2.
__device__ __forceinline__ uint4 load_tokens(const uint8_t* p) {
  return __ldg(reinterpret_cast<const uint4*>(p));
}

__device__ __forceinline__ uint32_t word(const uint4& v, int i) {
  return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

// d += A (16 x 32) B (32 x 8), e4m3 in, fp32 accumulate.
__device__ __forceinline__ void mma_e4m3(float (&d)[4], uint32_t a0, uint32_t a1, uint32_t a2,
                                         uint32_t a3, uint32_t b0, uint32_t b1) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 890
  asm volatile(
      "mma.sync.aligned.m16n8k32.row.col.f32.e4m3.e4m3.f32 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a0), "r"(a1), "r"(a2), "r"(a3), "r"(b0), "r"(b1));
#else
  __trap();  // the launcher refuses GPUs without fp8 mma; this is never reached
#endif
}

// One 128-byte chunk of K: w[r][h][q] holds this thread's 16 bytes q of weight row
// 16 r + 8 h + g, x[j][q] those of token 8 j + g. Four k-steps, each taking 8 bytes of every
// piece: k-step s uses piece q = s / 2, words 2 (s % 2) and 2 (s % 2) + 1.
template <int kRowTiles, int kTokenTiles>
__device__ __forceinline__ void chunk_mma(float (&acc)[kRowTiles][kTokenTiles][4],
                                          const uint4 (&w)[kRowTiles][2][2],
                                          const uint4 (&x)[kTokenTiles][2]) {
#pragma unroll
  for (int r = 0; r < kRowTiles; ++r) {
#pragma unroll
    for (int j = 0; j < kTokenTiles; ++j) {
      float part[4] = {0.f, 0.f, 0.f, 0.f};
#pragma unroll
      for (int s = 0; s < 4; ++s) {
        const int q = s / 2, lo = 2 * (s % 2);
        mma_e4m3(part, word(w[r][0][q], lo), word(w[r][1][q], lo), word(w[r][0][q], lo + 1),
                 word(w[r][1][q], lo + 1), word(x[j][q], lo), word(x[j][q], lo + 1));
      }
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[r][j][i] += part[i];
    }
  }
}

// y[token, row] for rows [16 kRowTiles blockIdx.x, +16 kRowTiles) and the token groups
// blockIdx.y, blockIdx.y + gridDim.y, ... of 8 kTokenTiles tokens.
// CTAs an SM must hold at once (the registers each thread may use: 64, 85, 128): more rows a CTA
// take more registers for their loads in flight.
template <int kRowTiles>
constexpr int kMinBlocks = kRowTiles == 1 ? 4 : kRowTiles == 2 ? 3 : 2;

template <int kRowTiles, int kTokenTiles>
__global__ void __launch_bounds__(kThreads) decode_kernel(const Params p) {
  constexpr int kRows = 16 * kRowTiles;
  constexpr int kTokens = 8 * kTokenTiles;
  __shared__ float partial[kWarps][kTokens][kRows];

  kl_wait_previous_grid();
  kl_release_next_grid();

  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int g = lane / 4, t = lane % 4;
  const int row0 = blockIdx.x * kRows;
  const int full = p.k / kChunk;           // whole chunks
  const int rest = p.k - full * kChunk;    // a multiple of 16
  const uint8_t* w_row[kRowTiles][2];
#pragma unroll
  for (int r = 0; r < kRowTiles; ++r) {
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      // Rows past n (n is a multiple of 8, the tile of 16 rows may overhang) read row n - 1 and
      // are never stored.
      const int row = min(row0 + 16 * r + 8 * h + g, p.n - 1);
      w_row[r][h] = p.b + row * p.ldb + 16 * t;
    }
  }

  for (int token0 = blockIdx.y * kTokens; token0 < p.m; token0 += gridDim.y * kTokens) {
    const uint8_t* x_row[kTokenTiles];
    bool has[kTokenTiles];
#pragma unroll
    for (int j = 0; j < kTokenTiles; ++j) {
      const int token = token0 + 8 * j + g;
      has[j] = token < p.m;
      x_row[j] = p.a + min(token, p.m - 1) * p.lda + 16 * t;
    }
    float acc[kRowTiles][kTokenTiles][4] = {};

#pragma unroll 1
    for (int c = warp; c < full; c += kWarps) {
      const int64_t off = int64_t(c) * kChunk;
      uint4 w[kRowTiles][2][2], x[kTokenTiles][2];
#pragma unroll
      for (int r = 0; r < kRowTiles; ++r)
#pragma unroll
        for (int h = 0; h < 2; ++h)
#pragma unroll
          for (int q = 0; q < 2; ++q) w[r][h][q] = load_weight(w_row[r][h] + off + 64 * q);
#pragma unroll
      for (int j = 0; j < kTokenTiles; ++j)
#pragma unroll
        for (int q = 0; q < 2; ++q) x[j][q] = has[j] ? load_tokens(x_row[j] + off + 64 * q) : make_uint4(0, 0, 0, 0);
      chunk_mma(acc, w, x);
    }
    if (rest > 0 && warp == full % kWarps) {
      // K's last, partial chunk: 16-byte pieces past k read as zeros in both operands.
      const int64_t off = int64_t(full) * kChunk;
      uint4 w[kRowTiles][2][2], x[kTokenTiles][2];
#pragma unroll
      for (int q = 0; q < 2; ++q) {
        const bool in = 64 * q + 16 * t < rest;
#pragma unroll
        for (int r = 0; r < kRowTiles; ++r)
#pragma unroll
          for (int h = 0; h < 2; ++h) w[r][h][q] = in ? load_weight(w_row[r][h] + off + 64 * q) : make_uint4(0, 0, 0, 0);
#pragma unroll
        for (int j = 0; j < kTokenTiles; ++j)
          x[j][q] = in && has[j] ? load_tokens(x_row[j] + off + 64 * q) : make_uint4(0, 0, 0, 0);
      }
      chunk_mma(acc, w, x);
    }

    // The accumulator fragment: part i of tile (r, j) is row 16 r + g + 8 (i / 2), token
    // 8 j + 2 t + i % 2.
#pragma unroll
    for (int r = 0; r < kRowTiles; ++r)
#pragma unroll
      for (int j = 0; j < kTokenTiles; ++j)
#pragma unroll
        for (int i = 0; i < 4; ++i) partial[warp][8 * j + 2 * t + i % 2][16 * r + g + 8 * (i / 2)] = acc[r][j][i];
    __syncthreads();
    // Consecutive threads take consecutive rows of one token: consecutive columns of y.
    for (int i = threadIdx.x; i < kRows * kTokens; i += kThreads) {
      const int token = token0 + i / kRows, row = row0 + i % kRows;
      if (token < p.m && row < p.n) {
        float sum = 0.f;
#pragma unroll
        for (int v = 0; v < kWarps; ++v) sum += partial[v][i / kRows][i % kRows];
        sum *= p.scale_a[p.scale_a_per_row ? token : 0] * p.scale_b[p.scale_b_per_row ? row : 0];
        p.y[int64_t(token) * p.n + row] = from_float<__nv_bfloat16>(sum);
      }
    }
    __syncthreads();  // partial is written again by the next token group
  }
}

// Grid: one CTA per 16 kRowTiles weight rows and per group of tokens (at most 65535 groups; a
// CTA loops over the rest). kTokenTiles: 1 for m <= 8, else 2.
template <int kRowTiles>
void launch(const Params& p, cudaStream_t stream, bool pdl) {
  const auto go = [&](auto kernel, int tokens) {
    const dim3 grid(kl_cdiv(p.n, 16 * kRowTiles), std::min(kl_cdiv(p.m, tokens), 65535));
    kl_launch(kernel, grid, dim3(kThreads), stream, pdl, p);
  };
  if (p.m <= 8) {
    go(decode_kernel<kRowTiles, 1>, 8);
  } else {
    go(decode_kernel<kRowTiles, 2>, 16);
  }
}

}  // namespace kl_decode
