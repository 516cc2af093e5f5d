// LARCH_HOST_DEVICE: marks a small function that both host code and device kernels call (the per-column
// rules of the Krylov step kernels, the block-Jacobi storage rules, the batched item algorithms, the
// counter-based random numbers), so that one definition serves every backend. nvcc and hipcc compile it for
// both sides; a host compiler sees a plain inline function.
#pragma once

#if defined(__CUDACC__) || defined(__HIP__)
#define LARCH_HOST_DEVICE __host__ __device__ inline
#else
#define LARCH_HOST_DEVICE inline
#endif
