// Exercise: the CUDA C++ rung of silu_mul, out = silu(gate) * up = gate * sigmoid(gate) * up.
//
// Write the body of _silu_mul_kernel below. The launcher is the reference's
// (csrc/silu_mul_launch.cuh, included at the end): it picks the path and the grid. Grade it with:
//     python -m grading check silu_mul --rung cuda
// (without a GPU the grader compiles this file with nvcc and shows its register report).
//
// Napkin math, H200, 8192 tokens x 14336 bf16: gate and up read, out written = 3 x 117.4M x 2 B
// = 705 MB; at 4.27 TB/s that is 165 us. There are ~5 FLOPs per element: the kernel's speed is
// decided only by how it moves bytes.
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

}  // namespace

// The launcher silu_mul.h declares, the same as the reference's (less its flat kernel for
// contiguous tensors). It launches _silu_mul_kernel<T, VEC> above on a grid of (column blocks,
// min(rows, 65535)), each block a multiple of 32 threads, at most kMaxThreads, covering
// kUnroll * blockDim.x packs of a row. VEC: 16 / sizeof(T) when every row start is 16-byte
// aligned, else 1. Contiguous inputs arrive as a single row of rows * n elements.
#include "silu_mul_launch.cuh"
