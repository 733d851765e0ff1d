// The compute floor of the DGT: register-only Gaussian butterflies over GF(p^2), the
// arithmetic of polymul's DGT passes (crates/kernels/src/dgt/gauss.rs and unit.rs)
// written out in CUDA: the Gentleman-Sande butterfly (x, y) -> (x + y, (x - y) * w)
// of the forward, with Gauss::add / Gauss::sub (add_mod / sub_mod on each part) and
// Gauss::mul_op (four Shoup products, each with its one correction, then sub_mod and
// add_mod), on u32 words and a 30-bit p. Same shape as polymul's butterfly floor
// (Gpu::lazy_butterfly_rate, crates/kernels/src/microbench.rs): 132 x 8 blocks of 256
// threads, 8 Gaussians per thread, rounds of 4 butterflies, the result kept alive.
//
// Prints Gaussian butterflies per second and the floor of one forward DGT of N = 2^16
// (M = 2^15 points: M/2 * log2 M = 245,760 butterflies, the weights not counted).
// Build and run on the GPU machine: nvcc -O3 -arch=sm_90 -o gauss_floor gauss_floor.cu
#include <cstdio>
typedef unsigned U32;

__device__ __forceinline__ U32 add_mod(U32 a, U32 b, U32 p) {
    U32 s = a + b;
    return s >= p ? s - p : s;
}
__device__ __forceinline__ U32 sub_mod(U32 a, U32 b, U32 p) {
    U32 d = a - b;
    return a < b ? d + p : d;
}
// Shoup's product with one correction: x * w mod p, w' = floor(w 2^32 / p).
__device__ __forceinline__ U32 mul(U32 x, U32 w, U32 ws, U32 p) {
    U32 r = x * w - __umulhi(x, ws) * p;
    return r >= p ? r - p : r;
}

__global__ void gauss_butterflies(U32* out, U32 wr, U32 wrs, U32 wi, U32 wis, U32 p, int rounds) {
    U32 re[8], im[8];
    for (int i = 0; i < 8; i++) {
        re[i] = (threadIdx.x * 8 + i) & 0xffff;
        im[i] = (threadIdx.x * 8 + i + 3) & 0xffff;
    }
#pragma unroll 1
    for (int r = 0; r < rounds; r++) {
#pragma unroll
        for (int i = 0; i < 4; i++) {
            U32 ar = re[i], ai = im[i], br = re[i + 4], bi = im[i + 4];
            U32 sr = add_mod(ar, br, p), si = add_mod(ai, bi, p);
            U32 dr = sub_mod(ar, br, p), di = sub_mod(ai, bi, p);
            re[i] = sr;
            im[i] = si;
            re[i + 4] = sub_mod(mul(dr, wr, wrs, p), mul(di, wi, wis, p), p);
            im[i + 4] = add_mod(mul(dr, wi, wis, p), mul(di, wr, wrs, p), p);
        }
    }
    U32 acc = 0;
    for (int i = 0; i < 8; i++) acc ^= re[i] ^ im[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

int main() {
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    const int blocks = sms * 8, threads = 256, rounds = 20000;
    const U32 p = (1u << 30) - 35;
    const U32 wr = p / 3, wi = p / 5;
    const U32 wrs = (U32)(((unsigned long long)wr << 32) / p), wis = (U32)(((unsigned long long)wi << 32) / p);
    U32* out;
    cudaMalloc(&out, (size_t)blocks * threads * sizeof(U32));
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    gauss_butterflies<<<blocks, threads>>>(out, wr, wrs, wi, wis, p, rounds);  // warm-up
    float best = 1e30f;
    for (int rep = 0; rep < 5; rep++) {
        cudaEventRecord(a);
        gauss_butterflies<<<blocks, threads>>>(out, wr, wrs, wi, wis, p, rounds);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        best = ms < best ? ms : best;
    }
    double per_s = 4.0 * blocks * threads * rounds / (best * 1e-3);
    printf("u32 Gaussian GS butterflies, 30-bit p: %.1f G/s (best of 5); one forward DGT of N = 2^16 "
           "(245760 butterflies) needs >= %.3f us of compute\n",
           per_s / 1e9, 245760.0 / per_s * 1e6);
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) {
        printf("CUDA error: %s\n", cudaGetErrorString(e));
        return 1;
    }
    return 0;
}
