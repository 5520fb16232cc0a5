// fp8_gemm_cutlass's sweep builds: the candidate configurations that
// benchmarks/fp8_gemm_cutlass_check.py times beside the shipped picks, each sweep build one library
// (KL_FP8_GEMM_SWEEP = 1 to 19, compiled side by side). fp8_gemm_cutlass.cu includes this file in
// those builds only, after its kernel templates (Cooperative, TwoTemps, PingPong, OneConsumer) and
// run-time knobs (Knobs); the shipped build never reads it. What each candidate measured is in
// benchmarks/ (the session named beside it), and fp8_gemm_cutlass_pick.h says which won where.
//
// Every configuration by number, [n] where only sweep build n holds it. Run-time variants of the
// shipped kernels need no kernel of their own (10-20, 29, 30, 51-53 and 66-76, in the shipped
// build; 12-14 in kernel 1's build, 16 in 8's, 24-28 in 9's; 58 and 59 are one kernel, shipped):
//   1 swap-AB  128x16x128   cooperative  stream-K  (M <= 16 until 21 replaced it)             [4]
//   2 swap-AB  128x64x128   cooperative  stream-K  (M <= 128, few tiles, long K, until 41)     [9]
//   5          128x128x128  cooperative  cluster 2x1, persistent  (4 with the common tile)      [1]
//   6          128x256x128  cooperative  cluster 2x1, persistent, FAST ACCUMULATION: the speed
//              promotion costs (Accuracy, in fp8_gemm_cutlass.cu); its error at long K is
//              outside the spec's tolerance                                                   [1]
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
//   25, 26, 27, 28 = 21, 22, 23, 2 with programmatic dependent launch (fp8_gemm_cutlass.cu) [9]
//   29, 30 = 15, 10 with programmatic dependent launch (29 a pick; 30 was one until 53)
//   31 swap-AB 64x64x128    ping-pong    cluster 2x1, persistent, dependent launch          [5]
//   32 swap-AB 64x16x128    ping-pong    cluster 2x1, persistent, dependent launch          [5]
//   33 swap-AB 64x32x128    ping-pong    persistent, dependent launch (32 < M <= 64, few
//                                        weight rows, until 41)                              [9]
//   34         64x192x128   ping-pong    cluster 2x1, persistent, promoted every 256 of K,
//                                        dependent launch                                    [5]
//   35         128x96x128   ping-pong    cluster 2x1, persistent, promoted every 256 of K,
//                                        dependent launch                                    [5]
//   36         128x128x128  cooperative  cluster 2x1, persistent, two temporaries
//                                        (TwoTempsMainloop), dependent launch (a pick)
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
//                dependent launch (K <= 4096 only: Accuracy, in fp8_gemm_cutlass.cu; both shipped
//                and picked, built first as a sweep build 16 that is gone; 16 now holds 86-91)
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
//   115 = 108 with one 64x56 wgmma instruction a k-step (a pick until 119 replaced it)      [19]
//   117         128x112x128  cooperative  no cluster (116 without its cluster)               [19]
//   118 swap-AB 64x40x128  ping-pong  no cluster (41 with 40-token tiles, for 33-40 tokens)  [19]
//   119, 120 = 115 and 41 in a 1x2 cluster (the weight tile multicast to its two token tiles;
//                both picks)
//   121 swap-AB 64x72x128  ping-pong  no cluster (111 with 72-token tiles)                   [19]
//
// Why these (napkin math; the sweep must confirm):
//   - Promotion (Accuracy, in fp8_gemm_cutlass.cu) drains the tensor-core pipe: CUTLASS's fp8
//     mainloop waits for every wgmma in flight (warpgroup_wait<0>) before it adds the temporary
//     into the fp32 accumulators, then restarts. At 128x192x128 a k-tile is 4 wgmma k-steps, 6.3
//     MFLOP, ~830 cycles of an SM's tensor cores (1979 TFLOP/s / 132 SMs / 1.98 GHz), and each
//     drain idles them for the wgmma latency plus 96 FADDs per thread on 8 warps (~200 issue
//     cycles): up to ~25%, while _scaled_mm (promoting too, or it would fail the same tolerance)
//     runs 1.06-1.18x faster at M >= 4096. Promoting every 256 of K (10, 15, 16; 7 and 9 with
//     256-deep k-tiles) halves the drains; a partial sum then carries 8 k-step roundings instead of
//     4, however long K is (the check in the sweep judges it against the spec's tolerance).
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
//   - Decode after 36 (two temporaries, TwoTempsMainloop): at N = 4096 the decode kernels' 64-row
//     tiles are 64 CTAs, one tile each, so one consumer warpgroup does all of a CTA's wgmmas and
//     each SM must stream twice its share of the weight. Each promotion's drain (the wgmma latency
//     and the FADDs, per k-tile) then stands between the loads and the tensor cores. 40-45 are the
//     decode picks' tiles with the two-temporaries mainloop (ping-pong too: its consumer calls the
//     same mma(), one warpgroup's share), and 44 one 128-token tile for M = 128, which reads the
//     weight once where 64-token tiles read it twice from L2. Measured (h200_session20, calls 1 and
//     2, geometric means over the six weights): 43 1.05x _scaled_mm at M = 1 and 16 (1.00-1.13x),
//     where 21 ran 0.98-0.99x; 41 1.04x at M = 64 (0.96-1.09x), where the picks 22 and 33 ran
//     0.94x. M = 128: 41 1.05x and 1.01x at N = 4096, where 22 and 2 ran 0.89x and 0.85x; 44 1.00x
//     at N = 8192 and 14336 with K = 8192 and 4096 (23 0.93x, 15 0.98x), 0.93x at 8192 x 28672 (23
//     0.88x), 0.83x at N = 28672 (15 0.92x; see 48 below). 40, 42 and 45 were behind these
//     everywhere.
//   - L2 at M = 128: 44's CTA loads 8 KB of weight (from HBM) and 16 KB of tokens (from L2) per
//     k-tile, so while the weight streams at 4.27 TB/s, L2 must deliver three times that (~13
//     TB/s); 41 at M = 64, 8 + 8 KB, twice. A 2x1 cluster of neighbouring weight-row tiles
//     multicasts the token tile (46, 47): one L2 read for two CTAs; 4x1 (48) for four.
//     Measured (h200_session20, call 4): at M = 128, 48 1.02x and 0.97x at N = 14336 and 28672,
//     where 44 ran 0.99x and 15 0.94x; 0.61-0.67x at N = 8192, whose 128 tiles are one per CTA
//     (44 0.93-0.97x there). 46 and 47 were level or slower than 44 and 41 at M = 64 and 128.

#if !defined(KL_FP8_GEMM_SWEEP)
#error "fp8_gemm_cutlass_sweep.cuh is for the sweep builds (KL_FP8_GEMM_SWEEP = 1 to 19) only"
#endif

#if KL_FP8_GEMM_SWEEP == 1
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
//    heuristic (58's kernel is in the shipped build, 59 a pick). Never measured
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
//    temporaries (kernels 1 and 2 with the two-temporaries mainloop, and a 128-token tile). The
//    picks' 64-row tiles come in whole tiles a CTA: 28672 weight rows are 448 of them, 3.39 waves
//    on 132 SMs, so through the last 0.39 of a wave 52 SMs stream the weight alone (the picks ran
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
// 86-91. The decode picks' tiles (41's, 44's, 43's) with K split into 2 or 4 batches (SplitK, in
//    fp8_gemm_cutlass.cu): fp32 partials, summed into y by sum_partials. Measured
//    (benchmarks/h200_session33, call 1; TFLOP/s beside torch._scaled_mm, M = 1-128 at the six
//    Llama weights): slower than the unsplit tile at every shape, at the weights they were made for
//    too: 128 x 8192 x 28672 801 (88) and 752 (86) against 44's 879 (_scaled_mm 940); 128 x 4096 x
//    14336 636 (86) against 41's 683 (679); 64 x 4096 x 14336 342 (87) against 41's 399 (400). The
//    ping-pong warpgroups take turns in the mainloop, so a CTA's second work unit adds no streaming
//    of its own, and the partials and the second launch are paid on top.
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
//    shipped build (h200_session34); 97 and 98 stay here.
using Config97 = TwoTemps<Shape<_256, _64, _128>, Shape<_4, _1, _1>, gemm::PersistentScheduler, true>;
using Config98 = TwoTemps<Shape<_256, _16, _128>, Shape<_1, _1, _1>, gemm::PersistentScheduler, true>;
#elif KL_FP8_GEMM_SWEEP == 18
// 104. 92 with 48-token tiles, for 33-48 tokens where 41's tiles outnumber the SMs (N = 14336),
//    built without CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED: three 64x16 wgmma instructions a
//    k-step. Beside torch._scaled_mm at 14336 x 4096 (benchmarks/h200_session35, call 1): 1.03x
//    at 40 and 48 tokens, where 92 ran 0.92x and 0.99x; shipped then, and replaced by 109 (the same
//    tile as one 64x48 instruction) in h200_session36.
using Config104 = OneConsumer<Shape<_64, _48, _128>, 6, 2>;
// 99. 100 (shipped) in a 1x2 cluster, as cuBLASLt runs it at 128 x 8192 x 8192 and 28672
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
// CUTE_SM90_EXTENDED_MMA_SHAPES_ENABLED in fp8_gemm_cutlass.cu), now with one instruction as wide
// as the tile. In sweep build 18 (h200_session36, call 1) 105-108 ran as 64x16 or 64x8 instructions
// and lost to the tiles they meant to replace by up to 2x (108 at 112 x 4096 x 14336: 313 TFLOP/s,
// 41 573). 109-112, 115 and 116 won (h200_session36, call 2) and were shipped; 113, 114 and 117
// lost to the picks, and 118 (41 with 40-token tiles) tied with 110 at 40 tokens.
using Config113 = PingPong<Shape<_64, _112, _128>, true, Shape<_4, _1, _1>, PingpongTwoTemps>;  // 107
using Config114 = PingPong<Shape<_64, _112, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
// 115. 108 as one 64x56 instruction a k-step: 41 with 56-token tiles, two of them for 97-112
//    tokens where 41 was picked (N = 4096). At 112 tokens 433 and 612 TFLOP/s at K = 4096 and
//    14336, where 41 ran 423 and 571 (torch._scaled_mm 459 and 663; h200_session36, call 2). A
//    pick from then until 119 (115 in a 1x2 cluster), which ran 1.015-1.024x torch._scaled_mm at
//    104 and 112 tokens at N = 4096 where 115 ran 0.92-0.95x (h200_session39, call 1).
using Config115 = PingPong<Shape<_64, _56, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
// 117. 116 (shipped) without its cluster.
using Config117 = TwoTemps<Shape<_128, _112, _128>, Shape<_1, _1, _1>>;
using Config118 = PingPong<Shape<_64, _40, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
// 119 and 120 (115 and 41 in a 1x2 cluster, the weight tile multicast to its two token tiles)
//    were built here first and won at 97-128 tokens on N = 4096 (h200_session39, calls 1 and 3);
//    they are in the shipped build, fp8_gemm_cutlass.cu.
// 121. 111 with 72-token tiles, for 65-72 tokens (the 80-token box a tenth zero fill at 72
//    tokens, where 111 ran 0.95-1.01x; h200_session36, call 3). At 72 tokens 0.93-1.01x
//    torch._scaled_mm, where the pick ran 0.95-1.03x (h200_session39, call 1): not shipped.
using Config121 = PingPong<Shape<_64, _72, _128>, true, Shape<_1, _1, _1>, PingpongTwoTemps>;
#endif

// A sweep configuration's kernel and knobs, handed to f (with_config, in fp8_gemm_cutlass.cu).
template <class F>
auto with_sweep_config(int config, F&& f) {
  switch (config) {
#if KL_FP8_GEMM_SWEEP == 1
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
    case 115: return f(Config115{}, dependent_launch());
    case 117: return f(Config117{}, dependent_launch());
    case 118: return f(Config118{}, dependent_launch());
    case 121: return f(Config121{}, dependent_launch());
#endif
  }
  not_in_build(config);
}
