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
// from 29, 36, 41-44, 48, 53, 59, 64, 65, 81, 82, 92, 96, 100-102, 109-112, 115 and 116 by the
// shape, each launched with programmatic dependent launch; 29 and 53 are kernels 3 and 4 promoted
// every 256 and 2048 of K, see below, and 59 is 53's tile under stream-K; 36, 41-48, 64, 65, 92,
// 96, 100-102, 109-112, 115 and 116 promote from two temporaries, see TwoTempsMainloop; 81 and 82
// do not promote, see Accuracy):
//   43 swap-AB 64x16x128    ping-pong    persistent               M <= 16, N / 64 <= SMs
//   64 swap-AB 64x16x128    one consumer, not persistent, 3 an SM M <= 16, SMs < N / 64 <= 3 SMs
//   65 swap-AB 128x16x128   one consumer, not persistent, 2 an SM M <= 16, more weight rows
//   96 swap-AB 256x64x128   cooperative  persistent               16 < M <= 64, where its tiles
//                                                                 make one wave over 3/4 of the
//                                                                 SMs or more
//   42 swap-AB 64x32x128    ping-pong    persistent               16 < M <= 32, other weights
//   41 swap-AB 64x64x128    ping-pong    persistent               48 < M <= 64, N / 64 <= SMs;
//                                                                 112 < M <= 128 where its tiles
//                                                                 make one wave
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
//   115 swap-AB 64x56x128   ping-pong    persistent               96 < M <= 112, one wave of its
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
// Each kernel costs ~30 s of nvcc on one core, so the shipped build holds these twenty-four. The
// sweep in benchmarks/fp8_gemm_cutlass_check.py times more: run-time variants of the kernels
// (10-20, 29, 30, 51-53 and 66-76: no extra kernel, in the shipped build; 12-14 in kernel 1's
// build, 16 in 8's, 24-28 in 9's; 58 and 59 are one kernel, shipped), and kernels built only
// with KL_FP8_GEMM_SWEEP = 1 to 19 (one library each, compiled side by side):
//   1 swap-AB  128x16x128   cooperative  stream-K  (M <= 16 until 21 replaced it)             [4]
//   2 swap-AB  128x64x128   cooperative  stream-K  (M <= 128, few tiles, long K, until 41)     [9]
//   5          128x128x128  cooperative  cluster 2x1, persistent  (4 with the common tile)      [1]
//   6          128x256x128  cooperative  cluster 2x1, persistent, FAST ACCUMULATION: the speed
//              the accuracy below costs; its error at long K is outside the spec's tolerance  [1]
//   7 swap-AB  128x16x256   cooperative  stream-K, promoted every 256 of K                     [2]
//   8          128x192x128  cooperative  cluster 2x1, stream-K (heuristic)                     [2]
//   9          128x128x256  cooperative  cluster 2x1, persistent, promoted every 256 of K      [3]
//   10 = 4, promoted every 256 of K (every second k-tile)
//   11 = 4, tile swizzle 4 (raster order by the scheduler's heuristic)
//   12 = 1, stream-K's own heuristic (data-parallel where the tiles fill whole waves)        [4]
//   13 = 1, split-K into SMs / tiles equal parts instead of stream-K                        [4]
//   14 = 1, stream-K with the non-deterministic (unordered) reduction of partial tiles       [4]
//   15 = 3, promoted every 256 of K
//   16 = 8, promoted every 256 of K (built with 8)                                           [2]
//   17, 18 = 4, promoted every 512, 1024 of K
//   19, 20 = 3, promoted every 512, 1024 of K
//   21 swap-AB 64x16x128    ping-pong    persistent  (M <= 16 until 43)                      [9]
//   22 swap-AB 64x64x128    ping-pong    persistent  (M <= 64 until 41)                      [9]
//   23         128x64x128   cooperative  cluster 1x2, persistent  (M = 128 until 44)         [9]
//   24 = 2, split-K into SMs / tiles equal parts instead of stream-K                        [9]
//   25, 26, 27, 28 = 21, 22, 23, 2 with programmatic dependent launch (see below)            [9]
//   29, 30 = 15, 10 with programmatic dependent launch (29 a pick; 30 was one until 53)
//   31 swap-AB 64x64x128    ping-pong    cluster 2x1, persistent, dependent launch          [5]
//   32 swap-AB 64x16x128    ping-pong    cluster 2x1, persistent, dependent launch          [5]
//   33 swap-AB 64x32x128    ping-pong    persistent, dependent launch (32 < M <= 64, few
//                                        weight rows, until 41)                              [9]
//   34         64x192x128   ping-pong    cluster 2x1, persistent, promoted every 256 of K,
//                                        dependent launch                                    [5]
//   35         128x96x128   ping-pong    cluster 2x1, persistent, promoted every 256 of K,
//                                        dependent launch                                    [5]
//   36         128x128x128  cooperative  cluster 2x1, persistent, two temporaries (below),
//                                        dependent launch (a pick: see above)
//   37         128x128x128  cooperative  cluster 1x2, as 36                                  [6]
//   38         128x128x128  cooperative  cluster 2x1, persistent, CUTLASS's promotion,
//                                        dependent launch (36's control)                      [6]
//   39 = 38, promoted every 256 of K                                                          [6]
//   40         128x64x128   cooperative  cluster 1x2, as 23 with two temporaries, dep. launch [7]
//   41 swap-AB 64x64x128    ping-pong    as 22 with two temporaries, dependent launch (a pick)
//   42 swap-AB 64x32x128    ping-pong    as 33 with two temporaries, dependent launch (a pick)
//   43 swap-AB 64x16x128    ping-pong    as 21 with two temporaries, dependent launch (a pick)
//   44 swap-AB 64x128x128   ping-pong    two temporaries, dependent launch (a pick)
//   45         128x128x128  cooperative  stream-K, as 3 with two temporaries, dep. launch      [8]
//   46, 47     44 and 41 in a 2x1 cluster (the token tile multicast), dependent launch      [10]
//   48         44 in a 4x1 cluster, dependent launch (a pick)
//   49         128x144x128  cooperative  cluster 2x1, persistent, two temporaries, dep. launch [11]
//   50         128x144x128  cooperative  cluster 2x1, persistent, promoted every 256 of K,
//                                        dependent launch                                    [11]
//   51, 52, 53 = 4, promoted every 512, 1024, 2048 of K, with dependent launch (30 with rarer
//                promotion; 53 a pick)
//   57         128x128x128  cooperative  cluster 2x1, stream-K forced, two temporaries,
//                                        dependent launch (36 with its last waves split)      [12]
//   58         128x192x128  cooperative  cluster 2x1, stream-K forced, promoted every 2048 of
//                                        K, dependent launch (53 with its last waves split)
//   59 = 58, stream-K where CUTLASS's heuristic chooses it (a pick)
//   60, 61, 62 swap-AB 128x16x128, 128x64x128, 128x128x128  cooperative  stream-K, two
//                temporaries, dependent launch (decode: the weight split evenly over the SMs) [13]
//   63 swap-AB 64x16x128  one consumer warpgroup, not persistent, 4 stages, 4 CTAs an SM at
//                once, two temporaries, dependent launch (64 and 65, shipped, with 6 and 5
//                stages, 3 and 2 CTAs an SM; 65 128x16x128)                                 [14]
//   66-68 = 53 with the tile scheduler's swizzle 2, 4, 8; 69, 70 = 53 with its tiles walked down M,
//                along N (the scheduler's heuristic goes down M where N has more tiles)
//   71-75 = 36 with the same five orders (all ten run-time variants, in the shipped build)
//   76 = 4, promoted every 4096 of K, dependent launch (53 with half its drains at K = 4096)
//                (benchmarks/h200_session30: 66-68, 70 and 76 held 1.5 s beside 53, none more
//                than 1.5% ahead (67, at one shape); 71-75 timed only for 0.2 s, too short to rank)
//   77-80 = 53 built again, with 4 stages, with 128x64 epilogue tiles, with one 128x192 one  [15]
//   81, 82     128x192x128, 128x128x128  ping-pong  cluster 2x1, persistent, FAST ACCUMULATION,
//                dependent launch (K <= 4096 only: see Accuracy; both shipped and picked, built
//                first as a sweep build 16 that is gone; 16 now holds 86-91)
//   86-91 swap-AB 64x64x128, 64x128x128, 64x16x128 (41's, 44's, 43's tiles)  ping-pong
//                persistent, two temporaries, K split into 2 (86, 88, 90) or 4 (87, 89, 91)
//                batches, fp32 partials summed by a second kernel, dependent launch (SplitK) [16]
//   96-98 swap-AB 256x64x128, the same in a 4x1 cluster, 256x16x128  cooperative  persistent,
//                two temporaries, dependent launch (decode at N = 28672 in one wave; 96 a
//                pick, 97 and 98 in [17])
//   99, 100 swap-AB 128x64x128  cooperative  cluster 1x2 (the weight tile multicast to both
//                token tiles) [18], no cluster (a pick); persistent, two temporaries, dependent
//                launch (M = 128 at N = 8192 in one wave: cuBLASLt's tile there)
//   101, 102 swap-AB 64x96x128  ping-pong  no cluster, cluster 4x1; two temporaries, dependent
//                launch (44 and 48 with 96-token tiles, for 65-96 tokens; both picks)
//   103, 104 swap-AB 64x48x128  ping-pong persistent [18]; one consumer, not persistent, 6
//                stages, 2 an SM (a pick); two temporaries, dependent launch (41 and 92 with
//                48-token tiles, for 33-48 tokens)
//   105, 106 swap-AB 64x80x128  ping-pong  no cluster, cluster 4x1; two temporaries, dependent
//                launch (101 and 102 with 80-token tiles, for 65-80 tokens)                  [18]
//   107 swap-AB 64x112x128  ping-pong  cluster 4x1, two temporaries, dependent launch (48 with
//                112-token tiles, for 97-112 tokens)                                         [18]
//   108 swap-AB 64x56x128  ping-pong  no cluster, two temporaries, dependent launch (41 with
//                56-token tiles, two of them for 97-112 tokens)                              [18]
//   (103-108 ran with 64x16 or 64x8 wgmma instructions, see CUTE_SM90_EXTENDED_MMA_...; 104
//                was a pick until 109, the same tile with one 64x48 instruction, replaced it) [18]
//   113 = 107 with one 64x112 wgmma instruction a k-step, 114 = 113 without its cluster     [19]
//   117         128x112x128  cooperative  no cluster (116 without its cluster)               [19]
//   118 swap-AB 64x40x128  ping-pong  no cluster (41 with 40-token tiles, for 33-40 tokens)  [19]
//   119, 120 = 115 and 41 in a 1x2 cluster (the weight tile multicast to its two token tiles) [19]
//   121 swap-AB 64x72x128  ping-pong  no cluster (111 with 72-token tiles)                   [19]
// Why these (napkin math; the sweep must confirm):
//   - Promotion (see Accuracy) drains the tensor-core pipe: CUTLASS's fp8 mainloop waits for
//     every wgmma in flight (warpgroup_wait<0>) before it adds the temporary into the fp32
//     accumulators, then restarts. At 128x192x128 a k-tile is 4 wgmma k-steps, 6.3 MFLOP, ~830
//     cycles of an SM's tensor cores (1979 TFLOP/s / 132 SMs / 1.98 GHz), and each drain idles
//     them for the wgmma latency plus 96 FADDs per thread on 8 warps (~200 issue cycles): up to
//     ~25%, while _scaled_mm (promoting too, or it would fail the same tolerance) runs
//     1.06-1.18x faster at M >= 4096. Promoting every 256 of K (10, 15, 16; 7 and 9 with 256-deep
//     k-tiles) halves the drains; a partial sum then carries 8 k-step roundings instead of 4,
//     however long K is (the check in the sweep judges it against the spec's tolerance).
//   - The last wave: 4096 x 4096 is 32 x 22 = 704 tiles of 128x192 on 132 SMs, 5.33 waves, so
//     the sixth runs a third full (~11% of the time idle); stream-K (8) splits those tiles' K.
//   - L2: 4096 x 28672 x 8192 reads b (235 MB) and a (34 MB) many times over; a swizzled raster
//     (11) keeps the a and b panels of tiles in flight together in L2.
//   - Decode (M <= 64) streams the weight: 4096 x 4096 is 16.8 MB, 3.9 us at the copy roof, where
//     kernel 1 takes 13.5 us and _scaled_mm 7.2. Fixed costs dominate: forced stream-K zeroes
//     its flags in the workspace (a memset before every call), and each of ~4 CTAs per tile
//     adds its partial in turn. 12 (no split where 112+ tiles already fill the GPU: N >= 14336),
//     13 (even split-K, 128 CTAs at N = 4096) and 14 (partials added in any order) take those
//     costs apart; 7 halves the k-tile count per CTA (fewer barrier round trips).
//   - Decode, measured (benchmarks/fp8_gemm_trace.py, H200): at 1 x 4096 x 4096 kernel 1 runs
//     11.6 us after a 0.9 us memset, and 12-14 run 10.9-11.7 us, while torch._scaled_mm's one
//     kernel (64x8 tiles of the swapped product, cluster 4x1, by its name) runs 7.0. Splitting K
//     over 4 CTAs a tile is what the three share: each CTA streams only 128 KB, and the partial
//     sums meet through the workspace. 21 and 22 do as cuBLAS does: 64 weight rows a tile (the
//     ping-pong kernel's consumer warpgroup owns a whole 64-row tile; the cooperative one needs
//     128), twice the tiles of kernel 1 and no K split, each CTA streaming whole rows of the
//     weight (64 CTAs of 256 KB at N = 4096, 224 at 14336). 21 then ran 8.7 us there (no memset).
//     24 keeps kernel 2's tile but splits K evenly. M = 128: kernel 3 ran 27.1 us at 8192 x 8192
//     where cuBLAS's 128x64 tiles with a 1x2 cluster ran 20.8; 23 is that tile shape (128 tiles
//     at N = 8192: one wave), the pair of CTAs sharing the activations' tile: 23.1 us.
//   - Decode after 21-23 (M = 16-64 at 0.90-0.96x _scaled_mm with dependent launch; 64 x 4096
//     x 14336 0.72x). With 22 at M = 64 each CTA reads the whole activation tile column (64
//     tokens x K) beside its 64 weight rows: L2 serves as many bytes of a as of the weight, and
//     N = 4096 gives only 64 CTAs for 132 SMs. 31 (and 32 for 21) puts two CTAs of neighbouring
//     weight rows in a cluster that multicasts the token tile: half the reads of a from L2 (the
//     cuBLASLt decode kernel's name says 64x8 tiles in a 4x1 cluster). 33 halves the token tile
//     instead: twice the CTAs at M = 64 (128 at N = 4096), each weight tile read by two.
//     Measured (h200_session19, call 1): 31 and 32 no faster than 22 and 21; 33 0.87x and 0.82x
//     _scaled_mm at 64 x 4096 x 4096 and 64 x 4096 x 14336, where 26 (22) ran 0.81x and 0.73x, and
//     slower than 26 wherever 22's tiles already fill the SMs (N >= 8192: 0.76-0.82x against
//     0.89-1.00x). So 33 became the pick at 32 < M <= 64 where its tiles make one wave (until
//     41, below).
//   - Large M after 10: 0.89-0.98x _scaled_mm. The cooperative kernel's two warpgroups finish a
//     tile together and then both run its epilogue (scale, round, store 48 KB of bf16) while the
//     tensor cores wait; the producer has the next tile's stages loaded, but no wgmma is issued
//     until the store is done. At K = 4096 a 128x192 tile is 32 k-tiles, ~27k tensor-core cycles,
//     and its epilogue a few thousand: up to ~5-10%, most where K is short. Ping-pong gives each
//     warpgroup its own tile, so one runs its epilogue while the other's mainloop keeps the tensor
//     cores busy. Its warpgroup tile must hold the promotion temporary too: 64x192 (34) or 128x96
//     (35), 96 + 96 accumulator registers as in 10, with 10's cluster and promotion interval.
//     Measured (h200_session19, call 1): 0.70-0.74x _scaled_mm (geometric mean at M = 4096 and
//     8192) where 10 ran 0.90-0.96x. Half-height tiles cost more than the overlap gains.
//   - Decode after 36 (two temporaries, below): at N = 4096 the decode kernels' 64-row tiles are
//     64 CTAs, one tile each, so one consumer warpgroup does all of a CTA's wgmmas and each SM
//     must stream twice its share of the weight. Each promotion's drain (the wgmma latency and the
//     FADDs, per k-tile) then stands between the loads and the tensor cores. 40-45 are the decode
//     picks' tiles with the two-temporaries mainloop (ping-pong too: its consumer calls the same
//     mma(), one warpgroup's share), and 44 one 128-token tile for M = 128, which reads the weight
//     once where 64-token tiles read it twice from L2. Measured (h200_session20, calls 1 and 2,
//     geometric means over the six weights): 43 1.05x _scaled_mm at M = 1 and 16 (1.00-1.13x),
//     where 21 ran 0.98-0.99x; 41 1.04x at M = 64 (0.96-1.09x), where the picks 22 and 33 ran
//     0.94x. M = 128: 41 1.05x and 1.01x at N = 4096, where 22 and 2 ran 0.89x and 0.85x; 44
//     1.00x at N = 8192 and 14336 with K = 8192 and 4096 (23 0.93x, 15 0.98x), 0.93x at 8192 x
//     28672 (23 0.88x), 0.83x at N = 28672 (15 0.92x; see 48 below). 40, 42 and 45 were behind
//     these everywhere.
//   - L2 at M = 128: 44's CTA loads 8 KB of weight (from HBM) and 16 KB of tokens (from L2) per
//     k-tile, so while the weight streams at 4.27 TB/s, L2 must deliver three times that (~13
//     TB/s); 41 at M = 64, 8 + 8 KB, twice. A 2x1 cluster of neighbouring weight-row tiles
//     multicasts the token tile (46, 47): one L2 read for two CTAs; 4x1 (48) for four.
//     Measured (h200_session20, call 4): at M = 128, 48 1.02x and 0.97x at N = 14336 and 28672,
//     where 44 ran 0.99x and 15 0.94x; 0.61-0.67x at N = 8192, whose 128 tiles are one per CTA
//     (44 0.93-0.97x there). 46 and 47 were level or slower than 44 and 41 at M = 64 and 128.
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
// need 256. Kernel 6 shows what the promotion costs.
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
// build has it (109-112, 115 and 116 need it), and so do sweep builds 11 and 19; the other sweep
// builds' candidates were measured without it (18's 103-108 as 64x16 and 64x8 instructions).
#if !defined(KL_FP8_GEMM_SWEEP) || KL_FP8_GEMM_SWEEP == 11 || KL_FP8_GEMM_SWEEP == 19
#define CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED
#endif

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
}  // namespace kl_cutlass

namespace {

using namespace cute;

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
    "3, 4, 10, 11, 15, 17-20, 29, 30, 36, 41-44, 48, 51-53, 58, 59, 64-76, 81, 82, 92, 96, 100-102, 109-112, 115, 116",
    "5-6", "7-8 and 16", "9", "1 and 12-14", "31, 32, 34, 35", "37-39", "40", "45",
    "2, 21-28 and 33", "46 and 47", "49 and 50", "57", "60-62", "63", "77-80", "86-91", "97 and 98",
    "99 and 103-108", "113, 114 and 117-121",
};
static_assert(kBuild >= 0 && kBuild < int(sizeof(kBuildConfigs) / sizeof(kBuildConfigs[0])),
              "KL_FP8_GEMM_SWEEP must be 1 to 19");
constexpr const char* kThisBuild = kBuildConfigs[kBuild];

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
// Measured slower than the unsplit tiles everywhere (build 16, below, says by how much): the
// ping-pong warpgroups take turns in the mainloop, so a CTA's second unit streams no faster.
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
// tile (192 of the 232 a consumer thread gets), which rules out the 128x192 tiles of kernel 4. torch._scaled_mm's kernel at M = 4096
// is named for 128x128 tiles, cooperative, six stages, a 2x1 cluster (benchmarks/h200_session19,
// call 1).
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
//    temporaries (see the top): 16, 64 or 128 tokens a tile.
using Config41 = PingPong<Shape<_64, _64, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
using Config43 = PingPong<Shape<_64, _16, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
using Config44 = PingPong<Shape<_64, _128, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
// 48. 44 in a 4x1 cluster: four CTAs of neighbouring weight rows share (multicast) the token tile,
//    for M = 128 where the weight's tiles are more than the SMs (see the top).
using Config48 = PingPong<Shape<_64, _128, _128>, true, Shape<_4, _1, _1>, PingpongTwoTemps>;
// 58 (59). Kernel 4 under stream-K (as 8, sweep build 2), promoted every 2048 of K as 53: the
//    tiles of the last two waves split along K over one wave of CTAs (sweep build 12, below).
using Config58 = Cooperative<Shape<_128, _192, _128>, Shape<_2, _1, _1>, StreamK, false>;
// 64, 65. Decode (M <= 16) where 43's 64-row tiles outnumber the SMs: every tile's CTA on the GPU
//    at once, 3 (64 rows, 6 stages) or 2 (128 rows, 5 stages) an SM (sweep build 14, below).
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
// 115. 41 with 56-token tiles (one 64x56 instruction a k-step), two of them for 97-112 tokens
//    where 41 is picked (N = 4096): at 112 tokens 433 and 612 TFLOP/s at K = 4096 and 14336,
//    where 41 ran 423 and 571 (torch._scaled_mm 459 and 663; h200_session36, call 2).
using Config115 = PingPong<Shape<_64, _56, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
// 116. cuBLASLt's kernel at 128 x 28672 x 8192 (h200_session19, call 1): 128 tokens by 112 weight
//    rows, unswapped (the weight rows are wgmma's N: one 64x112 instruction a warpgroup and
//    k-step), cooperative, two temporaries, a cluster of two along N sharing the token tile by
//    multicast. 256 tiles on 132 SMs fill 97% of two rounds, where 48's 448 fill 85% of four.
//    At 28672 x 8192 (h200_session36, call 2): 895 and 774 TFLOP/s at 128 and 112 tokens, where
//    48 ran 867 and 752 (torch._scaled_mm 896 and 777); at 14336 x 4096, one round of its tiles,
//    behind 48 (757 against 775 at 128 tokens).
using Config116 = TwoTemps<Shape<_128, _112, _128>, Shape<_1, _2, _1>>;
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
//    dispatch weighs both (see pick_config). 4096^3 is 704 tiles of 128x192 on 132 SMs, 5.3 an
//    SM, so some SMs run six while the mean is 5.3 (11% idle at the end); 1024 of 128x128 are
//    7.8 an SM (3%). At the power cap beside torch._scaled_mm (h200_session31, call 2): 1.108x
//    there, 81 1.053x, 36 0.995x; at 512 x 14336 x 4096 (3.4 tiles an SM) 1.024x, 81 0.986x, 36
//    0.929x (call 5). Where 81's tiles divide evenly it stays ahead (1.031x against 0.976x at
//    8192 x 14336 x 4096: a 128x192 tile reads 17% fewer bytes per FLOP).
using Config82 = PingPong<Shape<_128, _128, _128>, false, Shape<_2, _1, _1>,
                          gemm::KernelTmaWarpSpecializedPingpongFP8FastAccum>;
#elif KL_FP8_GEMM_SWEEP == 1
using Config5 = Cooperative<Shape<_128, _128, _128>, Shape<_2, _1, _1>, gemm::PersistentScheduler, false>;
using Config6 = Fp8GemmConfig<Shape<_128, _256, _128>, Shape<_2, _1, _1>,
                              gemm::KernelTmaWarpSpecializedCooperativeFP8FastAccum,
                              epi::TmaWarpSpecializedCooperative, gemm::PersistentScheduler, false>;
#elif KL_FP8_GEMM_SWEEP == 2
// 7. Kernel 1 with 256-deep k-tiles: 32 KB of weight per stage, half the k-tiles (barrier round
//    trips, promotions) per CTA. CUTLASS requires the promotion interval to be a multiple of the
//    k-steps per k-tile (8 here): left at its default of 4, can_implement refused every call,
//    which is why this configuration failed every check before.
using Config7 = Cooperative<Shape<_128, _16, _256>, Shape<_1, _1, _1>, StreamK, true>;
// 8. Kernel 4 under stream-K: whole waves data-parallel, the part-empty last wave split along K.
using Config8 = Cooperative<Shape<_128, _192, _128>, Shape<_2, _1, _1>, StreamK, false>;
#elif KL_FP8_GEMM_SWEEP == 3
// 9. 256-deep k-tiles at large M: 64 KB per stage, 3 stages; one promotion (drain) per 8 k-steps.
using Config9 = Cooperative<Shape<_128, _128, _256>, Shape<_2, _1, _1>, gemm::PersistentScheduler, false>;
#elif KL_FP8_GEMM_SWEEP == 4
// 1. M <= 16 (decode): weight-bound. y^T's N' = M fits one 16-wide tile; each CTA streams 128
//    weight rows. 16 KB of weight + 2 KB of a per stage, 12 stages: 216 KB in flight per SM,
//    far past the ~26 KB Little's law asks (4.27 TB/s x ~0.8 us / 132 SMs). 4096 rows are only
//    32 tiles for 132 SMs, so stream-K also splits K: every SM gets ~1/132 of the weight.
using Config1 = Cooperative<Shape<_128, _16, _128>, Shape<_1, _1, _1>, StreamK, true>;
#elif KL_FP8_GEMM_SWEEP == 5
// 31, 32. 22 and 21 with two CTAs (neighbouring weight rows) a cluster, the token tile multicast
//    to both (see the top).
using Config31 = PingPong<Shape<_64, _64, _128>, true, Shape<_2, _1, _1>>;
using Config32 = PingPong<Shape<_64, _16, _128>, true, Shape<_2, _1, _1>>;
// 34, 35. Large M with ping-pong, which overlaps a tile's epilogue with the next tile's mainloop
//    (see the top).
using Config34 = PingPong<Shape<_64, _192, _128>, false, Shape<_2, _1, _1>>;
using Config35 = PingPong<Shape<_128, _96, _128>, false, Shape<_2, _1, _1>>;
#elif KL_FP8_GEMM_SWEEP == 6
// 37. 36 with the cluster across N; 38 (and 39) 36's tile with CUTLASS's mainloop.
using Config37 = TwoTemps<Shape<_128, _128, _128>, Shape<_1, _2, _1>>;
using Config38 = Cooperative<Shape<_128, _128, _128>, Shape<_2, _1, _1>, gemm::PersistentScheduler, false>;
#elif KL_FP8_GEMM_SWEEP == 7
// 40. The two-temporaries mainloop on the M <= 128 pick 23 of build 9 (see the top); 42, the same
//    on 33, is in the shipped build.
using Config40 = TwoTemps<Shape<_128, _64, _128>, Shape<_1, _2, _1>>;
#elif KL_FP8_GEMM_SWEEP == 8
// 45. 3's 128x128 stream-K tile (15 at M = 128, N >= 14336) with two temporaries.
using Config45 = TwoTemps<Shape<_128, _128, _128>, Shape<_1, _1, _1>, StreamK>;
#elif KL_FP8_GEMM_SWEEP == 9
// The decode picks before the two-temporaries mainloop (41, 43, 44 replaced them), with CUTLASS's.
// 2. 16 < M <= 128 where the weight has few rows and K is long: still weight-bound (16.8 MB of a
//    4096x4096 weight = 3.9 us; 2 M N K = 2.1 GFLOP at M = 64 = 1.7 us at 1261 TFLOP/s): kernel 1's
//    plan (sweep build 4) with a 64-wide N'.
using Config2 = Cooperative<Shape<_128, _64, _128>, Shape<_1, _1, _1>, StreamK, true>;
// 21, 22. Decode with 64 weight rows a tile and no K split (see the top).
using Config21 = PingPong<Shape<_64, _16, _128>, true>;
using Config22 = PingPong<Shape<_64, _64, _128>, true>;
// 33. 22 with 32-token tiles: twice the CTAs at M = 64 where 22's leave SMs idle (N = 4096).
using Config33 = PingPong<Shape<_64, _32, _128>, true>;
// 23. M = 128: 128 tokens x 64 weight rows a tile; the two CTAs of a cluster (neighbouring N
//    tiles) share the activations' 16 KB tile by multicast.
using Config23 = Cooperative<Shape<_128, _64, _128>, Shape<_1, _2, _1>, gemm::PersistentScheduler, false>;
#elif KL_FP8_GEMM_SWEEP == 10
// 46, 47. 44 and 41 with two CTAs (neighbouring weight rows) a cluster, the token tile multicast
//    to both (see the top).
using Config46 = PingPong<Shape<_64, _128, _128>, true, Shape<_2, _1, _1>, PingpongTwoTemps>;
using Config47 = PingPong<Shape<_64, _64, _128>, true, Shape<_2, _1, _1>, PingpongTwoTemps>;
#elif KL_FP8_GEMM_SWEEP == 11
// 49, 50. Large M with 128x144 tiles (128 tokens x 144 weight rows: cuBLASLt's at M = 8192,
//    benchmarks/h200_session19, call 1), 12.5% more FLOPs per tile than 128x128: with two
//    temporaries (3 x 72 accumulator registers a thread), and with CUTLASS's mainloop promoting
//    every 256 of K as 10 does.
using Config49 = TwoTemps<Shape<_128, _144, _128>, Shape<_2, _1, _1>>;
using Config50 = Cooperative<Shape<_128, _144, _128>, Shape<_2, _1, _1>, gemm::PersistentScheduler, false>;
#elif KL_FP8_GEMM_SWEEP == 12
// 57, 58, 59. Large M, the last wave. A persistent kernel's tiles run in waves of one per SM
//    (cluster pair), and a last wave that is not full leaves SMs idle: 4096 x 4096 is 1024 tiles
//    of 128x128, 7.76 waves on 132 SMs (36); 8192 x 4096 is 1408 tiles of 128x192, 10.67 waves,
//    4096 x 8192 1376, 10.42 (53). Stream-K's decomposition splits the tiles of the last two
//    waves along K over one wave of CTAs and runs the rest whole: the time of 7.76 waves instead
//    of 8 (3%; 4-5% at the other two), less the partial sums' fixup through the workspace.
//    CUTLASS's heuristic keeps whole tiles when the last wave is at least half full (4096 x
//    4096, 8192 x 4096), so 57 (36's kernel) and 58 (53's) force stream-K; 59 is 58 with the
//    heuristic (58's kernel is in the shipped build, 59 a pick: see pick_config). Never measured
//    at large M with these mainloops before: 3, 8 and 15 are stream-K with CUTLASS's promotion
//    every 128 or 256 of K, which drains the pipe (see the top). Measured
//    (benchmarks/h200_session27, calls 1 and 2, each beside torch._scaled_mm): 57 behind 36 at
//    M = 4096 (4096^3: 1193 TFLOP/s against 1305; at 32 k-tiles a tile the fixup costs more than
//    the last wave) and behind 53 at M = 8192. 58 and 59 ahead where stream-K splits a small last
//    wave over a long K: 4096 x 4096 x 14336 in 345-357 us against 36's 375-377 (_scaled_mm
//    353-356), 2048 x 8192 x 28672 in 664 (58) and 697 (59) against 36's 747 (_scaled_mm 723).
//    Where the heuristic keeps whole tiles, 59 is 53 with its last wave: 2048 x 4096 x 14336 in
//    181 us against 36's 171 (which is why call 2 withdrew a rule that gave 59 every shape under 8
//    waves at M >= 2048 and K >= 8192, h200_session27/pick59.patch); at M = 8192 0-5% behind 53.
using Config57 = TwoTemps<Shape<_128, _128, _128>, Shape<_2, _1, _1>, StreamK>;
#elif KL_FP8_GEMM_SWEEP == 13
// 60, 61, 62. Decode (M <= 128) with the weight split evenly over the SMs: swap-AB cooperative
//    tiles of 128 weight rows and 16, 64 or 128 tokens under stream-K, promoted from two
//    temporaries (kernels 1 and 2 with this file's mainloop, and a 128-token tile). The picks'
//    64-row tiles come in whole tiles a CTA: 28672 weight rows are 448 of them, 3.39 waves on 132
//    SMs, so through the last 0.39 of a wave 52 SMs stream the weight alone (the picks ran
//    0.89-0.97x torch._scaled_mm at N = 28672 and M <= 64 in benchmarks/h200_session27, calls 2
//    and 3). Stream-K gives every CTA the same share of k-tiles (224 tiles of 128 rows x 64
//    k-tiles over 132 CTAs: 108.6 each); the partial sums of a 128x16 tile are 8 KB. M = 128:
//    41's 64x64 tiles read each weight tile twice (two token tiles) and the token tile once per
//    weight tile: at 4096 x 14336, 235 MB from L2 for a 59 MB weight, which runs at 61-64% of the
//    copy roof (the goal is 70%). 62's 128x128 tile reads the weight once and the tokens 32 times:
//    117 MB. The price: stream-K's flags are zeroed before every call (a memset), and the CTAs
//    sharing a tile add their partials through the workspace in turn. Measured
//    (benchmarks/h200_session28, call 1, beside torch._scaled_mm, 0.3 s a timing): behind the
//    picks at every decode shape. At N = 28672 60 ran 65.2 us at M = 1 against 43's 62.5
//    (_scaled_mm 60.1), 61 and 62 75.3 and 75.0 at M = 128 against 48's 68.8 (66.5); at 4096 x
//    4096 60-62 took 13.5-18.9 us against the picks' 6.9-8.5: the price is paid at every shape.
template <class TileShape>
using DecodeStreamK = TwoTemps<TileShape, Shape<_1, _1, _1>, StreamK, true>;
using Config60 = DecodeStreamK<Shape<_128, _16, _128>>;
using Config61 = DecodeStreamK<Shape<_128, _64, _128>>;
using Config62 = DecodeStreamK<Shape<_128, _128, _128>>;
#elif KL_FP8_GEMM_SWEEP == 14
// 63 (64, 65). Decode (M <= 16) with every tile's CTA on the GPU at once. The picks' persistent
//    kernels run one CTA an SM, each walking whole 64-row tiles: 448 of them at N = 28672, 3.39
//    waves, so the last 0.39 of a wave is streamed by 52 SMs alone (43 ran 0.96x
//    torch._scaled_mm there at M = 1 and 16, benchmarks/h200_session28, call 1). The Triton rung
//    runs 224 programs of 128 weight rows there, all resident at once, and reads the weight at
//    94% of the copy roof: the hardware shares the bandwidth among the CTAs in flight, so an SM
//    holding one tile more than another no longer sets the time. CUTLASS's warp-specialized
//    kernel that is not persistent (one producer warp, one consumer warpgroup, one CTA a tile)
//    with few stages and __launch_bounds__ asking for several CTAs an SM: 63 and 64, 64-row
//    tiles (448 CTAs at N = 28672, 4 and 3 an SM; 40 and 60 KB of stages each), 65 128-row
//    tiles (224 CTAs, 2 an SM, 90 KB each), promoted from two temporaries. ptxas: 42, 42 and 58
//    registers a thread, no spills. Measured (benchmarks/h200_session28, call 2, beside
//    torch._scaled_mm and 43, 0.3 s a timing), M = 1 and 16: 64 ahead where 64-row tiles are one
//    to three an SM, 14336 x 4096 in 16.6 and 16.8 us against 43's 17.5 and 17.8 (_scaled_mm
//    17.3 and 17.6); 65 at 28672 x 8192, 61.3 and 60.8 against 62.0 and 62.5 (60.2 and 60.2).
//    Behind 43 wherever its tiles are no more than the SMs (N = 4096 and 8192: 5-105% slower,
//    8192 x 28672 in 64.7 and 72.4 us for 64 and 65 against 60.0): there each CTA has one tile
//    either way, and the few stages that let CTAs share an SM leave each 30-80 KB of weight in
//    flight where 43's shared memory holds ~20 stages (~160 KB). Call 4, on another machine:
//    14336 x 4096 16.3 and 16.4 us (64) against 43's 17.5 and 17.5 (_scaled_mm 17.1, 17.5);
//    28672 x 8192 58.6 and 59.3 (65) against 62.5 and 61.8 (59.4, 58.8). So 64 and 65 are picks
//    (pick_config) and in the shipped build; 63 stays here.
using Config63 = OneConsumer<Shape<_64, _16, _128>, 4, 4>;
#elif KL_FP8_GEMM_SWEEP == 15
// 77-80. What kernel 4 (53) pays per output tile. At the power cap (benchmarks/h200_session30)
//    its work per SM clock grows with K more than torch._scaled_mm's: a fixed cost of 13-15% of a
//    tile's time at K = 4096 against 9-11%, and not its promotions (76). What is left is the
//    epilogue, which neither consumer warpgroup overlaps with wgmma in the cooperative kernel:
//    by default six 128x32 pieces a tile, each converted, written to shared memory, fenced and
//    stored by TMA in turn. 79 stores three 128x64 pieces, 80 the whole tile at once; their
//    bigger buffers leave room for 4 stages where 53 has 5, so 78 (53 with 4 stages) is the
//    control, and 77 is 53 itself, built here to sit in the same library. Measured
//    (benchmarks/h200_session30, call 4; torch._scaled_mm's time over each, held 1.5 s at the
//    power cap, at 8192 x 14336 x 4096 and 8192^3): 77 0.950x and 0.967x, 78 0.945x and 0.955x,
//    79 0.950x and 0.959x, 80 0.937x and 0.950x. Three pieces gain 0.4-0.5% on the control, one
//    loses (its store waits for the whole tile); the pieces are not the fixed cost either.
template <int kStages, class EpilogueTile = cutlass::epilogue::collective::EpilogueTileAuto>
using Kernel4Variant = Fp8GemmConfig<Shape<_128, _192, _128>, Shape<_2, _1, _1>,
                                     gemm::KernelTmaWarpSpecializedCooperative,
                                     epi::TmaWarpSpecializedCooperative, gemm::PersistentScheduler, false,
                                     kStages, 1, EpilogueTile>;
using Config77 = Kernel4Variant<0>;  // Config4's type: every default the same
using Config78 = Kernel4Variant<4>;
using Config79 = Kernel4Variant<0, Shape<_128, _64>>;
using Config80 = Kernel4Variant<0, Shape<_128, _192>>;
#elif KL_FP8_GEMM_SWEEP == 16
// 86-91. The decode picks' tiles (41's, 44's, 43's) with K split into 2 or 4 batches (SplitK,
//    above): fp32 partials, summed into y by sum_partials. Measured (benchmarks/h200_session33,
//    call 1; TFLOP/s beside torch._scaled_mm, M = 1-128 at the six Llama weights): slower than
//    the unsplit tile at every shape, at the weights they were made for too: 128 x 8192 x 28672
//    801 (88) and 752 (86) against 44's 879 (_scaled_mm 940); 128 x 4096 x 14336 636 (86)
//    against 41's 683 (679); 64 x 4096 x 14336 342 (87) against 41's 399 (400). The ping-pong
//    warpgroups take turns in the mainloop, so a CTA's second work unit adds no streaming of its
//    own, and the partials and the second launch are paid on top.
template <class TileShape>
using SplitK = Fp8GemmConfig<TileShape, Shape<_1, _1, _1>, PingpongTwoTemps, epi::TmaWarpSpecialized,
                             gemm::PersistentScheduler, true, 0, 1,
                             cutlass::epilogue::collective::EpilogueTileAuto, float>;
using Config86 = SplitK<Shape<_64, _64, _128>>;
using Config88 = SplitK<Shape<_64, _128, _128>>;
using Config90 = SplitK<Shape<_64, _16, _128>>;
#elif KL_FP8_GEMM_SWEEP == 17
// 96-98. Decode at N = 28672 in one wave of 256-row tiles (112 tiles for 132 SMs), where the
//    64- and 128-row tiles make 448 and 224 (3.4 and 1.7 a CTA: the last round part full).
//    cuBLASLt's kernel at 64 x 28672 x 8192 is named for 256x64 tiles, cooperative, 5 stages, a
//    4x1 cluster (benchmarks/h200_session33, call 4). Swap-AB cooperative, two temporaries: each
//    consumer warpgroup holds 128 weight rows (64 + 2 x 64 registers a thread at 64 tokens).
//    96 256x64, 97 the same in a 4x1 cluster (the token tile multicast), 98 256x16.
//    Measured (h200_session33, call 5; TFLOP/s, 0.3 s a timing): at 64 x 28672 x 8192 96 ran
//    488 and 97 485, where the pick 92 ran 468, 41 456 and _scaled_mm 483; far behind at the
//    other weights (fewer than 112 tiles). 98 at 16 x 28672 x 8192: 126, where 65 ran 128
//    (_scaled_mm 127). At 24 and 48 tokens (call 6) 96 ran 180 and 353 at 28672 x 8192, where
//    the picks ran 137 (41) and 321 (92), _scaled_mm 186 and 363. So 96 became the pick for
//    17-64 tokens where its tiles make one wave that fills most SMs (N = 28672), and moved to the
//    shipped build (above; h200_session34); 97 and 98 stay here.
using Config97 = TwoTemps<Shape<_256, _64, _128>, Shape<_4, _1, _1>, gemm::PersistentScheduler, true>;
using Config98 = TwoTemps<Shape<_256, _16, _128>, Shape<_1, _1, _1>, gemm::PersistentScheduler, true>;
#elif KL_FP8_GEMM_SWEEP == 18
// 104. 92 with 48-token tiles, for 33-48 tokens where 41's tiles outnumber the SMs (N = 14336),
//    built without CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED: three 64x16 wgmma instructions a
//    k-step. Beside torch._scaled_mm at 14336 x 4096 (benchmarks/h200_session35, call 1): 1.03x
//    at 40 and 48 tokens, where 92 ran 0.92x and 0.99x; shipped then, and replaced by 109 (the same
//    tile as one 64x48 instruction) in h200_session36.
using Config104 = OneConsumer<Shape<_64, _48, _128>, 6, 2>;
// 99. 100 (shipped, above) in a 1x2 cluster, as cuBLASLt runs it at 128 x 8192 x 8192 and 28672
//    (benchmarks/h200_session33, call 4): the two CTAs of a cluster, one weight tile by two token
//    tiles, share the weight tile by multicast, so a k-tile takes 16 KB from L2 a CTA (8 of
//    weight, 8 of tokens) where 100 takes 24. Level with 100 at M = 128 (h200_session35, call 1:
//    778 and 942 TFLOP/s at 8192 x 8192 and 8192 x 28672, 100 779 and 948): the weight's bytes
//    from HBM decide, not L2's.
using Config99 = TwoTemps<Shape<_128, _64, _128>, Shape<_1, _2, _1>, gemm::PersistentScheduler, true>;
// 103. 41 with 48-token tiles, for 33-48 tokens (104 is 92 with them, shipped). At 40 tokens
//    (h200_session35, call 1) it ran 258 and 304 TFLOP/s at 8192 x 8192 and 8192 x 28672, where
//    41 ran 243 and 288 (_scaled_mm 264 and 320); at 48 tokens 307 and 371 against 41's 313 and
//    369, and at N = 4096 behind 41 (198 against 225 at 48 x 4096 x 4096): a gain at one weight
//    and one end of the range, not worth a kernel more in the shipped build.
using Config103 = PingPong<Shape<_64, _48, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
// 105, 106. 101 and 102 with 80-token tiles, for 65-80 tokens: at 72 tokens the 96-token tiles
//    are a quarter zero fill, and the picks ran 0.86-1.00x torch._scaled_mm (h200_session35,
//    call 2). Built here as five 64x16 wgmma instructions a k-step (see
//    CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED), they ran 0.78x and 0.62x at 72 tokens (geometric
//    means, h200_session36, call 1); as one 64x80 instruction they are 111 and 112, shipped.
using Config105 = PingPong<Shape<_64, _80, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
using Config106 = PingPong<Shape<_64, _80, _128>, true, Shape<_4, _1, _1>, PingpongTwoTemps>;
// 107. 48 with 112-token tiles, for 97-112 tokens past one wave of 64-row tiles (N = 14336 and
//    28672): at 112 tokens 48's 128-token box is an eighth zero fill, and it ran 0.93x at
//    28672 x 8192 (h200_session35, call 2). As seven 64x16 instructions it ran 510 TFLOP/s at
//    112 x 28672 x 8192, where 48 ran 777 (h200_session36, call 1); 113 is the one-instruction
//    build, in sweep build 19.
using Config107 = PingPong<Shape<_64, _112, _128>, true, Shape<_4, _1, _1>, PingpongTwoTemps>;
// 108. 41 with 56-token tiles, for 97-112 tokens where 41 is picked (N = 4096: two token tiles a
//    weight tile, 128 CTAs): at 112 tokens 41's second 64-token box is an eighth zero fill, and
//    41 ran 0.86-0.92x at N = 4096 (h200_session35, calls 1 and 2), where its time per token
//    at 128 tokens was 4% lower. As seven 64x8 instructions it ran 313 TFLOP/s at 112 x 4096 x
//    14336, where 41 ran 573 (h200_session36, call 1); as one 64x56 instruction it is 115,
//    shipped.
using Config108 = PingPong<Shape<_64, _56, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
#elif KL_FP8_GEMM_SWEEP == 19
// 109-118: the token tiles whose width is not among CuTe's default wgmma shapes (see
// CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED at the top), now with one instruction as wide as the tile.
// In sweep build 18 (h200_session36, call 1) 105-108 ran as 64x16 or 64x8 instructions and lost
// to the tiles they meant to replace by up to 2x (108 at 112 x 4096 x 14336: 313 TFLOP/s, 41 573).
// 109-112, 115 and 116 won (h200_session36, call 2) and are in the shipped build; 113, 114 and 117
// lost to the picks, and 118 (41 with 40-token tiles) tied with 110 at 40 tokens.
using Config113 = PingPong<Shape<_64, _112, _128>, true, Shape<_4, _1, _1>, PingpongTwoTemps>;  // 107
using Config114 = PingPong<Shape<_64, _112, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
// 117. 116 (shipped) without its cluster.
using Config117 = TwoTemps<Shape<_128, _112, _128>, Shape<_1, _1, _1>>;
using Config118 = PingPong<Shape<_64, _40, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
// 119, 120. 115 and 41 in a 1x2 cluster: the two CTAs of a weight tile (its two token tiles, at
//    97-128 tokens where N = 4096) take it from L2 once, by multicast, and in step, where now each
//    reads it on its own. For the gap at 97-128 tokens on N = 4096 (112 tokens 0.93-0.94x
//    torch._scaled_mm; 128 x 4096 x 14336 at 63-64% of the copy roof, h200_session36, calls 3
//    and 4). 99 (100 in such a cluster) ran level with 100 at N = 8192 (h200_session35, call 1).
//    Not yet run.
using Config119 = PingPong<Shape<_64, _56, _128>, true, Shape<_1, _2, _1>, PingpongTwoTemps>;
using Config120 = PingPong<Shape<_64, _64, _128>, true, Shape<_1, _2, _1>, PingpongTwoTemps>;
// 121. 111 with 72-token tiles, for 65-72 tokens (the 80-token box a tenth zero fill at 72
//    tokens, where 111 ran 0.95-1.01x; h200_session36, call 3). Not yet run.
using Config121 = PingPong<Shape<_64, _72, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
#endif

// A configuration's kernel and knobs, handed to f.
template <class F>
auto with_config(int config, F&& f) {
  switch (config) {
#if !defined(KL_FP8_GEMM_SWEEP)
    case 3: return f(Config3{}, Knobs{});
    case 4: return f(Config4{}, Knobs{});
    case 10: return f(Config4{}, promote(8));
    case 11: return f(Config4{}, swizzle(4));
    case 15: return f(Config3{}, promote(8));
    case 17: return f(Config4{}, promote(16));
    case 18: return f(Config4{}, promote(32));
    case 19: return f(Config3{}, promote(16));
    case 20: return f(Config3{}, promote(32));
    case 29: return f(Config3{}, dependent_launch(promote(8)));
    case 30: return f(Config4{}, dependent_launch(promote(8)));
    case 36: return f(Config36{}, dependent_launch());
    case 41: return f(Config41{}, dependent_launch());
    case 43: return f(Config43{}, dependent_launch());
    case 44: return f(Config44{}, dependent_launch());
    case 48: return f(Config48{}, dependent_launch());
    case 51: return f(Config4{}, dependent_launch(promote(16)));
    case 52: return f(Config4{}, dependent_launch(promote(32)));
    case 53: return f(Config4{}, dependent_launch(promote(64)));
    case 58: return f(Config58{}, dependent_launch(stream_k(promote(64))));
    case 59: return f(Config58{}, dependent_launch(promote(64)));
    case 64: return f(Config64{}, dependent_launch());
    case 65: return f(Config65{}, dependent_launch());
    case 92: return f(Config92{}, dependent_launch());
    case 42: return f(Config42{}, dependent_launch());
    case 96: return f(Config96{}, dependent_launch());
    case 100: return f(Config100{}, dependent_launch());
    case 101: return f(Config101{}, dependent_launch());
    case 102: return f(Config102{}, dependent_launch());
    case 109: return f(Config109{}, dependent_launch());
    case 110: return f(Config110{}, dependent_launch());
    case 111: return f(Config111{}, dependent_launch());
    case 112: return f(Config112{}, dependent_launch());
    case 115: return f(Config115{}, dependent_launch());
    case 116: return f(Config116{}, dependent_launch());
    case 81: return f(Config81{}, dependent_launch());
    case 82: return f(Config82{}, dependent_launch());
    // The large-M picks with the tiles walked in another order (L2 reuse of a and b).
    case 66: return f(Config4{}, dependent_launch(swizzle(2, promote(64))));
    case 67: return f(Config4{}, dependent_launch(swizzle(4, promote(64))));
    case 68: return f(Config4{}, dependent_launch(swizzle(8, promote(64))));
    case 69: return f(Config4{}, dependent_launch(raster(1, promote(64))));
    case 70: return f(Config4{}, dependent_launch(raster(2, promote(64))));
    case 71: return f(Config36{}, dependent_launch(swizzle(2)));
    case 72: return f(Config36{}, dependent_launch(swizzle(4)));
    case 73: return f(Config36{}, dependent_launch(swizzle(8)));
    case 74: return f(Config36{}, dependent_launch(raster(1)));
    case 75: return f(Config36{}, dependent_launch(raster(2)));
    // 53 promoting every 4096 of K: one drain a tile at K = 4096 where 53 has two.
    case 76: return f(Config4{}, dependent_launch(promote(128)));
#elif KL_FP8_GEMM_SWEEP == 1
    case 5: return f(Config5{}, Knobs{});
    case 6: return f(Config6{}, Knobs{});
#elif KL_FP8_GEMM_SWEEP == 2
    case 7: return f(Config7{}, Knobs{});
    case 8: return f(Config8{}, Knobs{});
    case 16: return f(Config8{}, promote(8));
#elif KL_FP8_GEMM_SWEEP == 3
    case 9: return f(Config9{}, Knobs{});
#elif KL_FP8_GEMM_SWEEP == 4
    case 1: return f(Config1{}, Knobs{});
    case 12: {
      Knobs k;
      k.decomposition = 0;  // DecompositionMode::Heuristic
      return f(Config1{}, k);
    }
    case 13: return f(Config1{}, split_evenly());
    case 14: {
      Knobs k;
      k.unordered_reduction = true;
      return f(Config1{}, k);
    }
#elif KL_FP8_GEMM_SWEEP == 5
    case 31: return f(Config31{}, dependent_launch());
    case 32: return f(Config32{}, dependent_launch());
    case 34: return f(Config34{}, dependent_launch(promote(8)));
    case 35: return f(Config35{}, dependent_launch(promote(8)));
#elif KL_FP8_GEMM_SWEEP == 6
    case 37: return f(Config37{}, dependent_launch());
    case 38: return f(Config38{}, dependent_launch());
    case 39: return f(Config38{}, dependent_launch(promote(8)));
#elif KL_FP8_GEMM_SWEEP == 7
    case 40: return f(Config40{}, dependent_launch());
#elif KL_FP8_GEMM_SWEEP == 8
    case 45: return f(Config45{}, dependent_launch());
#elif KL_FP8_GEMM_SWEEP == 9
    case 2: return f(Config2{}, Knobs{});
    case 21: return f(Config21{}, Knobs{});
    case 22: return f(Config22{}, Knobs{});
    case 23: return f(Config23{}, Knobs{});
    case 24: return f(Config2{}, split_evenly());
    case 25: return f(Config21{}, dependent_launch());
    case 26: return f(Config22{}, dependent_launch());
    case 27: return f(Config23{}, dependent_launch());
    case 28: return f(Config2{}, dependent_launch());
    case 33: return f(Config33{}, dependent_launch());
#elif KL_FP8_GEMM_SWEEP == 10
    case 46: return f(Config46{}, dependent_launch());
    case 47: return f(Config47{}, dependent_launch());
#elif KL_FP8_GEMM_SWEEP == 11
    case 49: return f(Config49{}, dependent_launch());
    case 50: return f(Config50{}, dependent_launch(promote(8)));
#elif KL_FP8_GEMM_SWEEP == 12
    case 57: return f(Config57{}, dependent_launch(stream_k()));
#elif KL_FP8_GEMM_SWEEP == 13
    case 60: return f(Config60{}, dependent_launch());
    case 61: return f(Config61{}, dependent_launch());
    case 62: return f(Config62{}, dependent_launch());
#elif KL_FP8_GEMM_SWEEP == 14
    case 63: return f(Config63{}, dependent_launch());
#elif KL_FP8_GEMM_SWEEP == 15
    case 77: return f(Config77{}, dependent_launch(promote(64)));
    case 78: return f(Config78{}, dependent_launch(promote(64)));
    case 79: return f(Config79{}, dependent_launch(promote(64)));
    case 80: return f(Config80{}, dependent_launch(promote(64)));
#elif KL_FP8_GEMM_SWEEP == 16
    case 86: return f(Config86{}, dependent_launch(split_k(2)));
    case 87: return f(Config86{}, dependent_launch(split_k(4)));
    case 88: return f(Config88{}, dependent_launch(split_k(2)));
    case 89: return f(Config88{}, dependent_launch(split_k(4)));
    case 90: return f(Config90{}, dependent_launch(split_k(2)));
    case 91: return f(Config90{}, dependent_launch(split_k(4)));
#elif KL_FP8_GEMM_SWEEP == 17
    case 97: return f(Config97{}, dependent_launch());
    case 98: return f(Config98{}, dependent_launch());
#elif KL_FP8_GEMM_SWEEP == 18
    case 99: return f(Config99{}, dependent_launch());
    case 103: return f(Config103{}, dependent_launch());
    case 104: return f(Config104{}, dependent_launch());
    case 105: return f(Config105{}, dependent_launch());
    case 106: return f(Config106{}, dependent_launch());
    case 107: return f(Config107{}, dependent_launch());
    case 108: return f(Config108{}, dependent_launch());
#elif KL_FP8_GEMM_SWEEP == 19
    case 113: return f(Config113{}, dependent_launch());
    case 114: return f(Config114{}, dependent_launch());
    case 117: return f(Config117{}, dependent_launch());
    case 118: return f(Config118{}, dependent_launch());
    case 119: return f(Config119{}, dependent_launch());
    case 120: return f(Config120{}, dependent_launch());
    case 121: return f(Config121{}, dependent_launch());
#endif
  }
  throw std::invalid_argument("fp8_gemm_cutlass: config " + std::to_string(config) + " is not in build " +
                              std::to_string(kBuild) + " (0: as shipped), which holds " + kThisBuild +
                              "; benchmarks/fp8_gemm_cutlass_check.py builds the others");
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

extern "C" int fp8_gemm_cutlass_num_configs() { return kNumConfigs; }

extern "C" const char* fp8_gemm_cutlass_config_name(int config) {
  return config >= 0 && config < kNumConfigs ? kConfigNames[config] : "unknown";
}

namespace {

// The configuration for the shape. 36, 41-44, 48, 64, 65, 81, 82, 92, 96, 100-102 and 104 have
// dependent launch already; 29 and 53 are kernels 3 and 4 launched with it.
int pick_config(int64_t m, int64_t n, int64_t k) {
  // M <= 128: the weight's bytes decide the time (see the top): swap-AB tiles of 64 weight rows
  // (128 or 256 where those fill the SMs better, below), no K split, promoted from two
  // temporaries. H200, same run as torch._scaled_mm (geometric means over the six Llama weights;
  // benchmarks/h200_session20, calls 1 and 2): 43 1.05x at M = 1 and 16, where 21 (the pick
  // before) ran 0.98-0.99x; 41 1.04x at M = 64, where 22 and 33 ran 0.94x.
  const int64_t sms = sm_count(current_device());
  const int64_t weight_tiles = kl_cdiv<int64_t>(n, 64);  // the decode kernels' 64-row tiles
  // One wave of CTAs over 3/4 of the SMs or more: where 96's and 100's taller tiles win.
  const auto one_wave_over_most_sms = [sms](int64_t tiles) { return tiles <= sms && 4 * tiles >= 3 * sms; };
  // How full persistent CTAs, one an SM, keep the SMs through their rounds of `tiles` tiles.
  const auto fill = [sms](int64_t tiles) { return double(tiles) / double(sms * kl_cdiv<int64_t>(tiles, sms)); };
  if (m <= 16) {
    // Where 43's tiles outnumber the SMs, its persistent CTAs walk two tiles or more each, and an
    // SM with one tile more than another sets the time (N = 28672: 448 tiles, 3.39 a CTA). 64 and
    // 65 put every tile's CTA on the GPU at once (3 and 2 an SM) and let the hardware share the
    // bandwidth among them: 64 while 3 an SM hold the 64-row tiles, else 65's 128-row tiles.
    // H200, two runs each beside torch._scaled_mm and 43 (h200_session28, calls 2 and 4), M = 1
    // and 16: 14336 x 4096 in 16.3-16.8 us against 43's 17.5-17.8 (_scaled_mm 17.1-17.6);
    // 28672 x 8192 in 58.6-61.3 against 61.8-62.5 (58.8-60.2). Where 43's tiles fit one wave its
    // ~20 stages keep more weight in flight a CTA and 64 and 65 lose (5-105%).
    if (weight_tiles <= sms) return 43;
    return weight_tiles <= 3 * sms ? 64 : 65;
  }
  // 17-64 tokens. H200, beside torch._scaled_mm at M = 17, 24, 32, 40, 48, 56 and 64 on the six
  // Llama weights, 0.2 s a timing (benchmarks/h200_session34, call 1; the picks' geometric means
  // 1.02, 1.02, 1.03, 0.93, 1.00, 1.03 and 1.04x):
  //  - 96 where its 256-row tiles make one wave over 3/4 of the SMs or more (N = 28672: 112
  //    tiles): 0.93-1.03x at 28672 x 8192, where 41's 448 tiles (3.4 a persistent CTA, the last
  //    round part full) ran 0.73-0.96x and 92 0.67-0.99x.
  //  - 17-32 tokens: 42's 32-token tiles, 0.97-1.13x; 41's 64-token box is half zero fill or
  //    more there, and 41 ran 0.66-0.90x.
  //  - 33-64 tokens: 92 where 41's tiles outnumber the SMs (N = 14336: 224), one CTA a tile, 2
  //    an SM, as 64 and 65 at M <= 16: 0.92-1.11x, where 41 ran 0.94-1.05x; else 41,
  //    0.91-1.09x. At 40 tokens the picks were behind at all six weights (0.91-0.97x): 41's box
  //    is 3/8 zero fill, and 42 needs two token tiles.
  //  - 33-48 tokens: 92's and 41's kernels with 48-token tiles, each k-step one 64x48 wgmma
  //    instruction: 109 where 92 was picked, 1.06x and 1.08x at 40 and 48 tokens, and 110
  //    elsewhere, 0.98-1.10x, where 41 ran 0.92-1.06x (h200_session36, call 2). Built as three
  //    64x16 instructions (CuTe's choice without CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED, sweep
  //    build 18) the same tiles had gained only on 92 (104, the pick in h200_session35).
  // Earlier (h200_session33, call 6): 41 at M = 24 ran 0.68-0.86x, where these picks now run
  // 0.93-1.13x.
  if (m <= 64) {
    if (one_wave_over_most_sms(kl_cdiv<int64_t>(n, 256))) return 96;
    if (m <= 32) return 42;
    if (m <= 48) return weight_tiles > sms ? 109 : 110;
    return weight_tiles > sms ? 92 : 41;
  }
  if (m <= 128) {
    // 41's 64-token tiles where they make one wave (N = 4096: 128 tiles; 1.05x and 1.01x at
    // K = 4096 and 14336, where 22 and 2 ran 0.89x and 0.85x). Otherwise one 128-token tile a
    // CTA: 44 where those make one wave (N = 8192: 0.93-1.00x, where 23 ran 0.88-0.93x), and
    // past that 48, whose 4x1 cluster reads each token tile from L2 once for four CTAs (N = 14336
    // and 28672: 1.02x and 0.97x, where 44 ran 0.99x and 15, the pick before, 0.94x).
    // Measured again beside the candidates below at M = 80, 96, 112 and 128 (h200_session35,
    // call 1, 0.1 s a timing):
    //  - 65-96 tokens: 44's and 48's kernels with 96-token tiles, 101 where those tiles make
    //    one wave (N = 4096 and 8192; at N = 4096 ahead of 41, one CTA for each of its two
    //    64-token tiles) and 102 past that: 0.90-1.05x at 80 and 96 tokens, where the picks
    //    before (41, 44, 48, their boxes a quarter zero fill or more) ran 0.54-0.92x;
    //    0.86-1.00x at 72 tokens (call 2).
    //  - 97-128 tokens: 100 where its 128x64 tiles make one wave over 3/4 of the SMs or more
    //    (N = 8192, as 96 above): 0.99x at 128 x 8192 x 8192 and 8192 x 28672, where 44 ran 0.98x
    //    and 0.92x; at 112 tokens 0.99x and 0.98x against 0.93x and 0.90x.
    // And with wgmma instructions as wide as the tiles (h200_session36, call 2, beside
    // torch._scaled_mm at 72, 80, 112 and 128 tokens):
    //  - 65-80 tokens: 101 and 102 with 80-token tiles (111, 112), 0.96-1.05x, where 101 and 102
    //    ran 0.86-1.03x.
    //  - 97-128 tokens where 112-wide weight tiles take two rounds or more and fill them to 95%
    //    (N = 28672: 256 tiles, 97%): cuBLASLt's unswapped 128x112 tiles (116), 1.00x at 112 and
    //    128 tokens, where 48 ran 0.97x.
    //  - 97-112 tokens where 41 is picked (N = 4096): 41 with two 56-token tiles (115), 0.92-0.94x,
    //    where 41 ran 0.86-0.92x.
    if (m <= 80) return weight_tiles <= sms ? 111 : 112;
    if (m <= 96) return weight_tiles <= sms ? 101 : 102;
    const int64_t tiles112 = kl_cdiv<int64_t>(n, 112);  // 116's weight tiles
    if (tiles112 > sms && fill(tiles112) >= 0.95) return 116;
    if (one_wave_over_most_sms(kl_cdiv<int64_t>(n, 128) * kl_cdiv<int64_t>(m, 64))) return 100;
    if (weight_tiles * kl_cdiv<int64_t>(m, 64) <= sms) return m <= 112 ? 115 : 41;
    return weight_tiles <= sms ? 44 : 48;
  }
  // Larger M. Under half a wave of 128x128 tiles (M = 256, N = 4096: 64), stream-K's split of K
  // keeps the other SMs busy (29; not measured against 36 at such shapes).
  const int64_t tiles128 = kl_cdiv<int64_t>(m, 128) * kl_cdiv<int64_t>(n, 128);
  if (tiles128 * 2 <= sms) return 29;
  const int64_t tiles = kl_cdiv<int64_t>(m, 128) * kl_cdiv<int64_t>(n, 192);  // kernel 4's
  // K <= 4096: no promotion needed (see Accuracy), so the ping-pong kernels, each warpgroup's
  // epilogue under the other's mainloop, on 128x192 tiles (81) or 128x128 (82), whichever keeps
  // the SMs busier through the last round (tiles over SMs x rounds), 82's counted at 0.95 of
  // 81's for the 20% more bytes per FLOP its smaller tile reads: at 8192 x 14336 x 4096, where
  // both fill 98-99% of their rounds, 82 ran 0.95x 81's speed. At the power cap beside
  // torch._scaled_mm (h200_session31, calls 1, 2 and 5) the pick ran 1.02-1.11x at the eight
  // shapes measured with two 128x128 tiles an SM or more, from 512 x 14336 x 4096 to 8192 x
  // 14336 x 4096, where the promoting kernels (36, 53, 76) ran 0.93-1.01x; the rule picked the
  // faster of 81 and 82 at seven, and at 8192 x 4096 x 4096, where the two swapped places
  // between calls, one within 0.7%. Below two tiles an SM a warpgroup has no second tile to
  // take turns with, and the cooperative kernels (below) split each tile over both (not
  // measured against 82 there).
  if (k <= 4096 && tiles128 >= 2 * sms) {
    return fill(tiles) >= 0.95 * fill(tiles128) ? 81 : 82;
  }
  // Few waves of 128x192 tiles: 128x128 tiles with the two-temporaries mainloop (36: no drain per
  // promotion, 1.5x the tiles), whose smaller last wave and undrained pipe beat 4's wider tile.
  // H200, same run as torch._scaled_mm (h200_session21, call 2): at M = 512 0.99x (geometric
  // mean over the six Llama weights), ahead at every weight, where the picks before (29, and 30
  // at one weight) ran 0.95x; at M = 4096, N = 4096 (5.3 waves of 4's tiles) 0.96x and 0.93x at
  // K = 4096 (36 picked there before, when K <= 4096 was part of this rule) and 14336, where 30
  // ran 0.88x and 0.87x.
  const int64_t waves = kl_cdiv<int64_t>(tiles, sms);
  // Except with many tokens and a long K where 4's tiles leave a last wave under half full: there
  // those wide tiles under stream-K (59), whose heuristic then splits the last two waves' tiles
  // along K over one wave of CTAs, so the few waves cost no idle SMs. 4096 x 4096 x 14336 is 704
  // of those tiles, 5.33 waves: whole tiles take 6 waves' time, 36's 1024 smaller ones 8 waves of
  // two thirds the work. H200, each beside torch._scaled_mm (h200_session27, calls 1 and 2): 345
  // and 357 us there against 36's 375 and 377 (_scaled_mm 353, 356); 2048 x 8192 x 28672 697
  // against 747 (723). Where the last wave is more than half full the heuristic keeps whole tiles
  // and 36 stays ahead (2048 x 4096 x 14336: 171 us against 59's 181); at K = 4096 the fixup's
  // share is larger and stream-K lost (4096^3: 36 1305 TFLOP/s, 59 1179, 57 (36 under stream-K)
  // 1193). In the bench with this rule (call 3) 4096 x 4096 x 14336 took 344 us, _scaled_mm 344.
  if (waves < 8) {
    const bool small_last_wave = tiles % sms != 0 && 2 * (tiles % sms) < sms;
    return m >= 2048 && k >= 8192 && small_last_wave ? 59 : 36;
  }
  // Many waves: kernel 4's 128x192 tiles, promoted every 2048 of K (53). Each promotion drains the
  // tensor-core pipe (see the top): CUTLASS's default is every 128, 10 and 30 every 256. The
  // geometric mean over the six Llama weights at M = 4096 and 8192 went from 0.89x and 0.94x
  // (30) to 0.92x and 0.96x (53; 51 and 52, every 512 and 1024, in between) in one run
  // (h200_session21, call 2), the Triton rung's own gain from the same change (call 1, 3-10%)
  // pointing the same way; a partial sum then carries 64 truncating wgmma k-steps, the bf16
  // output's error against float64 still inside bf16's own rounding (the check in the sweep).
  return 53;
}

}  // namespace

extern "C" int fp8_gemm_cutlass_pick(int64_t m, int64_t n, int64_t k) { return pick_config(m, n, k); }

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
