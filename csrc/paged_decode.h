// The launcher the paged_decode binding calls: implemented by csrc/paged_decode.cu (the reference)
// and by chapters/03_paged_decode/paged_decode.cu (the exercise), both of which include this header.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

// C linkage: a definition whose parameters differ from this declaration is a compile error.
//
//   q            [batch, q_heads, head_dim], row strides q_stride_b, q_stride_h (elements)
//   k_cache      [pages, page_size, kv_heads, head_dim], strides k_stride_page/slot/head
//   v_cache      the same shape, strides v_stride_page/slot/head
//   block_table  [batch, *] int32, row stride bt_stride; seq_lens [batch] int32
//   out          [batch, q_heads, head_dim] contiguous, in q's dtype
//   part_o       [batch, q_heads, num_splits, head_dim] fp32 and part_lse [batch, q_heads,
//                num_splits] fp32: the per-split results (unused when num_splits == 1)
//   scale        multiplies q·k before the softmax
//   dtype        a KlDtype code (kl_common.cuh) for q, k_cache, v_cache and out
// Throws std::invalid_argument for an unsupported head_dim, dtype, size or alignment, and
// std::runtime_error when a launch fails.
extern "C" void paged_decode_launch(const void* q, const void* k_cache, const void* v_cache,
                                    const int32_t* block_table, const int32_t* seq_lens, void* out,
                                    float* part_o, float* part_lse, int64_t batch, int64_t q_heads,
                                    int64_t kv_heads, int64_t head_dim, int64_t page_size,
                                    int64_t q_stride_b, int64_t q_stride_h, int64_t k_stride_page,
                                    int64_t k_stride_slot, int64_t k_stride_head,
                                    int64_t v_stride_page, int64_t v_stride_slot,
                                    int64_t v_stride_head, int64_t bt_stride, float scale,
                                    int num_splits, int dtype, cudaStream_t stream);
