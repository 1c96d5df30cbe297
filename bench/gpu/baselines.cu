// nvcc baselines for bench/gpu/run.py: the classic transposes of NVIDIA's "An Efficient Matrix Transpose in
// CUDA C/C++" (32×32 tiles, 32×8 threads, each thread moving 4 elements), compiled by run.py with
// `nvcc -O3 -arch=sm_XX -cubin`. Same launch shape as the lego kernels: grid (n/32, n/32), block (32, 8).

#define TILE_DIM 32
#define BLOCK_ROWS 8

// Coalesced reads, strided writes.
extern "C" __global__ void transpose_naive_nvcc(const float *in, float *out, int n) {
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    out[x * n + (y + j)] = in[(y + j) * n + x];
}

// Through a shared tile padded to 33 columns (no bank conflicts): coalesced reads and writes.
extern "C" __global__ void transpose_smem_nvcc(const float *in, float *out, int n) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}
