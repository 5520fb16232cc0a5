// The few helpers every kernel file in csrc/ and chapters/ shares. Plain CUDA C++: no torch
// headers, so CI can compile kernel files with nvcc alone (see grading/cuda.py).
#pragma once

#include <atomic>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

// Launchers run inside a torch op: an exception reaches Python as a RuntimeError naming the call,
// where abort() would take the whole interpreter (and the grader) down with it.
#define KL_CUDA_CHECK(expr)                                                                  \
  do {                                                                                       \
    const cudaError_t kl_err_ = (expr);                                                      \
    if (kl_err_ != cudaSuccess) {                                                            \
      throw std::runtime_error(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " \
                               + #expr + " failed: " + cudaGetErrorString(kl_err_));         \
    }                                                                                        \
  } while (0)

// The dtype codes a binding passes to a launcher (the launcher cannot see torch's ScalarType).
enum KlDtype : int { KL_F32 = 0, KL_F16 = 1, KL_BF16 = 2 };

template <typename T>
__host__ __device__ constexpr T kl_cdiv(T a, T b) {
  return (a + b - 1) / b;
}

// --- 16-byte vector access ---------------------------------------------------------------------
// One 16-byte access is the widest a thread can issue (LDG.128/STG.128): a warp then moves 512
// contiguous bytes per instruction, 4x fewer load instructions than 4-byte scalars.

// Elements of T in one 16-byte access: 4 fp32, 8 fp16/bf16.
template <typename T>
constexpr int kl_vec16 = 16 / static_cast<int>(sizeof(T));

// N elements of T moved as one access. The alignment is what lets the compiler emit a single
// vector instruction; the pointer it is read through must really be aligned that much.
template <typename T, int N>
struct alignas(sizeof(T) * N) KlPack {
  T v[N];
};

inline bool kl_is_aligned16(const void* p) {
  return (reinterpret_cast<std::uintptr_t>(p) & 15u) == 0;
}

// --- fp32 conversions --------------------------------------------------------------------------
// torch builds extensions with __CUDA_NO_HALF_CONVERSIONS__ and __CUDA_NO_BFLOAT16_CONVERSIONS__,
// which remove the implicit casts; these overloads name the intrinsics instead, round to nearest.

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }
__device__ __forceinline__ float to_float(__nv_bfloat16 x) { return __bfloat162float(x); }

template <typename T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) { return x; }
template <>
__device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float x) {
  return __float2bfloat16_rn(x);
}

// --- launch plans ------------------------------------------------------------------------------

// A kernel's template flag chosen at run time: f(std::true_type{}) when `on` and the variant
// exists (kExists), else f(std::false_type{}). The launch is written once, as
//   kl_with_flag<kFits>(cond, [&](auto flag) { kernel<..., decltype(flag)::value><<<...>>>(...); });
// and a variant that does not exist is never instantiated.
template <bool kExists, class F>
void kl_with_flag(bool on, F&& f) {
  if constexpr (kExists) {
    if (on) return f(std::true_type{});
  }
  f(std::false_type{});
}

// The smallest power of two >= v: launchers round a pack count up to one a kernel is
// instantiated for.
constexpr int kl_next_pow2(int v) {
  int p = 1;
  while (p < v) p *= 2;
  return p;
}

// --- programmatic dependent launch (sm_90+) ----------------------------------------------------
// A kernel launched with kl_launch(..., pdl = true) may be scheduled while the kernel before it
// on the stream is still running: its blocks take the SM slots that kernel's last blocks free,
// and the launch gap between the two disappears. In exchange every block must call
// kl_wait_previous_grid() before its first global access: it returns once the previous grid has
// finished and its writes are visible. kl_release_next_grid() lets the next PDL launch be
// scheduled once every block of this grid has called it. Both are no-ops before sm_90 and when
// the kernel was launched without the attribute.
__device__ __forceinline__ void kl_wait_previous_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void kl_release_next_grid() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

// The current device has programmatic dependent launch (compute capability 9.0 or newer). Asked
// at every kl_launch, so each device's answer is looked up once and kept.
inline bool kl_device_has_pdl() {
  constexpr int kKnownDevices = 64;
  static std::atomic<int> major_of[kKnownDevices] = {};  // 0: not looked up yet
  int device = 0, major = 0;
  KL_CUDA_CHECK(cudaGetDevice(&device));
  if (device < kKnownDevices) major = major_of[device].load(std::memory_order_relaxed);
  if (major == 0) {
    KL_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
    if (device < kKnownDevices) major_of[device].store(major, std::memory_order_relaxed);
  }
  return major >= 9;
}

// kernel<<<grid, block, 0, stream>>>(args...), with the programmatic-stream-serialization
// attribute when `pdl` and the device has it (the kernel must then wait as above).
template <typename... Params, typename... Args>
void kl_launch(void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t stream, bool pdl,
               Args... args) {
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = 0;
  config.stream = stream;
  cudaLaunchAttribute attribute[1];
  attribute[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attribute[0].val.programmaticStreamSerializationAllowed = 1;
  config.attrs = attribute;
  config.numAttrs = pdl && kl_device_has_pdl() ? 1 : 0;
  KL_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, static_cast<Params>(args)...));
}
