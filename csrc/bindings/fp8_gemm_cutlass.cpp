// Registers, in the namespace the loader passes as KL_NAMESPACE (grading/cuda.py):
//   fp8_gemm(Tensor a, Tensor b, Tensor scale_a, Tensor scale_b) -> Tensor
//       y[M, N] bf16 = (a * scale_a) @ (b * scale_b)^T; the kernel picked from the shape
//   fp8_gemm_config(Tensor a, Tensor b, Tensor scale_a, Tensor scale_b, int config) -> Tensor
//       the same with one configuration forced (0 = picked), for sweeps
//   fp8_gemm_pick(int m, int n, int k) -> int           the configuration fp8_gemm would use
//   fp8_gemm_config_name(int config) -> str             its name, "3 128x128x128 coop ..."
// The kernels are CUTLASS kernels in csrc/fp8_gemm_cutlass.cu behind plain C launchers.
#include <torch/all.h>
#include <torch/library.h>

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <cstdint>
#include <string>

#include "fp8_gemm_cutlass.h"
#include "kl_binding.h"

namespace {

// An fp8 operand [rows, K]: on `device`, e4m3, 2-D, K a multiple of 16 and contiguous, rows
// 16-byte aligned (the bulk copy engine reads it). Returns its row stride in elements.
int64_t check_operand(const at::Tensor& t, const char* name, const char* shape, const at::Device& device) {
  KL_CHECK_VALUE(t.device() == device, name, ": expected a tensor on ", device, " (the device of a), got ",
                 t.device());
  KL_CHECK_TYPE(t.scalar_type() == at::kFloat8_e4m3fn, name, ": expected dtype torch.float8_e4m3fn, got ",
                t.scalar_type());
  KL_CHECK_VALUE(t.dim() == 2, name, ": expected a 2-D tensor ", shape, ", got shape ", t.sizes());
  const int64_t rows = t.size(0), k = t.size(1);
  KL_CHECK_VALUE(k % 16 == 0, name, ": K = ", k, " must be a multiple of 16 (TMA moves 16-byte rows of fp8)");
  KL_CHECK_VALUE(k <= 1 || t.stride(1) == 1, name, ": the last dimension (K) must be contiguous, got strides ",
                 t.strides(), "; call .contiguous() first");
  const int64_t ld = rows <= 1 ? k : t.stride(0);
  KL_CHECK_VALUE(ld >= k && ld % 16 == 0, name, ": the row stride must be a multiple of 16 elements "
                 "(16-byte rows for TMA) and at least K = ", k, ", got ", ld, "; call .contiguous() first");
  KL_CHECK_VALUE(reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 16 == 0, name,
                 ": the data must start 16-byte aligned (TMA), got an offset view; call .clone() first");
  return ld;
}

// A scale: fp32 on `device`, one element (per tensor) or `rows` elements shaped [rows, 1] or
// [rows] (per row of a / per row of b). Returns whether it is a vector.
bool check_scale(const at::Tensor& s, const char* name, const char* rows_name, int64_t rows,
                 const at::Device& device) {
  KL_CHECK_VALUE(s.device() == device, name, ": expected a tensor on ", device, " (the device of a), got ",
                 s.device());
  KL_CHECK_TYPE(s.scalar_type() == at::kFloat, name, ": expected dtype torch.float32, got ", s.scalar_type());
  const bool scalar = s.numel() == 1;
  const bool vector = s.numel() == rows && (s.dim() == 1 || (s.dim() == 2 && s.size(1) == 1));
  KL_CHECK_VALUE(scalar || vector, name, ": expected shape [1] (per tensor) or [", rows_name, ", 1] = [",
                 rows, ", 1] (per row), got ", s.sizes());
  KL_CHECK_VALUE(scalar || s.stride(0) == 1, name, ": expected a contiguous tensor, got strides ", s.strides());
  return !scalar;
}

at::Tensor fp8_gemm_config(const at::Tensor& a, const at::Tensor& b, const at::Tensor& scale_a,
                           const at::Tensor& scale_b, int64_t config) {
  KL_CHECK_VALUE(a.is_cuda(), "a: expected a CUDA tensor, got one on ", a.device());
  const int64_t lda = check_operand(a, "a", "[M, K]", a.device());
  const int64_t ldb = check_operand(b, "b", "[N, K] (an nn.Linear weight)", a.device());
  const int64_t m = a.size(0), k = a.size(1), n = b.size(0);
  KL_CHECK_VALUE(b.size(1) == k, "b: expected [N, K] with K = ", k, " (a's last dimension), got shape ",
                 b.sizes());
  KL_CHECK_VALUE(n % 8 == 0, "b: N = ", n, " must be a multiple of 8 (16-byte bf16 rows of y for TMA)");
  const bool a_vector = check_scale(scale_a, "scale_a", "M", m, a.device());
  const bool b_vector = check_scale(scale_b, "scale_b", "N", n, a.device());
  KL_CHECK_VALUE(config >= 0 && config < fp8_gemm_cutlass_num_configs(), "config: expected 0 (picked) to ",
                 fp8_gemm_cutlass_num_configs() - 1, ", got ", config);

  const c10::cuda::CUDAGuard device_guard(a.device());
  const auto options = a.options().dtype(at::kBFloat16);
  if (m == 0 || n == 0 || k == 0) return at::zeros({m, n}, options);  // an empty sum is 0
  at::Tensor y = at::empty({m, n}, options);  // contiguous
  const int resolved = config == 0 ? fp8_gemm_cutlass_pick(m, n, k) : static_cast<int>(config);
  // Stream-K's partial tiles and flags; allocated through torch's caching allocator (no
  // cudaMalloc per call, and safe under CUDA graph capture).
  const size_t workspace_bytes = fp8_gemm_cutlass_workspace_size(m, n, k, resolved);
  at::Tensor workspace;
  if (workspace_bytes > 0) {
    workspace = at::empty({static_cast<int64_t>(workspace_bytes)}, a.options().dtype(at::kByte));
  }
  fp8_gemm_cutlass_launch(a.data_ptr(), b.data_ptr(), scale_a.data_ptr<float>(), scale_b.data_ptr<float>(),
                          y.data_ptr(), m, n, k, lda, ldb, a_vector, b_vector, resolved,
                          workspace_bytes > 0 ? workspace.data_ptr() : nullptr, workspace_bytes,
                          c10::cuda::getCurrentCUDAStream().stream());
  return y;
}

at::Tensor fp8_gemm(const at::Tensor& a, const at::Tensor& b, const at::Tensor& scale_a,
                    const at::Tensor& scale_b) {
  return fp8_gemm_config(a, b, scale_a, scale_b, 0);
}

int64_t fp8_gemm_pick(int64_t m, int64_t n, int64_t k) { return fp8_gemm_cutlass_pick(m, n, k); }

std::string fp8_gemm_config_name(int64_t config) {
  return fp8_gemm_cutlass_config_name(static_cast<int>(config));
}

}  // namespace

KL_TORCH_LIBRARY(KL_NAMESPACE, m) {
  m.def("fp8_gemm(Tensor a, Tensor b, Tensor scale_a, Tensor scale_b) -> Tensor");
  m.def("fp8_gemm_config(Tensor a, Tensor b, Tensor scale_a, Tensor scale_b, int config) -> Tensor");
  m.def("fp8_gemm_pick(int m, int n, int k) -> int", &fp8_gemm_pick);
  m.def("fp8_gemm_config_name(int config) -> str", &fp8_gemm_config_name);
}

KL_TORCH_LIBRARY_IMPL(KL_NAMESPACE, CUDA, m) {
  m.impl("fp8_gemm", &fp8_gemm);
  m.impl("fp8_gemm_config", &fp8_gemm_config);
}
