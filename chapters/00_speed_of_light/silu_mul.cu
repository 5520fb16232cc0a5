// Exercise: the CUDA C++ rung of silu_mul, out = silu(gate) * up = gate * sigmoid(gate) * up.
//
// Write the body of _silu_mul_kernel below; the launcher underneath already picks the path and
// the grid. Grade it with:   python -m grading check silu_mul --rung cuda
// (without a GPU the grader compiles this file with nvcc and shows its register report).
//
// Napkin math, H200, 8192 tokens x 14336 bf16: gate and up read, out written = 3 x 117.4M x 2 B
// = 705 MB; at 4.27 TB/s that is 165 us. There are ~5 FLOPs per element: the kernel's speed is
// decided only by how it moves bytes.
#include <algorithm>

#include "kl_common.cuh"
#include "silu_mul.h"

namespace {

// Packs (VEC-element accesses) per thread per row: 2 packs x 2 loads x 16 B = 64 B in flight
// per thread, enough to cover HBM latency with 1024 threads per SM.
constexpr int kUnroll = 2;
constexpr int kMaxThreads = 256;
// Caps registers at 64 per thread so that 4 blocks of 256 threads fit on an SM.
constexpr int kMinBlocksPerSm = 4;

// VEC = elements per access: 16 / sizeof(T) when the launcher found every row 16-byte aligned
// (4 fp32 or 8 fp16/bf16), 1 otherwise. One body serves both.
template <typename T, int VEC>
__global__ void __launch_bounds__(kMaxThreads, kMinBlocksPerSm) _silu_mul_kernel(
    const T* __restrict__ gate,  // row r at gate + r * gate_row_stride, n contiguous elements
    const T* __restrict__ up,    // row r at up + r * up_row_stride
    T* __restrict__ out,         // [rows, n] contiguous: row r at out + r * n
    int64_t rows,                // rows to process: gridDim.y blocks stride over them
    int64_t n,                   // elements per row
    int64_t gate_row_stride,     // elements; a multiple of VEC
    int64_t up_row_stride) {     // elements; a multiple of VEC
  // TODO: write this kernel, then delete the next line (it tells the grader the stub is unwritten).
#define KL_STUB_NOT_IMPLEMENTED 1
  //
  // For each row r = blockIdx.y, blockIdx.y + gridDim.y, ... while r < rows:
  //  1. Find the row's start in gate, up and out. Offsets can pass 2^31 elements: use int64_t.
  //  2. See the row as n / VEC packs of VEC elements: KlPack<T, VEC> (kl_common.cuh) is 16 bytes
  //     on the vector path, so reading one through a `const KlPack<T, VEC>*` is a single 16-byte
  //     load instruction. The launcher guarantees the alignment this needs.
  //  3. This thread owns packs p = blockIdx.x * kUnroll * blockDim.x + threadIdx.x + k * blockDim.x
  //     for k = 0 .. kUnroll - 1, skipping p >= n / VEC. Neighbouring threads then read
  //     neighbouring packs (coalesced). Load every pack of gate and up first, compute after: all
  //     the loads are then in flight together.
  //  4. Per element, in fp32: out = g / (1 + expf(-g)) * u. to_float() and from_float<T>() in
  //     kl_common.cuh convert from and to T.
  //  5. The tail: when VEC > 1 the last n % VEC elements of a row belong to no pack. Let the first
  //     threads of column block 0 (blockIdx.x == 0) do them, one element each, inside
  //     `if constexpr (VEC > 1)`.
}

template <typename T, int VEC>
void launch_silu_mul(const T* gate, const T* up, T* out, int64_t rows, int64_t n,
                     int64_t gate_row_stride, int64_t up_row_stride, cudaStream_t stream) {
  const int64_t n_packs = n / VEC;
  // Column blocks per row: as few as kMaxThreads threads allow (at least one, for the tail)...
  const int64_t col_blocks = std::max<int64_t>(1, kl_cdiv<int64_t>(n_packs, kMaxThreads * kUnroll));
  // ...then the fewest warps (32 threads) that cover the row in that many blocks.
  const int64_t threads =
      32 * std::max<int64_t>(1, kl_cdiv<int64_t>(kl_cdiv<int64_t>(n_packs, col_blocks * kUnroll), 32));
  // x: column blocks; y: rows, at most 65535 (the hardware limit), the kernel loops over the rest.
  const dim3 grid(static_cast<unsigned>(col_blocks),
                  static_cast<unsigned>(std::min<int64_t>(rows, 65535)));
  _silu_mul_kernel<T, VEC><<<grid, static_cast<unsigned>(threads), 0, stream>>>(
      gate, up, out, rows, n, gate_row_stride, up_row_stride);
  KL_CUDA_CHECK(cudaGetLastError());
}

template <typename T>
void dispatch_silu_mul(const void* gate_ptr, const void* up_ptr, void* out_ptr, int64_t rows,
                       int64_t n, int64_t gate_row_stride, int64_t up_row_stride,
                       cudaStream_t stream) {
  const T* gate = static_cast<const T*>(gate_ptr);
  const T* up = static_cast<const T*>(up_ptr);
  T* out = static_cast<T*>(out_ptr);
  // Rows back to back in both inputs (or a single row): run everything as one long row.
  if (rows == 1 || (gate_row_stride == n && up_row_stride == n)) {
    n *= rows;
    rows = 1;
    gate_row_stride = up_row_stride = n;
  }
  // 16-byte packs need every row start 16-byte aligned; otherwise one element per access.
  constexpr int kVec = kl_vec16<T>;
  const bool vector_ok =
      kl_is_aligned16(gate) && kl_is_aligned16(up) && kl_is_aligned16(out) &&
      (rows == 1 || (n % kVec == 0 && gate_row_stride % kVec == 0 && up_row_stride % kVec == 0));
  if (vector_ok) {
    launch_silu_mul<T, kVec>(gate, up, out, rows, n, gate_row_stride, up_row_stride, stream);
  } else {
    launch_silu_mul<T, 1>(gate, up, out, rows, n, gate_row_stride, up_row_stride, stream);
  }
}

}  // namespace

extern "C" void silu_mul_launch(const void* gate, const void* up, void* out, int64_t rows,
                                int64_t n, int64_t gate_row_stride, int64_t up_row_stride,
                                int dtype, cudaStream_t stream) {
  if (rows <= 0 || n <= 0) return;  // nothing to do, and a zero-sized grid is a launch error
  switch (dtype) {
    case KL_F32:
      return dispatch_silu_mul<float>(gate, up, out, rows, n, gate_row_stride, up_row_stride, stream);
    case KL_F16:
      return dispatch_silu_mul<__half>(gate, up, out, rows, n, gate_row_stride, up_row_stride, stream);
    case KL_BF16:
      return dispatch_silu_mul<__nv_bfloat16>(gate, up, out, rows, n, gate_row_stride,
                                              up_row_stride, stream);
  }
  throw std::invalid_argument("silu_mul_launch: unknown dtype code " + std::to_string(dtype));
}
