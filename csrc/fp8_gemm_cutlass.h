// The launchers the fp8_gemm_cutlass binding calls, implemented by csrc/fp8_gemm_cutlass.cu.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime.h>

// C linkage: a definition whose parameters differ from these declarations is a compile error
// ("conflicting declaration"), not a silent C++ overload that fails later at load time.
//
// The kernel configurations, by number: 0 lets fp8_gemm_cutlass_pick choose from the shape;
// 1..fp8_gemm_cutlass_num_configs() - 1 force one (for sweeps; see fp8_gemm_cutlass_config_name).
extern "C" int fp8_gemm_cutlass_num_configs();
extern "C" const char* fp8_gemm_cutlass_config_name(int config);

// The configuration `config` 0 resolves to for an m x n x k problem on the current device.
extern "C" int fp8_gemm_cutlass_pick(int64_t m, int64_t n, int64_t k);

// Bytes of device workspace configuration `config` (1..) needs for this problem (stream-K
// partial sums and their flags); 0 for most shapes. Throws std::runtime_error off Hopper.
extern "C" size_t fp8_gemm_cutlass_workspace_size(int64_t m, int64_t n, int64_t k, int config);

//   y = (a * scale_a) @ (b * scale_b)^T, fp32 accumulation, rounded once to bf16.
//   a        [m, k] float8_e4m3fn, row r at a + r * lda (lda >= k), 16-byte aligned
//   b        [n, k] float8_e4m3fn, row r at b + r * ldb (ldb >= k), 16-byte aligned
//   scale_a  fp32: [m] when scale_a_per_row, else [1]
//   scale_b  fp32: [n] when scale_b_per_row, else [1]
//   y        [m, n] bf16, contiguous, 16-byte aligned
//   k, lda, ldb multiples of 16 and n a multiple of 8 (16-byte rows for the bulk copy engine)
//   config   1..fp8_gemm_cutlass_num_configs() - 1 (resolve 0 with fp8_gemm_cutlass_pick first)
//   workspace at least fp8_gemm_cutlass_workspace_size(m, n, k, config) bytes, 16-byte aligned
// Needs an sm_90 GPU and a build for sm_90a. Throws std::invalid_argument for a bad size or
// config, std::runtime_error for the wrong GPU or a failed launch.
extern "C" void fp8_gemm_cutlass_launch(const void* a, const void* b, const float* scale_a,
                                        const float* scale_b, void* y, int64_t m, int64_t n,
                                        int64_t k, int64_t lda, int64_t ldb, bool scale_a_per_row,
                                        bool scale_b_per_row, int config, void* workspace,
                                        size_t workspace_bytes, cudaStream_t stream);
