// Texts the tests share.

// A small systolic-array target (after hwdesc/systolic16.isam): three memories, DMA moves and
// one matrix instruction, `mma`, between the marker comments.
export const miniTarget = `// mini: a 16 x 16 systolic array, for the tests.
target mini {
  clock 1 GHz;

  memory DRAM { size 4 GiB; bandwidth 32 B/cycle; latency 100; }
  memory SPAD : DRAM { size 256 KiB; line 64 B; bandwidth 256 B/cycle; }
  memory ACC : SPAD { size 64 KiB; line 64 B; bandwidth 128 B/cycle; }

  unit dma { count 1; }
  unit array { count 1; }

  move mvin<R>(dst: out f32[R, 16] in SPAD, src: f32[R, 16] in DRAM) on dma {
    dst[i, j] = src[i, j];
  } cost { latency 100; bandwidth 16 B/cycle; } asm "mvin {dst}, {src}, {R}";
  move mvin_acc<R>(dst: out f32[R, 16] in ACC, src: f32[R, 16] in DRAM) on dma {
    dst[i, j] = src[i, j];
  } cost { latency 100; bandwidth 16 B/cycle; } asm "mvin_acc {dst}, {src}, {R}";
  move mvout<R>(dst: out f32[R, 16] in DRAM, src: f32[R, 16] in ACC) on dma {
    dst[i, j] = src[i, j];
  } cost { latency 100; bandwidth 16 B/cycle; } asm "mvout {dst}, {src}, {R}";

  // mma begins
  instr mma(acc: inout f32[16, 16] in ACC, a: f32[16, 16] in SPAD, b: f32[16, 16] in SPAD)
      on array {
    acc[i, j] += a[i, k] * b[k, j];
  } cost { latency 48; per_cycle 1/16; } asm "matmul {acc}, {a}, {b}";
  // mma ends
}
`;

// A GEMM importing mini.isam, with a schedule block that names mini's instruction and memory.
export const miniKernel = `import "mini.isam";

kernel gemm<M, N, K>(A: f32[M, K], B: f32[K, N]) -> (C: f32[M, N]) {
  C[m, n] += A[m, k] * B[k, n];
  schedule { map mma; tile SPAD: m 16, n 16, k 16; }
}
instance g = gemm<64, 64, 64>;
`;
