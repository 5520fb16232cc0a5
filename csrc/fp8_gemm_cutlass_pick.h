// fp8_gemm_cutlass's dispatch: the configuration of csrc/fp8_gemm_cutlass.cu that runs an
// m x n x k problem on a GPU with `sms` SMs. Plain host C++ (no CUDA, no CUTLASS), so that it reads
// on its own and tests compile and check it on any machine (tests/test_fp8_gemm_pick.py: every pick
// is a kernel the shipped build holds, from 1 to 264 SMs, and on an H200's 132 SMs every shipped
// kernel is picked somewhere). The configurations are listed at the top of fp8_gemm_cutlass.cu.
#pragma once

#include <cstdint>

namespace kl_fp8_gemm {

constexpr int64_t cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

inline int pick_config(int64_t m, int64_t n, int64_t k, int64_t sms) {
  // M <= 128: the weight's bytes decide the time (the napkin math at the top of
  // fp8_gemm_cutlass.cu): swap-AB tiles of 64 weight rows (128 or 256 where those fill the SMs
  // better, below), no K split, promoted from two temporaries. H200, same run as torch._scaled_mm
  // (geometric means over the six Llama weights; benchmarks/h200_session20, calls 1 and 2): 43
  // 1.05x at M = 1 and 16, where 21 (the pick before) ran 0.98-0.99x; 41 1.04x at M = 64, where 22
  // and 33 ran 0.94x.
  const int64_t weight_tiles = cdiv(n, 64);  // the decode kernels' 64-row tiles
  // One wave of CTAs over 3/4 of the SMs or more: where 96's and 100's taller tiles win.
  const auto one_wave_over_most_sms = [sms](int64_t tiles) {
    return tiles <= sms && 4 * tiles >= 3 * sms;
  };
  // How full persistent CTAs, one an SM, keep the SMs through their rounds of `tiles` tiles.
  const auto fill = [sms](int64_t tiles) { return double(tiles) / double(sms * cdiv(tiles, sms)); };
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
    if (one_wave_over_most_sms(cdiv(n, 256))) return 96;
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
    // And with the weight tile multicast to its two token tiles (h200_session39, calls 1 and 3):
    //  - 97-128 tokens where 64-row weight tiles make one wave with both token tiles (N = 4096):
    //    115 and 41 in a 1x2 cluster (119 and 120), 1.015-1.024x at 104 and 112 tokens where 115
    //    ran 0.92-0.95x, and 1.11-1.19x at 120 and 128 tokens where 41 ran 1.01-1.07x.
    if (m <= 80) return weight_tiles <= sms ? 111 : 112;
    if (m <= 96) return weight_tiles <= sms ? 101 : 102;
    const int64_t tiles112 = cdiv(n, 112);  // 116's weight tiles
    if (tiles112 > sms && fill(tiles112) >= 0.95) return 116;
    if (one_wave_over_most_sms(cdiv(n, 128) * cdiv(m, 64))) return 100;
    if (weight_tiles * cdiv(m, 64) <= sms) return m <= 112 ? 119 : 120;
    return weight_tiles <= sms ? 44 : 48;
  }
  // Larger M. Under half a wave of 128x128 tiles (M = 256, N = 4096: 64), stream-K's split of K
  // keeps the other SMs busy (29; not measured against 36 at such shapes).
  const int64_t tiles128 = cdiv(m, 128) * cdiv(n, 128);
  if (tiles128 * 2 <= sms) return 29;
  const int64_t tiles = cdiv(m, 128) * cdiv(n, 192);  // kernel 4's
  // K <= 4096: no promotion needed (Accuracy, in fp8_gemm_cutlass.cu), so the ping-pong kernels,
  // each warpgroup's epilogue under the other's mainloop, on 128x192 tiles (81) or 128x128 (82),
  // whichever keeps the SMs busier through the last round (tiles over SMs x rounds), 82's counted
  // at 0.95 of 81's for the 20% more bytes per FLOP its smaller tile reads: at 8192 x 14336 x 4096,
  // where both fill 98-99% of their rounds, 82 ran 0.95x 81's speed. At the power cap beside
  // torch._scaled_mm (h200_session31, calls 1, 2 and 5) the pick ran 1.02-1.11x at the eight shapes
  // measured with two 128x128 tiles an SM or more, from 512 x 14336 x 4096 to 8192 x 14336 x 4096,
  // where the promoting kernels (36, 53, 76) ran 0.93-1.01x; the rule picked the faster of 81 and
  // 82 at seven, and at 8192 x 4096 x 4096, where the two swapped places between calls, one within
  // 0.7%. Below two tiles an SM a warpgroup has no second tile to take turns with, and the
  // cooperative kernels (below) split each tile over both (not measured against 82 there).
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
  const int64_t waves = cdiv(tiles, sms);
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
  // tensor-core pipe (fp8_gemm_cutlass.cu, Accuracy): CUTLASS's default is every 128, 10 and 30
  // every 256. The geometric mean over the six Llama weights at M = 4096 and 8192 went from 0.89x
  // and 0.94x (30) to 0.92x and 0.96x (53; 51 and 52, every 512 and 1024, in between) in one run
  // (h200_session21, call 2), the Triton rung's own gain from the same change (call 1, 3-10%)
  // pointing the same way; a partial sum then carries 64 truncating wgmma k-steps, the bf16
  // output's error against float64 still inside bf16's own rounding (the check in the sweep).
  return 53;
}

}  // namespace kl_fp8_gemm
