// paged_decode, the host side shared by the reference (csrc/paged_decode.cu) and the exercise
// (chapters/03_paged_decode/paged_decode.cu): the arguments, the input checks, the dispatch on
// dtype, head dimension and query heads per block, and paged_decode_launch itself. Both files
// include it after kl_common.cuh and paged_decode.h, and each defines, in its anonymous
// namespace, the one step that depends on its own kernels:
//   template <typename T, int D, int G> void launch_split(const Args& a);
// which launches the split kernel on a grid of (a.num_splits, kv heads x ceil(group / G), batch)
// blocks, G query heads a block, and the merge kernel when a.num_splits > 1.
#pragma once

#include <stdexcept>
#include <string>

#include "kl_common.cuh"
#include "paged_decode.h"

namespace {

// Batch rides in gridDim.z, kv heads x head chunks in gridDim.y: both limited to 65535.
constexpr int64_t kMaxGridYZ = 65535;
constexpr float kLog2e = 1.4426950408889634f;

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

// Defined by the including file (see the top).
template <typename T, int D, int G>
void launch_split(const Args& a);

// launch_split<T, D, G>, after checking that its grid is within gridDim's limits.
template <typename T, int D, int G>
void checked_split(const Args& a) {
  const int64_t chunks = (a.q_heads / a.kv_heads + G - 1) / G;
  if (a.kv_heads * chunks > kMaxGridYZ || a.batch > kMaxGridYZ) {
    throw std::invalid_argument("paged_decode: at most 65535 sequences and 65535 kv heads x head "
                                "chunks per call, got batch " + std::to_string(a.batch));
  }
  launch_split<T, D, G>(a);
}

// Query heads per block: the group, rounded up to 1, 2, 4 or 8; larger groups take several blocks
// per kv head (each reads the kv head again, mostly from L2).
template <typename T, int D>
void launch_group(const Args& a) {
  const int64_t group = a.q_heads / a.kv_heads;
  if (group <= 1) {
    checked_split<T, D, 1>(a);
  } else if (group <= 2) {
    checked_split<T, D, 2>(a);
  } else if (group <= 4) {
    checked_split<T, D, 4>(a);
  } else {
    checked_split<T, D, 8>(a);
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
