// The launcher the fp8_quant binding calls: implemented by csrc/fp8_quant.cu (the reference) and by
// chapters/02_fp8_gemm/fp8_quant.cu (the exercise), both of which include this header.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

// C linkage: a definition whose parameters differ from this declaration is a compile error.
//
//   x          [rows, k] row view, last dim contiguous, row stride x_row_stride elements
//   q          [rows, k] contiguous float8_e4m3fn output (one byte per element)
//   scale      fp32 output: [rows] when per_token, else [1]
//   amax       per tensor: [1] fp32 workspace, zeroed by the caller (the global max |x|);
//              unused (may be null) per token
//   dtype      a KlDtype code (kl_common.cuh): KL_F32, KL_F16 or KL_BF16
// scale = max(amax, 1e-12) / 448 over the row (per token) or the tensor; q = x / scale rounded to
// the nearest e4m3 value, saturated to +-448. An empty x launches nothing (the caller fills the
// scales). Throws std::invalid_argument for a bad dtype or
// size, std::runtime_error when a launch fails.
extern "C" void fp8_quantize_launch(const void* x, void* q, float* scale, float* amax, int64_t rows,
                                    int64_t k, int64_t x_row_stride, bool per_token, int dtype,
                                    cudaStream_t stream);
