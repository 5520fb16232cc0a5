// Registers paged_decode(Tensor q, Tensor k_cache, Tensor v_cache, Tensor block_table,
// Tensor seq_lens, float scale, int num_splits) -> Tensor as a torch op in the namespace the loader
// passes as KL_NAMESPACE (grading/cuda.py). The kernels are in a plain CUDA file behind
// paged_decode_launch; this file checks the tensors, allocates the output and the per-split
// workspace, and passes torch's current stream.
#include <torch/all.h>
#include <torch/library.h>

#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "kl_binding.h"
#include "paged_decode.h"

namespace {

using kl::kl_dtype;

void check_same(const at::Tensor& t, const at::Tensor& q, const char* name) {
  KL_CHECK_VALUE(t.device() == q.device(), name, ": expected the device of q (", q.device(), "), got ",
                 t.device());
}

at::Tensor paged_decode(const at::Tensor& q, const at::Tensor& k_cache, const at::Tensor& v_cache,
                        const at::Tensor& block_table, const at::Tensor& seq_lens, double scale,
                        int64_t num_splits) {
  KL_CHECK_VALUE(q.is_cuda(), "q: expected a CUDA tensor, got one on ", q.device());
  KL_CHECK_VALUE(q.dim() == 3, "q: expected 3 dimensions [B, Hq, D], got shape ", q.sizes());
  KL_CHECK_VALUE(k_cache.dim() == 4, "k_cache: expected 4 dimensions [P, S, Hkv, D], got shape ",
                 k_cache.sizes());
  KL_CHECK_VALUE(v_cache.sizes() == k_cache.sizes(), "v_cache: expected the shape of k_cache ",
                 k_cache.sizes(), ", got ", v_cache.sizes());
  check_same(k_cache, q, "k_cache");
  check_same(v_cache, q, "v_cache");
  check_same(block_table, q, "block_table");
  check_same(seq_lens, q, "seq_lens");
  const int dtype = kl_dtype(q, "q");
  KL_CHECK_TYPE(k_cache.scalar_type() == q.scalar_type() && v_cache.scalar_type() == q.scalar_type(),
                "k_cache, v_cache: expected the dtype of q (", q.scalar_type(), "), got ",
                k_cache.scalar_type(), " and ", v_cache.scalar_type());
  KL_CHECK_TYPE(block_table.scalar_type() == at::kInt, "block_table: expected dtype int32, got ",
                block_table.scalar_type());
  KL_CHECK_TYPE(seq_lens.scalar_type() == at::kInt, "seq_lens: expected dtype int32, got ",
                seq_lens.scalar_type());
  const int64_t b = q.size(0), hq = q.size(1), d = q.size(2);
  const int64_t s = k_cache.size(1), hkv = k_cache.size(2);
  KL_CHECK_VALUE(d == 64 || d == 128, "q: head dimension D = ", d, " is not supported; expected 64 or 128");
  KL_CHECK_VALUE(k_cache.size(3) == d, "k_cache: expected head dimension ", d,
                 " (the last dimension of q), got shape ", k_cache.sizes());
  KL_CHECK_VALUE(hkv > 0 && hq % hkv == 0, "q: ", hq, " query heads is not a multiple of the ", hkv,
                 " kv heads of k_cache");
  KL_CHECK_VALUE(q.stride(2) == 1 && k_cache.stride(3) == 1 && v_cache.stride(3) == 1,
                 "q, k_cache, v_cache: the last dimension must be contiguous (stride 1)");
  KL_CHECK_VALUE(block_table.dim() == 2 && block_table.size(0) == b && block_table.size(1) >= 1,
                 "block_table: expected shape [", b, ", max_pages >= 1], got ", block_table.sizes());
  KL_CHECK_VALUE(block_table.size(1) == 1 || block_table.stride(1) == 1,
                 "block_table: the last dimension must be contiguous (stride 1)");
  KL_CHECK_VALUE(seq_lens.dim() == 1 && seq_lens.size(0) == b, "seq_lens: expected shape [", b,
                 "], got ", seq_lens.sizes());
  KL_CHECK_VALUE(num_splits >= 1, "num_splits: expected at least 1, got ", num_splits);

  const c10::cuda::CUDAGuard device_guard(q.device());
  at::Tensor out = torch::empty({b, hq, d}, q.options());
  at::Tensor part_o, part_lse;
  if (num_splits > 1) {
    part_o = torch::empty({b, hq, num_splits, d}, q.options().dtype(at::kFloat));
    part_lse = torch::empty({b, hq, num_splits}, q.options().dtype(at::kFloat));
  }
  const at::Tensor sl = seq_lens.contiguous();
  paged_decode_launch(q.data_ptr(), k_cache.data_ptr(), v_cache.data_ptr(), block_table.data_ptr<int32_t>(),
                      sl.data_ptr<int32_t>(), out.data_ptr(),
                      num_splits > 1 ? part_o.data_ptr<float>() : nullptr,
                      num_splits > 1 ? part_lse.data_ptr<float>() : nullptr, b, hq, hkv, d, s, q.stride(0),
                      q.stride(1), k_cache.stride(0), k_cache.stride(1), k_cache.stride(2), v_cache.stride(0),
                      v_cache.stride(1), v_cache.stride(2), block_table.stride(0), static_cast<float>(scale),
                      static_cast<int>(num_splits), dtype, c10::cuda::getCurrentCUDAStream().stream());
  return out;
}

}  // namespace

KL_TORCH_LIBRARY(KL_NAMESPACE, m) {
  m.def("paged_decode(Tensor q, Tensor k_cache, Tensor v_cache, Tensor block_table, Tensor seq_lens, "
        "float scale, int num_splits) -> Tensor");
}

KL_TORCH_LIBRARY_IMPL(KL_NAMESPACE, CUDA, m) {
  m.impl("paged_decode", &paged_decode);
}
