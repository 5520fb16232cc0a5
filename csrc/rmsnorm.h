// The launchers the rmsnorm binding calls: implemented by csrc/rmsnorm.cu (the reference) and by
// chapters/01_rmsnorm/rmsnorm.cu (the exercise), both of which include this header.
#pragma once

#include <cstdint>

#include <cuda_runtime.h>

// C linkage: a definition whose parameters differ from these declarations is a compile error
// ("conflicting declaration"), not a silent C++ overload that fails later at load time.
//
//   x, residual  [rows, n] row views, last dim contiguous, row strides in elements
//   weight       [n], contiguous
//   y, h         [rows, n] contiguous outputs: y = rmsnorm(h), h = x + residual (rmsnorm: h = x)
//   eps          added to the mean of squares before the square root
//   dtype        a KlDtype code (kl_common.cuh): KL_F32, KL_F16 or KL_BF16, for every tensor
// Throws std::invalid_argument for a bad dtype or size, std::runtime_error when a launch fails.
extern "C" void rmsnorm_launch(const void* x, const void* weight, void* y, int64_t rows, int64_t n,
                               int64_t x_row_stride, float eps, int dtype, cudaStream_t stream);

extern "C" void fused_add_rmsnorm_launch(const void* x, const void* residual, const void* weight,
                                         void* y, void* h, int64_t rows, int64_t n,
                                         int64_t x_row_stride, int64_t residual_row_stride,
                                         float eps, int dtype, cudaStream_t stream);
