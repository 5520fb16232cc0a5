// Registers fp8_quantize(Tensor x, bool per_token) -> (Tensor q, Tensor scale) as a torch op in the
// namespace the loader passes as KL_NAMESPACE (grading/cuda.py). The kernels are in a plain CUDA
// file behind fp8_quantize_launch.
#include <torch/all.h>
#include <torch/library.h>

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include <tuple>

#include "fp8_quant.h"
#include "kl_binding.h"

namespace {

std::tuple<at::Tensor, at::Tensor> fp8_quantize(const at::Tensor& x, bool per_token) {
  KL_CHECK_VALUE(x.is_cuda(), "x: expected a CUDA tensor, got one on ", x.device());
  KL_CHECK_VALUE(x.dim() == 2, "x: expected 2 dimensions, got shape ", x.sizes());
  const int dtype = kl::kl_dtype(x, "x");
  const int64_t rows = x.size(0), k = x.size(1);
  const int64_t x_rs = kl::row_stride(x, "x");

  const c10::cuda::CUDAGuard device_guard(x.device());
  at::Tensor q = torch::empty({rows, k}, x.options().dtype(at::kFloat8_e4m3fn));
  at::Tensor scale = per_token ? torch::empty({rows, 1}, x.options().dtype(at::kFloat))
                               : torch::empty({1}, x.options().dtype(at::kFloat));
  if (rows == 0 || k == 0) {
    scale.fill_(1e-12 / 448.0);  // amax 0: the floor's scale
    return {q, scale};
  }
  // Per tensor: the global amax is gathered with atomicMax into a zeroed float.
  at::Tensor amax = per_token ? at::Tensor() : torch::zeros({1}, x.options().dtype(at::kFloat));
  fp8_quantize_launch(x.data_ptr(), q.data_ptr(), scale.data_ptr<float>(),
                      per_token ? nullptr : amax.data_ptr<float>(), rows, k, x_rs, per_token, dtype,
                      c10::cuda::getCurrentCUDAStream().stream());
  return {q, scale};
}

}  // namespace

KL_TORCH_LIBRARY(KL_NAMESPACE, m) {
  m.def("fp8_quantize(Tensor x, bool per_token) -> (Tensor, Tensor)");
}

KL_TORCH_LIBRARY_IMPL(KL_NAMESPACE, CUDA, m) {
  m.impl("fp8_quantize", &fp8_quantize);
}
