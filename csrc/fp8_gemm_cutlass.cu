// fp8_gemm, the CUTLASS rung: y[M, N] = (a[M, K] * scale_a) @ (b[N, K] * scale_b)^T, e4m3 inputs,
// fp32 accumulation, bf16 output; scale_a fp32 [1] or [M, 1], scale_b fp32 [1] or [N, 1]. b is an
// nn.Linear weight ([N, K], row-major), so both operands are K-major: the "TN" GEMM, A row-major
// and B column-major in CUTLASS's terms.
//
// Hopper only (sm_90a): the kernels are CUTLASS 3.x warp-specialized kernels, one producer warp
// moving tiles with TMA (the bulk tensor copy engine) into a shared-memory pipeline, two consumer
// warpgroups issuing wgmma (QGMMA in SASS), the scales applied in the epilogue as it leaves the
// accumulators. On any other GPU the launcher throws with the reason.
//
// Napkin math, H200 (measured ceilings: 4.27 TB/s copy, _scaled_mm 1261 TFLOP/s; dense fp8 on
// the datasheet 1979):
//   FLOPs 2 M N K; bytes M K + N K (fp8) + 2 M N (bf16 y). The ridge point is 1261e12 / 4.27e12
//   = 295 FLOP/byte, which for the weight alone (N K bytes, 2 M N K FLOPs) is M ~ 150 tokens.
//   - Decode, M <= 64: the weight's bytes decide. 8192 x 8192 at M = 16: 67 MB / 4.27 TB/s =
//     15.7 us, while the FLOPs take 1.7 us. The kernel must keep every SM streaming weight.
//   - Prefill, M >= 1024: the FLOPs decide. 4096 x 8192 x 8192: 550 GFLOP / 1261 TFLOP/s = 436 us.
//     The kernel must keep the tensor cores fed: big tiles (fewer bytes per FLOP from shared
//     memory and L2) and TMA multicast across a cluster, within the registers that fp32
//     accumulation leaves (see Accuracy).
//     Run back to back, these GEMMs hold the board at its 700 W limit: the SM clock settles at
//     1.35-1.6 GHz, not 1.98 (benchmarks/h200_session30), so work per clock cycle and energy per
//     FLOP both count. The cooperative kernels pay more per output tile than torch._scaled_mm's
//     (13-15% of a tile's time at K = 4096, against 9-11%): both consumer warpgroups stop for
//     the epilogue. Where K <= 4096, 81 and 82 hide it under the other warpgroup's mainloop and
//     run 1.04-1.11x torch._scaled_mm held at the power cap; at longer K the promoting kernels
//     run 0.97-1.00x (benchmarks/h200_session31, call 3).
//
// The configurations (a CUTLASS kernel and its run-time arguments; fp8_gemm_cutlass_pick chooses
// from 29, 36, 41-44, 48, 53, 59, 64, 65, 81, 82, 92, 96, 100-102, 109-112, 116, 119 and 120
// by the shape, each launched with programmatic dependent launch; 29 and 53 are kernels 3 and 4
// promoted every 256 and 2048 of K, see below, and 59 is 53's tile under stream-K; 36, 41-48, 64,
// 65, 92, 96, 100-102, 109-112, 116, 119 and 120 promote from two temporaries, see
// TwoTempsMainloop; 81 and 82 do not promote, see Accuracy):
//   43 swap-AB 64x16x128    ping-pong    persistent               M <= 16, N / 64 <= SMs
//   64 swap-AB 64x16x128    one consumer, not persistent, 3 an SM M <= 16, SMs < N / 64 <= 3 SMs
//   65 swap-AB 128x16x128   one consumer, not persistent, 2 an SM M <= 16, more weight rows
//   96 swap-AB 256x64x128   cooperative  persistent               16 < M <= 64, where its tiles
//                                                                 make one wave over 3/4 of the
//                                                                 SMs or more
//   42 swap-AB 64x32x128    ping-pong    persistent               16 < M <= 32, other weights
//   41 swap-AB 64x64x128    ping-pong    persistent               48 < M <= 64, N / 64 <= SMs
//   110 swap-AB 64x48x128   ping-pong    persistent               32 < M <= 48, N / 64 <= SMs
//   109 swap-AB 64x48x128   one consumer, not persistent, 2 an SM 32 < M <= 48, N / 64 > SMs
//   92 swap-AB 64x64x128    one consumer, not persistent, 2 an SM 48 < M <= 64, N / 64 > SMs
//   111 swap-AB 64x80x128   ping-pong    persistent               64 < M <= 80, N / 64 <= SMs
//   112 swap-AB 64x80x128   ping-pong    cluster 4x1, persistent  64 < M <= 80, more tiles
//   101 swap-AB 64x96x128   ping-pong    persistent               80 < M <= 96, N / 64 <= SMs
//   102 swap-AB 64x96x128   ping-pong    cluster 4x1, persistent  80 < M <= 96, more tiles
//   116        128x112x128  cooperative  cluster 1x2, persistent  96 < M <= 128, where its tiles
//                                                                 fill two rounds or more to 95%
//   100 swap-AB 128x64x128  cooperative  persistent               96 < M <= 128, where its tiles
//                                                                 make one wave over 3/4 of the
//                                                                 SMs or more
//   119 swap-AB 64x56x128   ping-pong    cluster 1x2, persistent  96 < M <= 112, one wave of its
//                                                                 tiles
//   120 swap-AB 64x64x128   ping-pong    cluster 1x2, persistent  112 < M <= 128, one wave of its
//                                                                 tiles
//   44 swap-AB 64x128x128   ping-pong    persistent               96 < M <= 128, one wave of its
//                                                                 tiles
//   48 swap-AB 64x128x128   ping-pong    cluster 4x1, persistent  96 < M <= 128, more tiles
//   3          128x128x128  cooperative  stream-K                 M > 128 with under half a wave
//                                                                 of 128x128 tiles (as 29)
//   36         128x128x128  cooperative  cluster 2x1, persistent  M > 128 where 4's tiles make
//                                                                 under 8 waves
//   58         128x192x128  cooperative  cluster 2x1, stream-K    the same at M >= 2048, K >= 8192,
//                                                                 a small last wave (as 59)
//   4          128x192x128  cooperative  cluster 2x1, persistent  larger M x N (as 53)
//   81         128x192x128  ping-pong    cluster 2x1, persistent  M > 128, K <= 4096, two 128x128
//                                                                 tiles an SM or more, where its
//                                                                 tiles fill the last round better
//   82         128x128x128  ping-pong    cluster 2x1, persistent  the same, where 82's do
//   (36, 58 and 4 take the shapes M > 128 that 81 and 82 do not.)
// The rules, each with what was measured for it, are in fp8_gemm_cutlass_pick.h.
// Each kernel costs about 11 s of nvcc on one core (see "The parallel build"), so the shipped
// build holds these twenty-five. The sweep in benchmarks/fp8_gemm_cutlass_check.py times more:
// run-time variants of these kernels (the cases of with_config below) and candidates built only
// in its sweep builds (KL_FP8_GEMM_SWEEP = 1 to 19). fp8_gemm_cutlass_sweep.cuh holds those,
// lists every configuration by number with what it was built to test, and keeps the napkin math
// that chose them.
//
// Out of reach of this file, from the same registers: 128x256 or 256x128 tiles with promotion
// (64x256 per warpgroup is 128 accumulators plus 128 temporaries, past 232 registers), and the
// ping-pong schedule, whose warpgroup tile (128x128 at least to pay for itself) doubles that.
//
// Swap-AB: a wgmma instruction is 64 rows tall (M) and 8..256 columns wide (N), so a GEMM with 1-64
// rows of M wastes most of each instruction. Computing y^T = b a^T instead puts the weight's N
// (4096..28672) on the tall side and the few tokens on the narrow side; y^T column-major is y
// row-major, so only the epilogue's store layout changes, and the two scales trade places.
//
// Accuracy: wgmma adds fp8 products into its accumulators with fewer bits than fp32 (13 of
// mantissa, truncated, by public measurements), so an error that grows with K; at Llama's longer
// K (8192-28672) it is past bf16 rounding, and grading/specs/fp8_gemm.py rejects it. So the
// kernels for such K run 4 or more k-steps (128 of K, CUTLASS's default mma_promotion_interval;
// 53 runs 64) into a temporary and add that to fp32 accumulators with ordinary FADDs. Each wgmma
// k-step (32 of K) truncates once, so a partial sum of 8 steps carries at most 8 such roundings
// however long K is, against ~130 for fast accumulation at K = 4144. The temporary doubles the
// accumulator registers: a consumer thread gets 232 (setmaxnreg), so a warpgroup's share of a
// tile stops at 64x192 (96 + 96 registers); 64x256, the usual share without promotion, would
// need 256. Kernel 6 (sweep build 1) shows what the promotion costs.
// Where K <= 4096 the whole sum is short enough to need no promotion: fast accumulation's
// relative L2 error against float64 is 1.3e-3 at K = 4096 on an H200 (chapter 02, section 7),
// under the 1.7e-3 that rounding the exact result to bf16 costs by itself (the two together
// ~2.1e-3; 53's ~1.9e-3; torch._scaled_mm's 1.7e-3, promoting every 128). With no temporary one
// warpgroup has room for a whole 128x192 tile, which the ping-pong schedule needs: 81 and 82.
//
// Device-side assert() in CUTLASS's stream-K and pipeline code is a call to __assertfail, and a
// call among wgmma instructions makes ptxas serialize them (warning C7510: each wgmma waits for
// the one before). CUTLASS's own builds define NDEBUG; so does this file, before any header.
#ifndef NDEBUG
#define NDEBUG
#endif
// Programmatic dependent launch (kl_common.cuh; chapter 01): with this defined, CUTLASS's sm90
// kernels wait for the previous kernel's writes (griddepcontrol.wait) before their first global
// load, and run(..., launch_with_pdl) lets a launch be scheduled while the kernel before it
// drains. Launched without it (configurations 2-24), the wait returns at once. On an H200, beside
// the same kernels launched without it in one run (benchmarks/h200_session18/call1), geometric
// mean over the six Llama weights against torch._scaled_mm: 0.97x at M = 1 and 0.96x at 16 (25)
// where 21 ran 0.92x, 0.90x at 64 (26; 22 0.86x), 0.81x at 128 (27; 23 0.79x); 28-30 within 2% of
// 2, 15 and 10. So every pick since is launched that way. The switch is on in the shipped build
// and in sweep builds 5 and up, whose candidates are compared with those picks; builds 1-4
// compare kernels without it. CUTLASS's stream-K scheduler does not compile with the switch;
// kl_cutlass::StreamKScheduler (below) is the one the stream-K kernels use then.
#if !defined(KL_FP8_GEMM_SWEEP) || KL_FP8_GEMM_SWEEP >= 5
#define CUTLASS_ENABLE_GDC_FOR_SM90
#endif
// CuTe picks a tile's wgmma shape from the widest that divides its N. Unless this is defined it
// knows only 8, 16, 32, 64, 96, 128, 192 and 256: a 144-wide tile then gets 64x16 instructions
// (nine per k-step), and so do the 48-, 80- and 112-token tiles (three, five, seven), a 56-token
// one 64x8 (seven), each re-reading the weight's 64 x 32 bytes from shared memory. The shipped
// build has it (109-112, 116 and 119 need it), and so do sweep builds 11 and 19; the other sweep
// builds' candidates were measured without it (18's 103-108 as 64x16 and 64x8 instructions).
#if !defined(KL_FP8_GEMM_SWEEP) || KL_FP8_GEMM_SWEEP == 11 || KL_FP8_GEMM_SWEEP == 19
#define CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED
#endif
// The parallel build. nvcc spends about 27 s of one core on the headers and 11 s more on each
// kernel here, most of it in cicc's front end (template instantiation; --split-compile does not
// shorten it): 283 s for twenty-four kernels, 38 s for one (nvcc -time, this file alone, on a
// machine without a GPU). So grading/cuda.py, seeing KL_BUILD_PARTS, compiles it as that many
// translation units side by side, each with KL_BUILD_PART defined: part 0 holds the dispatch and
// the C launchers, and parts 1 and up each instantiate their share of the kernels (Launcher, and
// the lists after with_config). Without KL_BUILD_PART (nvcc on this file alone, or a sweep build)
// it is one translation unit that holds everything. On the H200 machine's 16 cores the
// twenty-four kernels built in 171 s this way, against 264-270 s as one unit
// (benchmarks/h200_session39, call 1).
#define KL_BUILD_PARTS 7

#include <algorithm>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

#include <cute/tensor.hpp>
#include <cutlass/cutlass.h>
#include <cutlass/epilogue/collective/collective_builder.hpp>
#include <cutlass/epilogue/fusion/sm90_visitor_compute_tma_warpspecialized.hpp>
#include <cutlass/epilogue/fusion/sm90_visitor_load_tma_warpspecialized.hpp>
#include <cutlass/epilogue/fusion/sm90_visitor_tma_warpspecialized.hpp>
#include <cutlass/gemm/collective/collective_builder.hpp>
#include <cutlass/gemm/device/gemm_universal_adapter.h>
#include <cutlass/gemm/dispatch_policy.hpp>
#include <cutlass/gemm/kernel/gemm_universal.hpp>
#include <cutlass/gemm/kernel/tile_scheduler.hpp>
#include <cutlass/numeric_types.h>
#include <cutlass/util/packed_stride.hpp>

#include "fp8_gemm_cutlass.h"
#include "fp8_gemm_cutlass_pick.h"
#include "kl_common.cuh"

#if defined(CUTLASS_ENABLE_GDC_FOR_SM90)
// With CUTLASS_ENABLE_GDC_FOR_SM90 the sm90 kernels ask their tile scheduler whether a CTA's tile
// is its last (is_last_tile), to let the next kernel launch early. CUTLASS 4.2's stream-K
// scheduler does not compile there: its is_last_tile, a const member, passes a member to a
// non-const reference (sm90_tile_scheduler_stream_k.hpp). Ours is that scheduler with the one
// answer replaced by "no": a stream-K CTA lets the next kernel launch when it exits, as without
// the switch. Everything else is inherited. The configurations name its tag (StreamK, below).
namespace kl_cutlass {
struct StreamKScheduler {};
template <class TileShape, class ClusterShape>
class StreamKSchedulerSm90
    : public cutlass::gemm::kernel::detail::PersistentTileSchedulerSm90StreamK<TileShape, ClusterShape> {
  using Base = cutlass::gemm::kernel::detail::PersistentTileSchedulerSm90StreamK<TileShape, ClusterShape>;

 public:
  using Base::Base;
  template <class WorkTileInfo>
  CUTLASS_DEVICE bool is_last_tile(WorkTileInfo const&, uint32_t = 1) const { return false; }
};
}  // namespace kl_cutlass

namespace cutlass::gemm::kernel::detail {
template <class TileShape, class ClusterShape, uint32_t SchedulerPipelineStageCount>
struct TileSchedulerSelector<kl_cutlass::StreamKScheduler, arch::Sm90, TileShape, ClusterShape,
                             SchedulerPipelineStageCount> {
  using Scheduler = kl_cutlass::StreamKSchedulerSm90<TileShape, ClusterShape>;
};
}  // namespace cutlass::gemm::kernel::detail
#endif

// Outside the anonymous namespace below: nvcc's host stub for a kernel there cannot name it
// once `using namespace cute` brings CuTe's own anonymous namespace in beside it.
namespace kl_cutlass {
// y[i] = bf16(sum over the batches of partials[batch][i]), 8 outputs a thread (16-byte loads and
// one 16-byte store; m x n is a multiple of 8). Launched right after the GEMM with programmatic
// dependent launch: its blocks wait for the GEMM's writes, and let the next kernel be scheduled.
// A template so that only a build with a split-K configuration emits it.
template <int = 0>
__global__ void __launch_bounds__(256)
sum_partials(const float* __restrict__ partials, __nv_bfloat16* __restrict__ y, int64_t count, int batches) {
  kl_wait_previous_grid();
  kl_release_next_grid();
  const int64_t i = (int64_t(blockIdx.x) * blockDim.x + threadIdx.x) * 8;
  if (i >= count) return;
  float4 lo = *reinterpret_cast<const float4*>(partials + i);
  float4 hi = *reinterpret_cast<const float4*>(partials + i + 4);
  for (int b = 1; b < batches; ++b) {
    const float4 l = *reinterpret_cast<const float4*>(partials + b * count + i);
    const float4 h = *reinterpret_cast<const float4*>(partials + b * count + i + 4);
    lo.x += l.x; lo.y += l.y; lo.z += l.z; lo.w += l.w;
    hi.x += h.x; hi.y += h.y; hi.z += h.z; hi.w += h.w;
  }
  alignas(16) __nv_bfloat162 out[4] = {__floats2bfloat162_rn(lo.x, lo.y), __floats2bfloat162_rn(lo.z, lo.w),
                                       __floats2bfloat162_rn(hi.x, hi.y), __floats2bfloat162_rn(hi.z, hi.w)};
  *reinterpret_cast<uint4*>(y + i) = *reinterpret_cast<const uint4*>(out);
}

// Also outside it, for the parallel build (KL_BUILD_PARTS): what its translation units share by
// name, so that part 0's dispatch links with the kernels the other parts compile.

// One problem as the caller sees it (before any swap).
struct Problem {
  const void* a;
  const void* b;
  const float* scale_a;
  const float* scale_b;
  void* y;
  int m, n, k;
  int64_t lda, ldb;
  bool scale_a_per_row, scale_b_per_row;
};

// The run-time half of a configuration: arguments that change the schedule, not the kernel.
struct Knobs {
  int promotion = 0;        // wgmma k-steps (k = 32) per fp32 promotion; 0: one k-tile (4 or 8)
  int swizzle = 1;          // the tile scheduler's max_swizzle_size (1, 2, 4, 8)
  int raster = 0;           // the tile scheduler's raster order: 0 its heuristic, 1 along M, 2 along N
  int decomposition = -1;   // stream-K only: -1 this file's default, else a DecompositionMode
  bool splits_fill_sms = false;   // split-K: SMs / tiles splits (at least 1)
  bool unordered_reduction = false;  // stream-K: partials added in any order (not bit-reproducible)
  bool dependent_launch = false;     // launched with programmatic dependent launch (sm_90)
  int k_splits = 1;         // fp32-partial kernels only: K cut into this many batches (see SplitK)
};

// Shipped kernel N's host side (Fp8GemmConfig's workspace_size and run for ConfigN), keyed by its
// configuration's number. with_config hands these to the launchers; in the parallel build part 0
// sees only this declaration, and the part that compiles kernel N defines its members (after
// with_config, with the list of each part's kernels).
template <int N>
struct Launcher {
  static size_t workspace_size(const Problem& p, int device, const Knobs& knobs);
  static void run(const Problem& p, int config, void* workspace, size_t workspace_bytes, cudaStream_t stream,
                  int device, const Knobs& knobs);
};
}  // namespace kl_cutlass

namespace {

using namespace cute;
using kl_cutlass::Knobs;
using kl_cutlass::Launcher;
using kl_cutlass::Problem;

constexpr int kNumConfigs = 122;  // 0 (auto) and configurations 1-121 (54-56 removed, 83-85 not here)
const char* const kConfigNames[kNumConfigs] = {
    "auto",
    "1 swapAB 128x16x128 coop streamK",
    "2 swapAB 128x64x128 coop streamK",
    "3 128x128x128 coop streamK",
    "4 128x192x128 coop c2x1",
    "5 128x128x128 coop c2x1",
    "6 128x256x128 coop c2x1 FASTACC",
    "7 swapAB 128x16x256 coop streamK promote256",
    "8 128x192x128 coop c2x1 streamK",
    "9 128x128x256 coop c2x1 promote256",
    "10 = 4 promote256",
    "11 = 4 swizzle4",
    "12 = 1 streamK heuristic",
    "13 = 1 splitK SMs/tiles",
    "14 = 1 streamK unordered reduction",
    "15 = 3 promote256",
    "16 = 8 promote256",
    "17 = 4 promote512",
    "18 = 4 promote1024",
    "19 = 3 promote512",
    "20 = 3 promote1024",
    "21 swapAB 64x16x128 pingpong",
    "22 swapAB 64x64x128 pingpong",
    "23 128x64x128 coop c1x2",
    "24 = 2 splitK SMs/tiles",
    "25 = 21 dependent launch",
    "26 = 22 dependent launch",
    "27 = 23 dependent launch",
    "28 = 2 dependent launch",
    "29 = 15 dependent launch",
    "30 = 10 dependent launch",
    "31 swapAB 64x64x128 pingpong c2x1 dependent launch",
    "32 swapAB 64x16x128 pingpong c2x1 dependent launch",
    "33 swapAB 64x32x128 pingpong dependent launch",
    "34 64x192x128 pingpong c2x1 promote256 dependent launch",
    "35 128x96x128 pingpong c2x1 promote256 dependent launch",
    "36 128x128x128 coop c2x1 two temporaries dependent launch",
    "37 128x128x128 coop c1x2 two temporaries dependent launch",
    "38 128x128x128 coop c2x1 dependent launch",
    "39 = 38 promote256",
    "40 128x64x128 coop c1x2 two temporaries dependent launch",
    "41 swapAB 64x64x128 pingpong two temporaries dependent launch",
    "42 swapAB 64x32x128 pingpong two temporaries dependent launch",
    "43 swapAB 64x16x128 pingpong two temporaries dependent launch",
    "44 swapAB 64x128x128 pingpong two temporaries dependent launch",
    "45 128x128x128 coop streamK two temporaries dependent launch",
    "46 swapAB 64x128x128 pingpong c2x1 two temporaries dependent launch",
    "47 swapAB 64x64x128 pingpong c2x1 two temporaries dependent launch",
    "48 swapAB 64x128x128 pingpong c4x1 two temporaries dependent launch",
    "49 128x144x128 coop c2x1 two temporaries dependent launch",
    "50 128x144x128 coop c2x1 promote256 dependent launch",
    "51 = 17 dependent launch",
    "52 = 18 dependent launch",
    "53 = 4 promote2048 dependent launch",
    "54 (removed)",
    "55 (removed)",
    "56 (removed)",
    "57 128x128x128 coop c2x1 streamK forced two temporaries dependent launch",
    "58 128x192x128 coop c2x1 streamK forced promote2048 dependent launch",
    "59 = 58 streamK heuristic",
    "60 swapAB 128x16x128 coop streamK two temporaries dependent launch",
    "61 swapAB 128x64x128 coop streamK two temporaries dependent launch",
    "62 swapAB 128x128x128 coop streamK two temporaries dependent launch",
    "63 swapAB 64x16x128 one consumer not persistent 4 stages 4 CTAs/SM two temporaries dependent launch",
    "64 swapAB 64x16x128 one consumer not persistent 6 stages 3 CTAs/SM two temporaries dependent launch",
    "65 swapAB 128x16x128 one consumer not persistent 5 stages 2 CTAs/SM two temporaries dependent launch",
    "66 = 53 swizzle2",
    "67 = 53 swizzle4",
    "68 = 53 swizzle8",
    "69 = 53 raster along M",
    "70 = 53 raster along N",
    "71 = 36 swizzle2",
    "72 = 36 swizzle4",
    "73 = 36 swizzle8",
    "74 = 36 raster along M",
    "75 = 36 raster along N",
    "76 = 4 promote4096 dependent launch",
    "77 = 53 (kernel 4 built again)",
    "78 = 53 with 4 stages",
    "79 = 53 with 128x64 epilogue tiles",
    "80 = 53 with one 128x192 epilogue tile",
    "81 128x192x128 pingpong c2x1 FASTACC dependent launch",
    "82 128x128x128 pingpong c2x1 FASTACC dependent launch",
    "83 (not in this file: benchmarks/h200_session32)",
    "84 (not in this file: benchmarks/h200_session32)",
    "85 (not in this file: benchmarks/h200_session32)",
    "86 swapAB 64x64x128 pingpong two temporaries split-K 2 dependent launch",
    "87 = 86 split-K 4",
    "88 swapAB 64x128x128 pingpong two temporaries split-K 2 dependent launch",
    "89 = 88 split-K 4",
    "90 swapAB 64x16x128 pingpong two temporaries split-K 2 dependent launch",
    "91 = 90 split-K 4",
    "92 swapAB 64x64x128 one consumer not persistent 6 stages 2 CTAs/SM two temporaries dependent launch",
    "93 (unused)",
    "94 (unused)",
    "95 (unused)",
    "96 swapAB 256x64x128 coop two temporaries dependent launch",
    "97 swapAB 256x64x128 coop c4x1 two temporaries dependent launch",
    "98 swapAB 256x16x128 coop two temporaries dependent launch",
    "99 swapAB 128x64x128 coop c1x2 two temporaries dependent launch",
    "100 swapAB 128x64x128 coop two temporaries dependent launch",
    "101 swapAB 64x96x128 pingpong two temporaries dependent launch",
    "102 swapAB 64x96x128 pingpong c4x1 two temporaries dependent launch",
    "103 swapAB 64x48x128 pingpong two temporaries dependent launch",
    "104 swapAB 64x48x128 one consumer not persistent 6 stages 2 CTAs/SM two temporaries dependent launch",
    "105 swapAB 64x80x128 pingpong two temporaries dependent launch",
    "106 swapAB 64x80x128 pingpong c4x1 two temporaries dependent launch",
    "107 swapAB 64x112x128 pingpong c4x1 two temporaries dependent launch",
    "108 swapAB 64x56x128 pingpong two temporaries dependent launch",
    "109 swapAB 64x48x128 wgmma n48 one consumer not persistent 6 stages 2 CTAs/SM two temporaries dependent launch",
    "110 swapAB 64x48x128 wgmma n48 pingpong two temporaries dependent launch",
    "111 swapAB 64x80x128 wgmma n80 pingpong two temporaries dependent launch",
    "112 swapAB 64x80x128 wgmma n80 pingpong c4x1 two temporaries dependent launch",
    "113 swapAB 64x112x128 wgmma n112 pingpong c4x1 two temporaries dependent launch",
    "114 swapAB 64x112x128 wgmma n112 pingpong two temporaries dependent launch",
    "115 swapAB 64x56x128 wgmma n56 pingpong two temporaries dependent launch",
    "116 128x112x128 wgmma n112 cooperative c1x2 two temporaries dependent launch",
    "117 128x112x128 wgmma n112 cooperative two temporaries dependent launch",
    "118 swapAB 64x40x128 wgmma n40 pingpong two temporaries dependent launch",
    "119 swapAB 64x56x128 wgmma n56 pingpong c1x2 two temporaries dependent launch",
    "120 swapAB 64x64x128 pingpong c1x2 two temporaries dependent launch",
    "121 swapAB 64x72x128 wgmma n72 pingpong two temporaries dependent launch",
};
// Which build holds which configuration (benchmarks/fp8_gemm_cutlass_check.py knows the same):
// the file as shipped (0), or built with KL_FP8_GEMM_SWEEP = 1 to 19. 54-56 (36 adding its
// temporaries every 2, 4 and 16 k-tiles; benchmarks/h200_session22, call 2) were within 1% of 36
// and are gone; 83-85 name a decode kernel without CUTLASS that was measured and set aside
// (benchmarks/h200_session32, call 1); their numbers stay unused so the committed results keep
// their meaning.
#if defined(KL_FP8_GEMM_SWEEP)
constexpr int kBuild = KL_FP8_GEMM_SWEEP;
#else
constexpr int kBuild = 0;
#endif
constexpr const char* const kBuildConfigs[] = {
    "3, 4, 10, 11, 15, 17-20, 29, 30, 36, 41-44, 48, 51-53, 58, 59, 64-76, 81, 82, 92, 96, 100-102, 109-112, 116, 119, 120",
    "5-6", "7-8 and 16", "9", "1 and 12-14", "31, 32, 34, 35", "37-39", "40", "45",
    "2, 21-28 and 33", "46 and 47", "49 and 50", "57", "60-62", "63", "77-80", "86-91", "97 and 98",
    "99 and 103-108", "113-115, 117, 118 and 121",
};
static_assert(kBuild >= 0 && kBuild < int(sizeof(kBuildConfigs) / sizeof(kBuildConfigs[0])),
              "KL_FP8_GEMM_SWEEP must be 1 to 19");
constexpr const char* kThisBuild = kBuildConfigs[kBuild];

[[noreturn]] void fail(const std::string& what) { throw std::runtime_error("fp8_gemm_cutlass: " + what); }

int current_device() {
  int device = 0;
  KL_CUDA_CHECK(cudaGetDevice(&device));
  return device;
}

int sm_count(int device) {
  int sms = 0;
  KL_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  return sms;
}

// wgmma and TMA multicast exist on compute capability 9.0 only, and the build targets sm_90a;
// anywhere else the kernels would trap, so the launcher says why instead.
void require_sm90(int device) {
  int major = 0, minor = 0;
  KL_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  KL_CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  if (major != 9 || minor != 0) {
    fail("needs a Hopper GPU (compute capability 9.0, H100/H200; its kernels use wgmma and TMA "
         "built for sm_90a), this one is sm_" + std::to_string(major) + std::to_string(minor) +
         ": use the Triton or torch._scaled_mm rungs here");
  }
}

#if defined(CUTLASS_ARCH_MMA_SM90_SUPPORTED)

using ElementAB = cutlass::float_e4m3_t;
using ElementD = cutlass::bfloat16_t;
using ElementAcc = float;
using ElementScale = float;
// 16 bytes: the bulk copy engine's alignment for global rows (16 e4m3; the output's, 8 bf16 or 4
// fp32, is Fp8GemmConfig's kAlignOut).
constexpr int kAlignAB = 16;

constexpr Knobs promote(int k_steps) { Knobs k; k.promotion = k_steps; return k; }
constexpr Knobs swizzle(int size, Knobs k = Knobs{}) { k.swizzle = size; return k; }
// Consecutive tiles down M (1: each wave shares b's tiles, reads a whole) or along N (2). The
// heuristic (0) goes down M where there are more tiles along N.
constexpr Knobs raster(int order, Knobs k = Knobs{}) { k.raster = order; return k; }
constexpr Knobs split_evenly() { Knobs k; k.splits_fill_sms = true; return k; }
constexpr Knobs dependent_launch(Knobs k = Knobs{}) { k.dependent_launch = true; return k; }
// K split into `splits` equal batches, each summed into its own fp32 partial (see SplitK).
constexpr Knobs split_k(int splits, Knobs k = Knobs{}) { k.k_splits = splits; return k; }
// Stream-K forced: the last two waves' tiles split along K, whatever CUTLASS's heuristic says.
constexpr Knobs stream_k(Knobs k = Knobs{}) { k.decomposition = 3; return k; }

// The stream-K scheduler's tag: CUTLASS's, or with CUTLASS_ENABLE_GDC_FOR_SM90 ours (above).
#if defined(CUTLASS_ENABLE_GDC_FOR_SM90)
using StreamK = kl_cutlass::StreamKScheduler;
#else
using StreamK = cutlass::gemm::StreamKScheduler;
#endif

// Split-K for decode (configurations 86-91, sweep build 16). Where a decode pick's tiles are no
// more than the SMs (M = 64 and 128 at N = 4096 and 8192: 64 or 128 tiles of 64 weight rows), each
// CTA owns one tile: at 64 tiles half the SMs stream no weight, and one of a CTA's two ping-pong
// warpgroups has no tile. Cutting K into 2 or 4 equal batches makes 2-4 times the work units. The
// batches run as CUTLASS's batch mode (one launch, the batch stride kb = K / batches along K of
// both operands); each writes its tile of scaled fp32 sums to the workspace, and
// kl_cutlass::sum_partials (above) adds the batches into y (bf16). Unlike stream-K (60-62)
// nothing is zeroed before the launch and no CTA waits for another's partial; the price is
// batches x M x N x 4 bytes of partials written and read again, and a second launch.
// Measured slower than the unsplit tiles everywhere (sweep build 16, fp8_gemm_cutlass_sweep.cuh,
// says by how much): the ping-pong warpgroups take turns in the mainloop, so a CTA's second unit
// streams no faster.
// The batches a K splits into: the most, up to `want`, that leave every batch whole k-tiles (so a
// batch's last k-tile never reads into the next batch's columns); 1 (no split) if none.
inline int usable_splits(int k, int want, int k_tile) {
  for (int s = want; s > 1; --s) {
    if (k % (s * k_tile) == 0) return s;
  }
  return 1;
}

// Whether a mainloop takes mma_promotion_interval (the fp8 mainloop with promotion does; the
// fast-accumulation one has no such argument).
template <class Args, class = void>
struct HasPromotion : std::false_type {};
template <class Args>
struct HasPromotion<Args, std::void_t<decltype(std::declval<Args&>().mma_promotion_interval)>> : std::true_type {};

// Promotion without draining the tensor cores (configurations 36, 37, 40-48). CUTLASS's
// fp8 mainloop adds its temporary into the fp32 accumulators only after every wgmma in flight
// has finished (warpgroup_wait<0>), so each promotion idles the tensor cores for the wgmma
// latency and the FADDs. With two temporaries that cost goes: k-tile t's wgmmas accumulate into
// one while the FADDs add k-tile t-1's from the other, so the tensor cores always have the next
// k-tile queued. Every k-tile (128 of K, 4 k-steps) is promoted: CUTLASS's default interval, half
// kernels 3 and 4's 256. The price is registers: accumulators plus two temporaries is 3 x 64
// per thread for a warpgroup's 64x128 share of a 128x128 tile, or a ping-pong warpgroup's 64x128
// tile (192 of the 232 a consumer thread gets), which rules out the 128x192 tiles of kernel 4.
// torch._scaled_mm's kernel at M = 4096 is named for 128x128 tiles, cooperative, six stages, a 2x1
// cluster (benchmarks/h200_session19, call 1).
//
// Base: the mainloop CUTLASS builds for fp8 with fast accumulation (its loads, shared memory,
// pipeline and arguments are kept); only the consumer's loop, mma(), is ours. Everything the
// kernel calls besides mma() is the base's, mma_tail() included: like the base, mma() leaves the
// last k-tile's stage for mma_tail() to release.
// The kernel-schedule tags that select it in Fp8GemmConfig, each naming the fast-accumulation
// kernel whose mainloop it is built as (Built): the cooperative kernel, or the ping-pong one (one
// warpgroup a tile: the same mma(), with one warpgroup's share), or the warp-specialized kernel
// that is not persistent (one CTA a tile, one consumer warpgroup: 64, 65 and sweep build 14's 63).
struct CooperativeTwoTemps {
  using Built = cutlass::gemm::KernelTmaWarpSpecializedCooperativeFP8FastAccum;
};
struct PingpongTwoTemps {
  using Built = cutlass::gemm::KernelTmaWarpSpecializedPingpongFP8FastAccum;
};
struct OneConsumerTwoTemps {
  using Built = cutlass::gemm::KernelTmaWarpSpecializedFP8FastAccum;
};
// The schedule CUTLASS builds for a tag: its Built, or a CUTLASS schedule itself.
template <class Schedule, class = void>
struct BuiltScheduleOf {
  using type = Schedule;
};
template <class Schedule>
struct BuiltScheduleOf<Schedule, std::void_t<typename Schedule::Built>> {
  using type = typename Schedule::Built;
};

template <class Base>
struct TwoTempsMainloop : Base {
  template <class FrgTensorC>
  CUTLASS_DEVICE void mma(typename Base::MainloopPipeline pipeline, typename Base::PipelineState smem_pipe_read,
                          FrgTensorC& accum, int k_tile_count, int thread_idx,
                          typename Base::TensorStorage& shared_tensors, typename Base::Params const&) {
    using namespace cute;
    using TiledMma = typename Base::TiledMma;
    Tensor sA = make_tensor(make_smem_ptr(shared_tensors.smem_A.data()), typename Base::SmemLayoutA{});  // (M,K,PIPE)
    Tensor sB = make_tensor(make_smem_ptr(shared_tensors.smem_B.data()), typename Base::SmemLayoutB{});  // (N,K,PIPE)
    // This warpgroup's share of the tile: the two consumer warpgroups split M.
    constexpr int kWarpGroups = size(TiledMma{}) / cutlass::NumThreadsPerWarpGroup;
    const auto warp_groups = make_layout(Int<kWarpGroups>{}, Int<cutlass::NumThreadsPerWarpGroup>{});
    const int warp_group = __shfl_sync(0xffffffffu, thread_idx / cutlass::NumThreadsPerWarpGroup, 0);
    TiledMma tiled_mma;
    auto thread_mma = tiled_mma.get_slice(warp_groups(warp_group));
    // wgmma descriptors of each stage's A and B (MMA, MMA_M or MMA_N, MMA_K, PIPE).
    Tensor tCrA = thread_mma.make_fragment_A(thread_mma.partition_A(sA));
    Tensor tCrB = thread_mma.make_fragment_B(thread_mma.partition_B(sB));
    Tensor temp0 = make_fragment_like(accum);
    Tensor temp1 = make_fragment_like(accum);

    typename Base::PipelineState smem_pipe_release = smem_pipe_read;
    // One k-tile's wgmmas into temp (zeroed by the first: ScaleOut::Zero), committed as one batch.
    auto issue = [&](auto& temp) {
      pipeline.consumer_wait(smem_pipe_read, pipeline.consumer_try_wait(smem_pipe_read));
      const int stage = smem_pipe_read.index();
      warpgroup_fence_operand(temp);
      warpgroup_arrive();
      tiled_mma.accumulate_ = GMMA::ScaleOut::Zero;
      CUTLASS_PRAGMA_UNROLL
      for (int k_block = 0; k_block < size<2>(tCrA); ++k_block) {
        cute::gemm(tiled_mma, tCrA(_, _, k_block, stage), tCrB(_, _, k_block, stage), temp);
        tiled_mma.accumulate_ = GMMA::ScaleOut::One;
      }
      warpgroup_commit_batch();
      // No fence on temp here: that counts as reading it while its wgmmas run, and ptxas then
      // serializes every wgmma (warning C7514).
      ++smem_pipe_read;
    };
    // accum += temp, for a temp whose wgmmas are done. The fences pin the adds between the wait
    // before them and the next issue: left free, the compiler moved the adds past the next
    // wgmmas into the same temp, so it kept a copy of temp and copied it back while those wgmmas
    // ran, and ptxas then serialized every wgmma (warning C7514).
    auto add_in = [&](auto& temp) {
      warpgroup_fence_operand(temp);
      CUTLASS_PRAGMA_UNROLL
      for (int i = 0; i < size(accum); ++i) accum(i) += temp(i);
      warpgroup_fence_operand(accum);
    };
    // The batch before the latest is done (at most one in flight): add it in and hand its stage
    // back to the producer.
    auto retire = [&](auto& temp) {
      warpgroup_wait<1>();
      add_in(temp);
      pipeline.consumer_release(smem_pipe_release);
      ++smem_pipe_release;
    };
    // The last batch: wait for it and add it in; its stage is mma_tail()'s to release.
    auto finish = [&](auto& temp) {
      warpgroup_wait<0>();
      add_in(temp);
    };

    clear(accum);
    warpgroup_fence_operand(accum);
    issue(temp0);
    int remaining = k_tile_count - 1;
    // Two k-tiles an iteration, so that which temporary is which stays known at compile time
    // (wgmma accumulators must be registers, not an indexed array).
    CUTLASS_PRAGMA_NO_UNROLL
    for (; remaining >= 2; remaining -= 2) {
      issue(temp1);
      retire(temp0);
      issue(temp0);
      retire(temp1);
    }
    if (remaining == 1) {
      issue(temp1);
      retire(temp0);
      finish(temp1);
    } else {
      finish(temp0);
    }
    warpgroup_fence_operand(accum);
  }
};

// A kernel compiled for `kMinBlocks` CTAs an SM: CUTLASS launches device_kernel<Kernel>, whose
// __launch_bounds__ reads Kernel::MinBlocksPerMultiprocessor (1 in every CUTLASS kernel), so
// ptxas keeps each thread's registers within 64K / (threads x kMinBlocks).
template <class Kernel, int kMinBlocks>
struct WithMinBlocks : Kernel {
  static constexpr int MinBlocksPerMultiprocessor = kMinBlocks;
};

// One kernel configuration.
//   TileShape       (M, N, K) elements per CTA tile of the GEMM as CUTLASS sees it (after a swap)
//   ClusterShape    CTAs per cluster; along M they share (multicast) B's tile, along N A's
//   KernelSchedule  cooperative (two warpgroups split one tile) or pingpong (one tile each,
//                   alternating mainloop and epilogue), with or without FP8 fast accumulation
//   Scheduler       persistent (one CTA per SM walks the tiles) or stream-K (CTAs also split K)
//   kSwapAB         compute y^T = b a^T (see the top of the file)
//   kStages         pipeline stages (0: as many as fit, the default)
//   kMinBlocks      CTAs an SM must hold at once (the kernel's __launch_bounds__; 1: no demand)
//   EpilogueTile    the piece of the tile the epilogue converts and stores at a time (CUTLASS's
//                   choice by default: 128x32 for the cooperative kernels, 64x32 for the others)
//   ElementOut      what the epilogue writes: bf16 y, or float for the split-K kernels (SplitK),
//                   whose epilogue writes each K batch's scaled partial sum to the workspace and
//                   sum_partials then adds them into y
template <class TileShape, class ClusterShape, class KernelSchedule, class EpilogueSchedule,
          class Scheduler, bool kSwapAB, int kStages = 0, int kMinBlocks = 1,
          class EpilogueTile = cutlass::epilogue::collective::EpilogueTileAuto, class ElementOut = ElementD>
struct Fp8GemmConfig {
  static constexpr bool kSplitK = std::is_same_v<ElementOut, float>;
  static_assert(kSplitK || std::is_same_v<ElementOut, ElementD>, "ElementOut: bf16 (y) or float (partials)");
  static constexpr int kAlignOut = 16 / int(sizeof(ElementOut));
  // y^T is column-major with leading dimension N: the same bytes as y row-major.
  using LayoutD = std::conditional_t<kSwapAB, cutlass::layout::ColumnMajor, cutlass::layout::RowMajor>;

  // The epilogue: D = round_bf16(row_scale[m'] * (col_scale[n'] * acc)), a tree of visitors (EVT).
  // Both broadcasts take a run-time stride flag (bool): true reads a vector, false reads element 0
  // for every row/column, so one kernel serves per-tensor and per-row/per-channel scales.
  //   row_scale  per row of D: scale_a [M, 1], or scale_b [N, 1] when swapped
  //   col_scale  per column of D: scale_b [N, 1], or scale_a [M, 1] when swapped
  using RowScale = cutlass::epilogue::fusion::Sm90ColBroadcast<
      0, TileShape, ElementScale, ElementScale, Stride<bool, _0, int64_t>>;
  using ColScale = cutlass::epilogue::fusion::Sm90RowBroadcast<
      0, TileShape, ElementScale, ElementScale, Stride<_0, bool, int64_t>>;
  using Acc = cutlass::epilogue::fusion::Sm90AccFetch;
  using MulCol = cutlass::epilogue::fusion::Sm90Compute<
      cutlass::multiplies, ElementScale, ElementScale, cutlass::FloatRoundStyle::round_to_nearest>;
  using MulRow = cutlass::epilogue::fusion::Sm90Compute<
      cutlass::multiplies, ElementOut, ElementScale, cutlass::FloatRoundStyle::round_to_nearest>;
  using Scaled = cutlass::epilogue::fusion::Sm90EVT<
      MulRow, RowScale, cutlass::epilogue::fusion::Sm90EVT<MulCol, ColScale, Acc>>;

  // No C operand (void): the epilogue reads nothing but the scales.
  using CollectiveEpilogue = typename cutlass::epilogue::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp, TileShape, ClusterShape,
      EpilogueTile, ElementAcc, ElementScale,
      void, LayoutD, kAlignOut, ElementOut, LayoutD, kAlignOut, EpilogueSchedule, Scaled>::CollectiveOp;

  // The mainloop gets the shared memory the epilogue leaves (kStages 0), or kStages stages.
  // A two-temporaries tag (above): built as the fast-accumulation mainloop of its kernel, with
  // our consumer loop.
  using BuiltSchedule = typename BuiltScheduleOf<KernelSchedule>::type;
  static constexpr bool kTwoTemps = !std::is_same_v<BuiltSchedule, KernelSchedule>;
  // kStages 0: as many as the shared memory left by the epilogue holds; else that many.
  using Stages = std::conditional_t<
      kStages == 0,
      cutlass::gemm::collective::StageCountAutoCarveout<
          static_cast<int>(sizeof(typename CollectiveEpilogue::SharedStorage))>,
      cutlass::gemm::collective::StageCount<kStages>>;
  using BuiltMainloop = typename cutlass::gemm::collective::CollectiveBuilder<
      cutlass::arch::Sm90, cutlass::arch::OpClassTensorOp,
      ElementAB, cutlass::layout::RowMajor, kAlignAB,
      ElementAB, cutlass::layout::ColumnMajor, kAlignAB,
      ElementAcc, TileShape, ClusterShape, Stages, BuiltSchedule>::CollectiveOp;
  using CollectiveMainloop = std::conditional_t<kTwoTemps, TwoTempsMainloop<BuiltMainloop>, BuiltMainloop>;

  using BaseKernel = cutlass::gemm::kernel::GemmUniversal<
      Shape<int, int, int, int>, CollectiveMainloop, CollectiveEpilogue, Scheduler>;
  using GemmKernel = std::conditional_t<kMinBlocks == 1, BaseKernel, WithMinBlocks<BaseKernel, kMinBlocks>>;
  using Gemm = cutlass::gemm::device::GemmUniversalAdapter<GemmKernel>;
  static constexpr bool kStreamK = std::is_same_v<Scheduler, StreamK>;

  // Split-K: the K batches (1 where K does not split into whole k-tiles) and the bytes of their
  // fp32 partials at the front of the workspace.
  static int splits(const Problem& p, const Knobs& knobs) {
    return kSplitK ? usable_splits(p.k, knobs.k_splits, int(size<2>(TileShape{}))) : 1;
  }
  static size_t partial_bytes(const Problem& p, const Knobs& knobs) {
    if (!kSplitK) return 0;
    const size_t bytes = size_t(splits(p, knobs)) * size_t(p.m) * size_t(p.n) * sizeof(float);
    return (bytes + 255) / 256 * 256;  // CUTLASS's own workspace after it, aligned
  }

  static typename Gemm::Arguments arguments(const Problem& p, int device, const Knobs& knobs,
                                            void* partials = nullptr) {
    // The GEMM CUTLASS runs: (M', N') = (n, m) when swapped, A' = b, B' = a.
    const int gm = kSwapAB ? p.n : p.m;
    const int gn = kSwapAB ? p.m : p.n;
    const auto* pa = static_cast<const ElementAB*>(kSwapAB ? p.b : p.a);
    const auto* pb = static_cast<const ElementAB*>(kSwapAB ? p.a : p.b);
    const float* row_scale = kSwapAB ? p.scale_b : p.scale_a;
    const float* col_scale = kSwapAB ? p.scale_a : p.scale_b;
    const bool row_vector = kSwapAB ? p.scale_b_per_row : p.scale_a_per_row;
    const bool col_vector = kSwapAB ? p.scale_a_per_row : p.scale_b_per_row;

    // Split-K runs the K batches as CUTLASS's batch mode (L): batch l is columns [l kb, (l+1) kb)
    // of both operands (batch stride kb), and writes its partial to the workspace's l-th
    // [M', N'] slice.
    const int batches = splits(p, knobs);
    const int kb = p.k / batches;
    typename GemmKernel::StrideA stride_a{};  // [M', K] K-major: (row stride, 1, batch)
    get<0>(stride_a) = kSwapAB ? p.ldb : p.lda;
    typename GemmKernel::StrideB stride_b{};  // [N', K] K-major
    get<0>(stride_b) = kSwapAB ? p.lda : p.ldb;
    if constexpr (kSplitK) {
      get<2>(stride_a) = kb;
      get<2>(stride_b) = kb;
    }
    const auto stride_d = cutlass::make_cute_packed_stride(typename GemmKernel::StrideD{},
                                                           make_shape(gm, gn, batches));
    auto* d = static_cast<ElementOut*>(kSplitK ? partials : p.y);

    typename Scaled::Arguments scaled{
        {row_scale, 0.0f, {row_vector, _0{}, int64_t(0)}},  // RowScale
        {
            {col_scale, 0.0f, {_0{}, col_vector, int64_t(0)}},  // ColScale
            {},                                                 // Acc
            {},                                                 // MulCol
        },
        {},  // MulRow
    };

    cutlass::KernelHardwareInfo hw_info;
    hw_info.device_id = device;
    hw_info.sm_count = sm_count(device);

    typename GemmKernel::TileSchedulerArguments scheduler{};
    scheduler.max_swizzle_size = knobs.swizzle;
    static_assert(int(decltype(scheduler.raster_order)::AlongM) == 1 &&
                  int(decltype(scheduler.raster_order)::AlongN) == 2, "raster() (Knobs) names AlongM 1, AlongN 2");
    scheduler.raster_order = static_cast<decltype(scheduler.raster_order)>(knobs.raster);
    if constexpr (kStreamK) {
      // Swap-AB (weight-bound): always split K, so every SM streams weight even when tiles are
      // fewer than SMs (4096 weight rows = 32 tiles). Otherwise CUTLASS's heuristic: stream-K
      // only when the last wave of tiles would leave SMs idle.
      using Mode = typename GemmKernel::TileScheduler::DecompositionMode;
      static_assert(int(Mode::StreamK) == 3, "stream_k() (Knobs) names DecompositionMode::StreamK as 3");
      scheduler.decomposition_mode = knobs.decomposition >= 0 ? static_cast<Mode>(knobs.decomposition)
                                     : kSwapAB                ? Mode::StreamK
                                                              : Mode::Heuristic;
      if (knobs.splits_fill_sms) {
        const int tiles = kl_cdiv(gm, int(size<0>(TileShape{}))) * kl_cdiv(gn, int(size<1>(TileShape{})));
        const int k_tiles = kl_cdiv(p.k, int(size<2>(TileShape{})));
        scheduler.splits = std::max(1, std::min(hw_info.sm_count / std::max(tiles, 1), k_tiles));
        scheduler.decomposition_mode = scheduler.splits > 1 ? Mode::SplitK : Mode::DataParallel;
      }
      if (knobs.unordered_reduction) {
        using Reduction = typename GemmKernel::TileScheduler::ReductionMode;
        scheduler.reduction_mode = Reduction::Nondeterministic;
      }
    }

    // Promotion: every k-tile by default (CUTLASS requires a multiple of the k-steps per k-tile).
    typename CollectiveMainloop::Arguments mainloop{pa, stride_a, pb, stride_b};
    if constexpr (HasPromotion<typename CollectiveMainloop::Arguments>::value) {
      constexpr int kStepsPerTile = int(size<2>(TileShape{})) / 32;
      mainloop.mma_promotion_interval = std::max(knobs.promotion, kStepsPerTile);
    }

    return typename Gemm::Arguments{
        cutlass::gemm::GemmUniversalMode::kGemm,
        {gm, gn, kb, batches},
        mainloop,
        {scaled, nullptr, stride_d, d, stride_d},
        hw_info,
        scheduler,
    };
  }

  static size_t workspace_size(const Problem& p, int device, const Knobs& knobs) {
    return partial_bytes(p, knobs) + Gemm::get_workspace_size(arguments(p, device, knobs));
  }

  static void run(const Problem& p, int config, void* workspace, size_t workspace_bytes,
                  cudaStream_t stream, int device, const Knobs& knobs) {
    Gemm gemm;
    // Split-K: the partials first, CUTLASS's workspace (stream-K's flags, none here) after them.
    const size_t partials = partial_bytes(p, knobs);
    auto* const cutlass_workspace = static_cast<char*>(workspace) + partials;
    const auto args = arguments(p, device, knobs, workspace);
    auto what = [&] {  // for error messages only: no string work on the launch path
      return std::string("config ") + kConfigNames[config] + " on " + std::to_string(p.m) + "x" +
             std::to_string(p.n) + "x" + std::to_string(p.k);
    };
    cutlass::Status status = gemm.can_implement(args);
    if (status != cutlass::Status::kSuccess) {
      fail(what() + ": CUTLASS cannot implement it (" + cutlassGetStatusString(status) +
           "; K must be a multiple of 16, N of 8, rows 16-byte aligned)");
    }
    if (partials + Gemm::get_workspace_size(args) > workspace_bytes) {
      fail(what() + ": workspace of " + std::to_string(workspace_bytes) + " bytes, needs " +
           std::to_string(partials + Gemm::get_workspace_size(args)));
    }
    // initialize() zeroes stream-K's flags in the workspace (on `stream`), builds the TMA
    // descriptors and raises the kernel's shared-memory limit; run() launches the cluster grid.
    status = gemm.initialize(args, cutlass_workspace, stream);
    if (status != cutlass::Status::kSuccess) {
      fail(what() + ": initialize failed (" + std::string(cutlassGetStatusString(status)) + ")");
    }
    status = gemm.run(stream, /*cuda_adapter=*/nullptr, knobs.dependent_launch);
    KL_CUDA_CHECK(cudaGetLastError());
    if (status != cutlass::Status::kSuccess) {
      fail(what() + ": launch failed (" + std::string(cutlassGetStatusString(status)) + ")");
    }
    if constexpr (kSplitK) {
      const int64_t count = int64_t(p.m) * p.n;  // a multiple of 8: n is
      const int64_t threads = count / 8;
      kl_launch(kl_cutlass::sum_partials<>, dim3(unsigned(kl_cdiv<int64_t>(threads, 256))), dim3(256), stream,
                knobs.dependent_launch, static_cast<const float*>(workspace),
                static_cast<__nv_bfloat16*>(p.y), count, splits(p, knobs));
    }
  }
};

namespace gemm = cutlass::gemm;
namespace epi = cutlass::epilogue;

// The two kernel schedules the configurations use, each with its matching epilogue.
template <class TileShape, class ClusterShape, class Scheduler, bool kSwapAB>
using Cooperative = Fp8GemmConfig<TileShape, ClusterShape, gemm::KernelTmaWarpSpecializedCooperative,
                                  epi::TmaWarpSpecializedCooperative, Scheduler, kSwapAB>;
// Cooperative with two promotion temporaries (TwoTempsMainloop), persistent and unswapped unless
// said.
template <class TileShape, class ClusterShape, class Scheduler = gemm::PersistentScheduler, bool kSwapAB = false>
using TwoTemps = Fp8GemmConfig<TileShape, ClusterShape, CooperativeTwoTemps, epi::TmaWarpSpecializedCooperative,
                               Scheduler, kSwapAB>;
// Ping-pong runs only the persistent scheduler; one CTA a cluster unless said; CUTLASS's mainloop
// unless Schedule is PingpongTwoTemps.
template <class TileShape, bool kSwapAB, class ClusterShape = Shape<_1, _1, _1>,
          class Schedule = gemm::KernelTmaWarpSpecializedPingpong>
using PingPong = Fp8GemmConfig<TileShape, ClusterShape, Schedule, epi::TmaWarpSpecialized,
                               gemm::PersistentScheduler, kSwapAB>;
// Decode without persistence: swap-AB, one consumer warpgroup, one CTA a tile, kStages stages and
// kMinBlocks CTAs an SM at once, promoted from two temporaries (64, 65 and sweep build 14's 63).
template <class TileShape, int kStages, int kMinBlocks>
using OneConsumer = Fp8GemmConfig<TileShape, Shape<_1, _1, _1>, OneConsumerTwoTemps, epi::TmaWarpSpecialized,
                                  gemm::PersistentScheduler, true, kStages, kMinBlocks>;

// Tiles are (M, N, K) of the GEMM CUTLASS runs. K = 128 e4m3 = 128 bytes: one 128-byte swizzled
// row per tile row, four k-steps of wgmma (k = 32 for fp8).

// A configuration number this build does not hold.
[[noreturn]] void not_in_build(int config) {
  throw std::invalid_argument("fp8_gemm_cutlass: config " + std::to_string(config) + " is not in build " +
                              std::to_string(kBuild) + " (0: as shipped), which holds " + kThisBuild +
                              "; benchmarks/fp8_gemm_cutlass_check.py builds the others");
}

#if !defined(KL_FP8_GEMM_SWEEP)
// 3. M > 64 with too few big tiles to fill the GPU (M = 128..2048 on the smaller weights):
//    128x128 tiles are 1.5x as many as 128x192, and stream-K evens out the last wave.
using Config3 = Cooperative<Shape<_128, _128, _128>, Shape<_1, _1, _1>, StreamK, false>;
// 4. Large M x N: compute-bound. A 128x192 tile does 2*128*192*128 = 6.3 MFLOP per 40 KB stage,
//    20% more FLOPs per byte of shared memory than 128x128; the widest tile whose accumulators
//    and promotion temporary fit (see Accuracy). Cluster 2x1: two CTAs on neighbouring M tiles
//    share the 24 KB B tile by multicast, 30% fewer bytes from L2 per stage.
using Config4 = Cooperative<Shape<_128, _192, _128>, Shape<_2, _1, _1>, gemm::PersistentScheduler, false>;
// 36. Large M, short K, few waves: 128x128 tiles with the two-temporaries mainloop (above).
using Config36 = TwoTemps<Shape<_128, _128, _128>, Shape<_2, _1, _1>>;
// 41, 43, 44. Decode (M <= 128): swap-AB ping-pong tiles of 64 weight rows (one wgmma tall; each
//    consumer warpgroup owns whole tiles, the two taking turns), no K split, promoted from two
//    temporaries (TwoTempsMainloop): 16, 64 or 128 tokens a tile.
using Config41 = PingPong<Shape<_64, _64, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
using Config43 = PingPong<Shape<_64, _16, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
using Config44 = PingPong<Shape<_64, _128, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
// 48. 44 in a 4x1 cluster: four CTAs of neighbouring weight rows share (multicast) the token tile,
//    for M = 128 where the weight's tiles are more than the SMs (fp8_gemm_cutlass_pick.h).
using Config48 = PingPong<Shape<_64, _128, _128>, true, Shape<_4, _1, _1>, PingpongTwoTemps>;
// 58 (59). Kernel 4 under stream-K (as 8, sweep build 2), promoted every 2048 of K as 53: the
//    tiles of the last two waves split along K over one wave of CTAs (57, sweep build 12).
using Config58 = Cooperative<Shape<_128, _192, _128>, Shape<_2, _1, _1>, StreamK, false>;
// 64, 65. Decode (M <= 16) where 43's 64-row tiles outnumber the SMs: every tile's CTA on the GPU
//    at once, 3 (64 rows, 6 stages) or 2 (128 rows, 5 stages) an SM (63, sweep build 14).
using Config64 = OneConsumer<Shape<_64, _16, _128>, 6, 3>;
using Config65 = OneConsumer<Shape<_128, _16, _128>, 5, 2>;
// 92. 64's design for 33-64 tokens, where 41's 64-row tiles outnumber the SMs: 41's 64x64 tile,
//    one CTA a tile, 2 an SM at once with 6 stages (103 registers a thread, no spills; with 3 an
//    SM, 85 registers, the two temporaries spill; 64x128 and 128x64 tiles spill at 2 an SM).
using Config92 = OneConsumer<Shape<_64, _64, _128>, 6, 2>;
// 42. 41 with 32-token tiles, for 17-32 tokens, where 41's 64-token box is half zero fill or
//    more: beside torch._scaled_mm at 17, 24 and 32 tokens on the six Llama weights 1.02x (the
//    geometric mean at each M), where 41 ran 0.76-0.85x (benchmarks/h200_session34, call 1).
using Config42 = PingPong<Shape<_64, _32, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
// 96. Decode in one wave of 256-row tiles where those fill most SMs (N = 28672: 112 tiles for
//    132 SMs), as cuBLASLt's kernel at 64 x 28672 x 8192 (256x64 tiles, cooperative;
//    benchmarks/h200_session33, call 4): swap-AB, cooperative, two temporaries; each consumer
//    warpgroup holds 128 weight rows (64 + 2 x 64 registers a thread at 64 tokens). Measured
//    in sweep build 17 (h200_session33, calls 5 and 6) and shipped in h200_session34, call 1:
//    at 28672 x 8192 it runs level with _scaled_mm from 17 to 64 tokens (0.93-1.03x), where
//    41's 64-row tiles (448 of them, 3.4 a CTA) ran 0.73-0.96x; far behind at the other weights,
//    whose 256-row tiles fill under half the SMs.
using Config96 = TwoTemps<Shape<_256, _64, _128>, Shape<_1, _1, _1>, gemm::PersistentScheduler, true>;
// 109, 110. 92 and 41 with 48-token tiles, for 33-48 tokens (41's and 92's 64-token box is 3/8
//    zero fill at 40 tokens), each as one 64x48 wgmma instruction a k-step: 109 where 41's tiles
//    outnumber the SMs (N = 14336), 110 elsewhere. Beside torch._scaled_mm at 40 and 48 tokens on
//    the six Llama weights (benchmarks/h200_session36, call 2): 109 1.06x and 1.08x at 14336 x
//    4096, where 104 (109 as three 64x16 instructions, sweep build 18, the pick before) ran 1.03x
//    and 1.05x; 110 0.98-1.10x where 41 ran 0.92-1.06x, 1.09x at 40 x 4096 x 4096 against 0.95x.
using Config109 = OneConsumer<Shape<_64, _48, _128>, 6, 2>;
using Config110 = PingPong<Shape<_64, _48, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
// 111, 112. 101 and 102 with 80-token tiles (one 64x80 instruction a k-step), for 65-80 tokens,
//    where the 96-token box is a fifth zero fill or more. Beside torch._scaled_mm at 72 and 80
//    tokens (h200_session36, call 2): 0.96-1.05x, where 101 and 102 ran 0.86-1.03x (72 x 8192 x
//    28672: 0.98x against 0.86x).
using Config111 = PingPong<Shape<_64, _80, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
using Config112 = PingPong<Shape<_64, _80, _128>, true, Shape<_4, _1, _1>, PingpongTwoTemps>;
// 116. cuBLASLt's kernel at 128 x 28672 x 8192 (h200_session19, call 1): 128 tokens by 112 weight
//    rows, unswapped (the weight rows are wgmma's N: one 64x112 instruction a warpgroup and
//    k-step), cooperative, two temporaries, a cluster of two along N sharing the token tile by
//    multicast. 256 tiles on 132 SMs fill 97% of two rounds, where 48's 448 fill 85% of four.
//    At 28672 x 8192 (h200_session36, call 2): 895 and 774 TFLOP/s at 128 and 112 tokens, where
//    48 ran 867 and 752 (torch._scaled_mm 896 and 777); at 14336 x 4096, one round of its tiles,
//    behind 48 (757 against 775 at 128 tokens).
using Config116 = TwoTemps<Shape<_128, _112, _128>, Shape<_1, _2, _1>>;
// 119, 120. 41 with two 56-token tiles (115, sweep build 19) and 41 itself, each in a 1x2 cluster,
//    for 97-112 and 113-128 tokens where 64-row weight tiles make one wave with their two token
//    tiles (N = 4096: 128 CTAs). The two CTAs of a weight tile take it from L2 once, by TMA
//    multicast, and in step, where without the cluster each reads it on its own. Beside
//    torch._scaled_mm at the two weights with N = 4096 (K = 4096 and 14336; benchmarks/
//    h200_session39): 119 1.015-1.024x at 104 and 112 tokens, where 115 ran 0.92-0.95x (call 1);
//    120 1.11-1.19x at 120 and 128 tokens, where 41 ran 1.01-1.07x (calls 1 and 3). At 128 x 4096
//    x 14336 that is 69% of the copy roof in weight bytes, where 41 reached 63%.
using Config119 = PingPong<Shape<_64, _56, _128>, true, Shape<_1, _2, _1>, PingpongTwoTemps>;
using Config120 = PingPong<Shape<_64, _64, _128>, true, Shape<_1, _2, _1>, PingpongTwoTemps>;
// 101, 102. 44 and 48 with 96-token tiles (wgmma takes N = 96), for 65-96 tokens, where 128-token
//    tiles are a quarter zero fill or more and two 64-token tiles a CTA's turn are worse: at 80
//    and 96 tokens the picks before (41, 44, 48) ran 0.54-0.92x torch._scaled_mm, 101 and 102
//    (the faster of the two at each weight: 101 where 44 or 41 was picked, 102 where 48 was)
//    0.90-1.05x (h200_session35, call 1).
using Config101 = PingPong<Shape<_64, _96, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
using Config102 = PingPong<Shape<_64, _96, _128>, true, Shape<_4, _1, _1>, PingpongTwoTemps>;
// 100. 97-128 tokens where 128 weight rows by 64 tokens make one wave over 3/4 of the SMs or
//    more (N = 8192: 64 x 2 = 128 tiles for 132 SMs), cuBLASLt's tile there (h200_session33, call
//    4): swap-AB, cooperative, two temporaries; each consumer warpgroup holds 64 weight rows.
//    A k-tile is 24 KB for either kernel (100: 16 of weight, 8 of tokens; 44, the pick before,
//    64 weight rows by 128 tokens: 8 and 16), but near M = 128 the FLOPs take about as long as
//    the weight's bytes (128 x 8192 x 8192: 17 us at 1000 TFLOP/s, 16 us at 4.27 TB/s), and a
//    ping-pong CTA with one tile has one warpgroup issuing wgmma while the other waits; 100's
//    two split the tile.
//    At M = 128 (h200_session35, call 1): 779 and 948 TFLOP/s at 8192 x 8192 and 8192 x 28672,
//    where 44 ran 765 and 879 (_scaled_mm 784 and 960); at 112 tokens 671 and 831 against 631
//    and 760 (675, 846). Behind where its tiles fill under 3/4 of the SMs (N = 4096: 64 tiles)
//    or make more than one wave (N = 14336: 224).
using Config100 = TwoTemps<Shape<_128, _64, _128>, Shape<_1, _1, _1>, gemm::PersistentScheduler, true>;
// 81. Kernel 4's tile and cluster where K <= 4096, with the ping-pong schedule and no promotion
//    (fast accumulation, inside bf16's rounding at such K: see Accuracy). Each consumer warpgroup
//    owns a whole 128x192 tile (192 fp32 accumulators a thread, room for no temporary), the two
//    taking turns: one stores its tile while the other runs its mainloop, so the epilogue that
//    stops both of 4's warpgroups once a tile (its fixed cost per tile, benchmarks/
//    h200_session30) runs under the other's wgmma. H200 at the power cap, each held 1.5 s
//    beside torch._scaled_mm (benchmarks/h200_session31, call 1, from a sweep build): 1.019x,
//    1.105x and 1.093x at 8192 x 14336, 8192 x 4096 and 4096 x 14336 (K = 4096), where 76
//    (kernel 4 promoting once a tile: the same sums) ran 0.945x, 1.012x and 1.001x; shipped,
//    1.031x, 1.094x and 1.096x (call 2).
using Config81 = PingPong<Shape<_128, _192, _128>, false, Shape<_2, _1, _1>,
                          gemm::KernelTmaWarpSpecializedPingpongFP8FastAccum>;
// 82. 81's schedule on 36's 128x128 tiles, where those fill the last round of tiles better: the
//    dispatch weighs both (pick_config). 4096^3 is 704 tiles of 128x192 on 132 SMs, 5.3 an
//    SM, so some SMs run six while the mean is 5.3 (11% idle at the end); 1024 of 128x128 are
//    7.8 an SM (3%). At the power cap beside torch._scaled_mm (h200_session31, call 2): 1.108x
//    there, 81 1.053x, 36 0.995x; at 512 x 14336 x 4096 (3.4 tiles an SM) 1.024x, 81 0.986x, 36
//    0.929x (call 5). Where 81's tiles divide evenly it stays ahead (1.031x against 0.976x at
//    8192 x 14336 x 4096: a 128x192 tile reads 17% fewer bytes per FLOP).
using Config82 = PingPong<Shape<_128, _128, _128>, false, Shape<_2, _1, _1>,
                          gemm::KernelTmaWarpSpecializedPingpongFP8FastAccum>;

// Shipped kernel N's configuration, by number: what Launcher<N> runs (see there).
template <int N>
struct ConfigOfT;
#define KL_SHIPPED(N) \
  template <>         \
  struct ConfigOfT<N> { using type = Config##N; };
KL_SHIPPED(3)
KL_SHIPPED(4)
KL_SHIPPED(36)
KL_SHIPPED(41)
KL_SHIPPED(42)
KL_SHIPPED(43)
KL_SHIPPED(44)
KL_SHIPPED(48)
KL_SHIPPED(58)
KL_SHIPPED(64)
KL_SHIPPED(65)
KL_SHIPPED(81)
KL_SHIPPED(82)
KL_SHIPPED(92)
KL_SHIPPED(96)
KL_SHIPPED(100)
KL_SHIPPED(101)
KL_SHIPPED(102)
KL_SHIPPED(109)
KL_SHIPPED(110)
KL_SHIPPED(111)
KL_SHIPPED(112)
KL_SHIPPED(116)
KL_SHIPPED(119)
KL_SHIPPED(120)
#undef KL_SHIPPED
template <int N>
using ConfigOf = typename ConfigOfT<N>::type;
#else
// The sweep builds' candidates, and with_sweep_config, which with_config hands their numbers to.
#include "fp8_gemm_cutlass_sweep.cuh"
#endif

// A configuration's kernel and knobs, handed to f.
template <class F>
auto with_config(int config, F&& f) {
#if defined(KL_FP8_GEMM_SWEEP)
  return with_sweep_config(config, std::forward<F>(f));
#else
  switch (config) {
    case 3: return f(Launcher<3>{}, Knobs{});
    case 4: return f(Launcher<4>{}, Knobs{});
    case 10: return f(Launcher<4>{}, promote(8));
    case 11: return f(Launcher<4>{}, swizzle(4));
    case 15: return f(Launcher<3>{}, promote(8));
    case 17: return f(Launcher<4>{}, promote(16));
    case 18: return f(Launcher<4>{}, promote(32));
    case 19: return f(Launcher<3>{}, promote(16));
    case 20: return f(Launcher<3>{}, promote(32));
    case 29: return f(Launcher<3>{}, dependent_launch(promote(8)));
    case 30: return f(Launcher<4>{}, dependent_launch(promote(8)));
    case 36: return f(Launcher<36>{}, dependent_launch());
    case 41: return f(Launcher<41>{}, dependent_launch());
    case 43: return f(Launcher<43>{}, dependent_launch());
    case 44: return f(Launcher<44>{}, dependent_launch());
    case 48: return f(Launcher<48>{}, dependent_launch());
    case 51: return f(Launcher<4>{}, dependent_launch(promote(16)));
    case 52: return f(Launcher<4>{}, dependent_launch(promote(32)));
    case 53: return f(Launcher<4>{}, dependent_launch(promote(64)));
    case 58: return f(Launcher<58>{}, dependent_launch(stream_k(promote(64))));
    case 59: return f(Launcher<58>{}, dependent_launch(promote(64)));
    case 64: return f(Launcher<64>{}, dependent_launch());
    case 65: return f(Launcher<65>{}, dependent_launch());
    case 92: return f(Launcher<92>{}, dependent_launch());
    case 42: return f(Launcher<42>{}, dependent_launch());
    case 96: return f(Launcher<96>{}, dependent_launch());
    case 100: return f(Launcher<100>{}, dependent_launch());
    case 101: return f(Launcher<101>{}, dependent_launch());
    case 102: return f(Launcher<102>{}, dependent_launch());
    case 109: return f(Launcher<109>{}, dependent_launch());
    case 110: return f(Launcher<110>{}, dependent_launch());
    case 111: return f(Launcher<111>{}, dependent_launch());
    case 112: return f(Launcher<112>{}, dependent_launch());
    case 116: return f(Launcher<116>{}, dependent_launch());
    case 119: return f(Launcher<119>{}, dependent_launch());
    case 120: return f(Launcher<120>{}, dependent_launch());
    case 81: return f(Launcher<81>{}, dependent_launch());
    case 82: return f(Launcher<82>{}, dependent_launch());
    // The large-M picks with the tiles walked in another order (L2 reuse of a and b).
    case 66: return f(Launcher<4>{}, dependent_launch(swizzle(2, promote(64))));
    case 67: return f(Launcher<4>{}, dependent_launch(swizzle(4, promote(64))));
    case 68: return f(Launcher<4>{}, dependent_launch(swizzle(8, promote(64))));
    case 69: return f(Launcher<4>{}, dependent_launch(raster(1, promote(64))));
    case 70: return f(Launcher<4>{}, dependent_launch(raster(2, promote(64))));
    case 71: return f(Launcher<36>{}, dependent_launch(swizzle(2)));
    case 72: return f(Launcher<36>{}, dependent_launch(swizzle(4)));
    case 73: return f(Launcher<36>{}, dependent_launch(swizzle(8)));
    case 74: return f(Launcher<36>{}, dependent_launch(raster(1)));
    case 75: return f(Launcher<36>{}, dependent_launch(raster(2)));
    // 53 promoting every 4096 of K: one drain a tile at K = 4096 where 53 has two.
    case 76: return f(Launcher<4>{}, dependent_launch(promote(128)));
  }
  not_in_build(config);
#endif
}

#endif  // CUTLASS_ARCH_MMA_SM90_SUPPORTED

void check_sizes(int64_t m, int64_t n, int64_t k) {
  constexpr int64_t kMaxInt = 2147483647;
  if (m < 0 || n <= 0 || k <= 0 || m > kMaxInt || n > kMaxInt || k > kMaxInt) {
    throw std::invalid_argument("fp8_gemm_cutlass: sizes must satisfy 0 <= m, 0 < n, k < 2^31; got m=" +
                                std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k));
  }
  if (k % 16 != 0 || n % 8 != 0) {
    throw std::invalid_argument("fp8_gemm_cutlass: k must be a multiple of 16 and n of 8 (16-byte rows "
                                "for TMA), got n=" + std::to_string(n) + " k=" + std::to_string(k));
  }
}

}  // namespace

#if defined(CUTLASS_ARCH_MMA_SM90_SUPPORTED) && !defined(KL_FP8_GEMM_SWEEP)
// Launcher<N>'s members: ConfigOf<N>'s. Part 0 of the parallel build does not see them, so its
// dispatch (with_config) leaves each for the linker, and compiles no kernel.
#if !defined(KL_BUILD_PART) || KL_BUILD_PART != 0
template <int N>
size_t kl_cutlass::Launcher<N>::workspace_size(const Problem& p, int device, const Knobs& knobs) {
  return ConfigOf<N>::workspace_size(p, device, knobs);
}
template <int N>
void kl_cutlass::Launcher<N>::run(const Problem& p, int config, void* workspace, size_t workspace_bytes,
                                  cudaStream_t stream, int device, const Knobs& knobs) {
  ConfigOf<N>::run(p, config, workspace, workspace_bytes, stream, device, knobs);
}
#endif
// The kernels each part of the parallel build compiles, about 60 s of nvcc each beside the 30 s
// every part spends on the headers (81, 82, 96 and 116 took 81 s together, 41-44 62 s and 3, 4,
// 36 and 58 43 s: nvcc 13.0, two parts at a time on two cores). All seven at once on the H200
// machine (ninja's log, h200_session39 call 1): part 0 60 s, parts 1-6 134-164 s (2, the
// longest, then held 81, 96 and 116). tests/test_cuda_build.py checks that each shipped kernel is
// in exactly one. Alone, the file needs no list: with_config's uses instantiate them.
#if defined(KL_BUILD_PART)
#if KL_BUILD_PART == 1
template struct kl_cutlass::Launcher<3>;
template struct kl_cutlass::Launcher<4>;
template struct kl_cutlass::Launcher<36>;
template struct kl_cutlass::Launcher<58>;
template struct kl_cutlass::Launcher<82>;
#elif KL_BUILD_PART == 2
template struct kl_cutlass::Launcher<81>;
template struct kl_cutlass::Launcher<96>;
template struct kl_cutlass::Launcher<116>;
#elif KL_BUILD_PART == 3
template struct kl_cutlass::Launcher<41>;
template struct kl_cutlass::Launcher<42>;
template struct kl_cutlass::Launcher<43>;
template struct kl_cutlass::Launcher<44>;
template struct kl_cutlass::Launcher<120>;
#elif KL_BUILD_PART == 4
template struct kl_cutlass::Launcher<48>;
template struct kl_cutlass::Launcher<100>;
template struct kl_cutlass::Launcher<101>;
template struct kl_cutlass::Launcher<102>;
#elif KL_BUILD_PART == 5
template struct kl_cutlass::Launcher<64>;
template struct kl_cutlass::Launcher<65>;
template struct kl_cutlass::Launcher<92>;
template struct kl_cutlass::Launcher<109>;
#elif KL_BUILD_PART == 6
template struct kl_cutlass::Launcher<110>;
template struct kl_cutlass::Launcher<111>;
template struct kl_cutlass::Launcher<112>;
template struct kl_cutlass::Launcher<119>;
#endif
#endif
#endif

// The C launchers: in part 0 of the parallel build, or in the file alone.
#if !defined(KL_BUILD_PART) || KL_BUILD_PART == 0
extern "C" int fp8_gemm_cutlass_num_configs() { return kNumConfigs; }

extern "C" const char* fp8_gemm_cutlass_config_name(int config) {
  return config >= 0 && config < kNumConfigs ? kConfigNames[config] : "unknown";
}

// The dispatch is in fp8_gemm_cutlass_pick.h: a function of the shape and the SM count only.
extern "C" int fp8_gemm_cutlass_pick(int64_t m, int64_t n, int64_t k) {
  return kl_fp8_gemm::pick_config(m, n, k, sm_count(current_device()));
}

extern "C" size_t fp8_gemm_cutlass_workspace_size(int64_t m, int64_t n, int64_t k, int config) {
  check_sizes(m, n, k);
  if (m == 0) return 0;
#if defined(CUTLASS_ARCH_MMA_SM90_SUPPORTED)
  const int device = current_device();
  require_sm90(device);
  Problem p{nullptr, nullptr, nullptr, nullptr, nullptr, static_cast<int>(m), static_cast<int>(n),
            static_cast<int>(k), k, k, false, false};
  return with_config(config, [&](auto c, const Knobs& knobs) { return decltype(c)::workspace_size(p, device, knobs); });
#else
  fail("built without sm_90 support (CUDA 12 or newer is needed)");
#endif
}

extern "C" void fp8_gemm_cutlass_launch(const void* a, const void* b, const float* scale_a,
                                        const float* scale_b, void* y, int64_t m, int64_t n,
                                        int64_t k, int64_t lda, int64_t ldb, bool scale_a_per_row,
                                        bool scale_b_per_row, int config, void* workspace,
                                        size_t workspace_bytes, cudaStream_t stream) {
  check_sizes(m, n, k);
  if (lda < k || ldb < k || lda % 16 != 0 || ldb % 16 != 0) {
    throw std::invalid_argument("fp8_gemm_cutlass: row strides must be multiples of 16 and >= k, got lda=" +
                                std::to_string(lda) + " ldb=" + std::to_string(ldb));
  }
  if (m == 0) return;
#if defined(CUTLASS_ARCH_MMA_SM90_SUPPORTED)
  const int device = current_device();
  require_sm90(device);
  const Problem p{a, b, scale_a, scale_b, y, static_cast<int>(m), static_cast<int>(n),
                  static_cast<int>(k), lda, ldb, scale_a_per_row, scale_b_per_row};
  with_config(config, [&](auto c, const Knobs& knobs) {
    decltype(c)::run(p, config, workspace, workspace_bytes, stream, device, knobs);
    return 0;
  });
#else
  fail("built without sm_90 support (CUDA 12 or newer is needed)");
#endif
}
#endif  // !defined(KL_BUILD_PART) || KL_BUILD_PART == 0
