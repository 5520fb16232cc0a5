// The launcher the silu_mul binding calls: implemented by csrc/silu_mul.cu (the reference) and by
// chapters/00_speed_of_light/silu_mul.cu (the exercise), both of which include this header.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

// C linkage: a definition whose parameters differ from this declaration is a compile error
// ("conflicting declaration"), not a silent C++ overload that fails later at load time.
//
//   gate, up   [rows, n] row views, last dim contiguous, row strides in elements
//   out        [rows, n] contiguous
//   dtype      a KlDtype code (kl_common.cuh): KL_F32, KL_F16 or KL_BF16
// Throws std::runtime_error when the launch fails.
extern "C" void silu_mul_launch(const void* gate, const void* up, void* out, int64_t rows,
                                int64_t n, int64_t gate_row_stride, int64_t up_row_stride,
                                int dtype, cudaStream_t stream);
