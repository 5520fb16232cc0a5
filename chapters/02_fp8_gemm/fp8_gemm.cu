// Exercise: the CUTLASS rung of fp8_gemm (Hopper, sm_90a).
//   y[M, N] = (a[M, K] * scale_a) @ (b[N, K] * scale_b)^T, e4m3 in, fp32 accumulation, bf16 out;
//   scale_a fp32 [1] or [M, 1], scale_b fp32 [1] or [N, 1]. Both operands are K-major: CUTLASS's
//   "TN" GEMM (A row-major, B column-major).
//
// What is given: one working CUTLASS 3.x kernel built with the collective builders (a TMA +
// wgmma warp-specialized cooperative mainloop, 128x128x128 tiles) and the launchers the binding
// (csrc/bindings/fp8_gemm_cutlass.cpp) calls. What is yours:
//   1. The epilogue. The kernel below ignores the scales (its epilogue is D = acc). Replace
//      `Epilogue` with a tree of epilogue visitors (EVT) computing D = bf16(row[m] * (col[n] * acc)):
//      Sm90ColBroadcast for the per-row scale, Sm90RowBroadcast for the per-column one, each with
//      a run-time bool stride (true: a vector, false: element 0 everywhere), Sm90AccFetch for the
//      accumulator and two Sm90Compute<multiplies>. Fill `arguments()` to match.
//   2. Small M. A wgmma instruction is 64 rows tall: at M = 1..64 most of a 128-row tile is
//      padding. Add a second configuration that computes y^T = b a^T (swap A and B, and the
//      scales; y^T column-major is y row-major) with a 16- or 64-wide N tile, and enough tiles
//      that every SM streams a share of the weight: 64 weight rows a tile with the ping-pong
//      schedule (its consumer warpgroup owns a whole 64-row tile), or K split by a stream-K
//      scheduler (the reference's notes say what each cost on an H200). Pick it in
//      fp8_gemm_cutlass_pick.
// Then delete the KL_STUB_NOT_IMPLEMENTED line below and grade with
//     python -m grading check fp8_gemm --rung cuda
// The reference (csrc/fp8_gemm_cutlass.cu) has both, and the notebook explains the pieces.
#ifndef NDEBUG
#define NDEBUG  // CUTLASS's device asserts between wgmma instructions would serialize them
#endif

#include <stdexcept>
#include <string>

#include <cute/tensor.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/dispatch_policy.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/gemm/kernel/tile_scheduler.hpp>
#include <cutlass/numeric_types.h>
#include <cutlass/util/packed_stride.hpp>

#include "fp8_gemm_cutlass.h"
#include "kl_common.cuh"

// TODO(you): the scaled epilogue, then delete this line (it tells the grader the stub is unwritten).
#define KL_STUB_NOT_IMPLEMENTED 1

namespace {

using namespace cute;

constexpr int kNumConfigs = 2;  // 0 (auto) and the one kernel
const char* const kConfigNames[kNumConfigs] = {"auto", "1 128x128x128 coop persistent"};

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("fp8_gemm (exercise): " + what); }

int current_device() {
  int device = 0;
  KL_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

void require_sm90(int device) {
  int major = 0, minor = 0;
  KL_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  KL_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major != 9 || minor != 0) fail("needs a Hopper GPU (sm_90), this one is sm_" + std::to_string(10 * major + minor));
}

#if defined(CUTLASS_ARCH_MMA_SM90_SUPPORTED)

using ElementAB = cutlass::float_e4m3_t;
using ElementD = cutlass::bfloat16_t;
using ElementAcc = float;
constexpr int kAlignAB = 16;  // 16 bytes: TMA's alignment for global rows
constexpr int kAlignD = 8;

using TileShape = Shape<_128, _128, _128>;  // (M, N, K) per CTA; K = 128 e4m3 = one 128-byte row
using ClusterShape = Shape<_1, _1, _1>;     // CTAs per cluster (TMA multicast along M or N)

// The epilogue: D = acc in bf16. TODO(you): the EVT with the two scales (see the top).
using Epilogue = cutlass::epilogue::fusion::LinearCombination<ElementD, ElementAcc>;

using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
    cutlass::epilogue::collective::EpilogueTileAuto, ElementAcc, ElementAcc,
    void, cutlass::layout::RowMajor, kAlignD, ElementD, cutlass::layout::RowMajor, kAlignD,
    cutlass::epilogue::TmaWarpSpecializedCooperative, Epilogue>::CollectiveOp;

// One producer warp issues TMA loads into a ring of shared-memory stages (as many as fit next to
// the epilogue); two consumer warpgroups wait on each stage's mbarrier, run wgmma on it and
// release it. No "FastAccum" in the schedule: partial sums are promoted to fp32 every 4 k-steps.
using CollectiveMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
    cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
    ElementAB, cutlass::layout::RowMajor, kAlignAB,
    ElementAB, cutlass::layout::ColumnMajor, kAlignAB,
    ElementAcc, TileShape, ClusterShape,
    cutlass::gemm::collective::StageCountAutoCarveout<
        static_cast<int>(sizeof(typename CollectiveEpilogue::SharedStorage))>,
    cutlass::gemm::KernelTmaWarpSpecializedCooperative>::CollectiveOp;

using GemmKernel = cutlass::gemm::kernel::GemmUniversal<
    Shape<int, int, int, int>, CollectiveMainloop, CollectiveEpilogue, cutlass::gemm::PersistentScheduler>;
using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;

typename Gemm::Arguments arguments(const void* a, const void* b, void* y, int m, int n, int k,
                                   int64_t lda, int64_t ldb, int device) {
  typename GemmKernel::StrideA stride_a{};  // [M, K] K-major: (row stride, 1, batch)
  get<0>(stride_a) = lda;
  typename GemmKernel::StrideB stride_b{};  // [N, K] K-major
  get<0>(stride_b) = ldb;
  const auto stride_d = cutlass::make_cute_packed_stride(typename GemmKernel::StrideD{}, make_shape(m, n, 1));
  cutlass::KernelHardwareInfo hw_info;
  hw_info.device_id = device;
  hw_info.sm_count = cutlass::KernelHardwareInfo::query_device_multiprocessor_count(device);
  // The fusion's arguments: alpha = 1, beta = 0 (no C). TODO(you): the scales' arguments
  typename CollectiveEpilogue::FusionCallbacks::Arguments epilogue{};
  epilogue.alpha = 1.0f;
  epilogue.beta = 0.0f;
  return typename Gemm::Arguments{
      cutlass::gemm::GemmUniversalMode::kGemm,
      {m, n, k, 1},
      {static_cast<const ElementAB*>(a), stride_a, static_cast<const ElementAB*>(b), stride_b},
      {epilogue, nullptr, stride_d, static_cast<ElementD*>(y), stride_d},
      hw_info,
  };
}

#endif  // CUTLASS_ARCH_MMA_SM90_SUPPORTED

}  // namespace

extern "C" int fp8_gemm_cutlass_num_configs() { return kNumConfigs; }

extern "C" const char* fp8_gemm_cutlass_config_name(int config) {
  return config >= 0 && config < kNumConfigs ? kConfigNames[config] : "unknown";
}

extern "C" int fp8_gemm_cutlass_pick(int64_t /*m*/, int64_t /*n*/, int64_t /*k*/) {
  return 1;  // TODO(you): the swap-AB configuration for small M
}

extern "C" size_t fp8_gemm_cutlass_workspace_size(int64_t m, int64_t n, int64_t k, int config) {
  if (config != 1) throw std::invalid_argument("fp8_gemm (exercise): unknown config " + std::to_string(config));
#if defined(CUTLASS_ARCH_MMA_SM90_SUPPORTED)
  const int device = current_device();
  require_sm90(device);
  return Gemm::get_workspace_size(arguments(nullptr, nullptr, nullptr, int(m), int(n), int(k), k, k, device));
#else
  fail("built without sm_90a: the CUTLASS kernel needs a build for Hopper");
#endif
}

extern "C" void fp8_gemm_cutlass_launch(const void* a, const void* b, const float* scale_a,
                                        const float* scale_b, void* y, int64_t m, int64_t n,
                                        int64_t k, int64_t lda, int64_t ldb, bool scale_a_per_row,
                                        bool scale_b_per_row, int config, void* workspace,
                                        size_t workspace_bytes, cudaStream_t stream) {
  (void)scale_a, (void)scale_b, (void)scale_a_per_row, (void)scale_b_per_row;  // TODO(you)
  if (config != 1) throw std::invalid_argument("fp8_gemm (exercise): unknown config " + std::to_string(config));
  if (m == 0) return;
#if defined(CUTLASS_ARCH_MMA_SM90_SUPPORTED)
  const int device = current_device();
  require_sm90(device);
  Gemm gemm;
  const auto args = arguments(a, b, y, int(m), int(n), int(k), lda, ldb, device);
  if (gemm.can_implement(args) != cutlass::Status::kSuccess) fail("CUTLASS cannot implement this problem");
  if (Gemm::get_workspace_size(args) > workspace_bytes) fail("workspace too small");
  if (gemm.initialize(args, workspace, stream) != cutlass::Status::kSuccess) fail("initialize failed");
  const cutlass::Status status = gemm.run(stream);
  KL_CUDA_CHECK(cudaGetLastError());
  if (status != cutlass::Status::kSuccess) fail("launch failed");
#else
  fail("built without sm_90a: the CUTLASS kernel needs a build for Hopper");
#endif
}
