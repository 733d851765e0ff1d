// Where a programmatic dependent's blocks land, and what it costs.
//
// polymul's pass kernels start with `griddepcontrol.wait;
// griddepcontrol.launch_dependents;` (crates/kernels/src/gpu.rs,
// `grid_dependency_sync`), so the next kernel of a chain is launched while
// the current one runs, and its blocks become resident on whatever room the
// SMs have left. docs/ntt.md ("Dependent grids under one wave") inferred
// from timings that a grid under one wave, of a kernel of which two or more
// blocks fit an SM, then crowds some SMs and leaves others idle, and that
// asking for just over half an SM's shared memory holds it to one block per
// SM. This probe records `%smid` for every block of a chain of three such
// kernels of 512-thread blocks (the first of B1 blocks, the two dependents
// of B2 each; polymul's `u64` 2^17 × 3 polymul: a row pass of 192 blocks,
// then the product pass of 96 blocks of 66 KiB), the dependents launched
//   plain:  without the programmatic attribute;
//   pdl:    as programmatic dependents, with the kernel's own shared memory;
//   held:   as programmatic dependents asking for 1/(t + 1) of the SM's
//           shared memory plus 1 KiB, t = ceil(B2 / SMs) (polymul's
//           `spread_table`);
// and prints, for the second and third kernel of each chain, the SMs its
// blocks used, the most blocks on one SM and the span of its blocks' work
// (first start to last end, `%globaltimer`), each block doing the same
// fixed amount of integer work after the wait.
//
// Build and run on the GPU machine:
//   nvcc -O3 -arch=sm_90 -o placement scripts/placement.cu && ./placement [B1 B2 KIB ROUNDS]
// (default 96 96 16 400).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>

struct Rec {
    unsigned smid;
    unsigned long long start, end;
};

__device__ __forceinline__ unsigned smid() {
    unsigned r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}
__device__ __forceinline__ unsigned long long now() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// The start of polymul's pass kernels, then `rounds` of dependent 64-bit
// multiply-adds with four independent chains per thread (issue-bound: two
// blocks on one SM share its schedulers).
__global__ void pass(Rec* rec, unsigned long long* sink, int rounds) {
    asm volatile("griddepcontrol.wait;\n\tgriddepcontrol.launch_dependents;" ::: "memory");
    unsigned long long t0 = now();
    unsigned long long a = threadIdx.x + 1, b = blockIdx.x + 3, c = a ^ 0x9e3779b97f4a7c15ull, d = b * 7;
#pragma unroll 1
    for (int r = 0; r < rounds; r++) {
#pragma unroll
        for (int k = 0; k < 8; k++) {
            a = a * 0x5851f42d4c957f2dull + b;
            b = b * 0x14057b7ef767814full + c;
            c = c * 0x2545f4914f6cdd1dull + d;
            d = d * 0x9e3779b97f4a7c15ull + a;
        }
    }
    if ((a ^ b ^ c ^ d) == 42) sink[0] = a;  // keeps the work alive
    __syncthreads();
    if (threadIdx.x == 0) rec[blockIdx.x] = Rec{smid(), t0, now()};
}

static void check(cudaError_t e, const char* what) {
    if (e != cudaSuccess) {
        fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
        exit(1);
    }
}

static void launch(bool pdl, int blocks, size_t smem, Rec* rec, unsigned long long* sink, int rounds,
                   cudaStream_t s) {
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(blocks);
    cfg.blockDim = dim3(512);
    cfg.dynamicSmemBytes = smem;
    cfg.stream = s;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    cfg.numAttrs = pdl ? 1 : 0;
    check(cudaLaunchKernelEx(&cfg, pass, rec, sink, rounds), "launch");
}

int main(int argc, char** argv) {
    // Blocks of the first kernel, of the two dependents, the kernels' own
    // shared memory (KiB) and the work per block.
    int b1 = argc > 1 ? atoi(argv[1]) : 96, blocks = argc > 2 ? atoi(argv[2]) : 96;
    size_t own = (argc > 3 ? atoi(argv[3]) : 16) * 1024;
    int rounds = argc > 4 ? atoi(argv[4]) : 400;
    int dev = 0, sms = 0, sm_smem = 0;
    check(cudaGetDevice(&dev), "device");
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    cudaDeviceGetAttribute(&sm_smem, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
    // polymul's spread_table: t = ceil(blocks / SMs), 1/(t + 1) of the SM plus 1 KiB.
    int t = (blocks + sms - 1) / sms;
    size_t held = std::max(own, (size_t)(sm_smem / (t + 1) + 1024));
    check(cudaFuncSetAttribute(pass, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)held), "opt in");
    int fit_own = 0, fit_held = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit_own, pass, 512, own);
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&fit_held, pass, 512, held);
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, dev);
    printf("%s, %d SMs, %d B shared per SM; first kernel %d blocks, dependents %d blocks of 512 threads, %d rounds; "
           "blocks per SM: %d at %zu B, %d at %zu B\n",
           p.name, sms, sm_smem, b1, blocks, rounds, fit_own, own, fit_held, held);
    Rec* rec;
    unsigned long long* sink;
    check(cudaMalloc(&rec, (b1 + 2 * blocks) * sizeof(Rec)), "malloc");
    check(cudaMalloc(&sink, 8), "malloc");
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    const char* names[3] = {"plain", "pdl", "held"};
    printf("| chain | kernel | SMs used | most blocks on one SM | span (us) | chain (us) |\n|---|---|---|---|---|---|\n");
    for (int rep = 0; rep < 3; rep++) {
        for (int v = 0; v < 3; v++) {
            bool pdl = v > 0;
            size_t smem = v == 2 ? held : own;
            cudaEvent_t e0, e1;
            cudaEventCreate(&e0);
            cudaEventCreate(&e1);
            cudaEventRecord(e0, s);
            // The first kernel of the chain always asks for its own memory,
            // as polymul's first pass does after a wave or more.
            launch(false, b1, own, rec, sink, rounds, s);
            for (int k = 1; k < 3; k++) launch(pdl, blocks, smem, rec + b1 + (k - 1) * blocks, sink, rounds, s);
            cudaEventRecord(e1, s);
            check(cudaStreamSynchronize(s), "run");
            float ms;
            cudaEventElapsedTime(&ms, e0, e1);
            std::vector<Rec> h(b1 + 2 * blocks);
            cudaMemcpy(h.data(), rec, h.size() * sizeof(Rec), cudaMemcpyDeviceToHost);
            if (rep < 2) continue;  // the first two are warm-up
            for (int k = 1; k < 3; k++) {
                std::vector<int> per(sms, 0);
                unsigned long long lo = ~0ull, hi = 0;
                for (int i = 0; i < blocks; i++) {
                    Rec r = h[b1 + (k - 1) * blocks + i];
                    if (r.smid < (unsigned)sms) per[r.smid]++;
                    lo = std::min(lo, r.start);
                    hi = std::max(hi, r.end);
                }
                int used = 0, most = 0;
                for (int c : per) used += c > 0, most = std::max(most, c);
                printf("| %s | %d | %d | %d | %.2f | ", names[v], k + 1, used, most, (hi - lo) / 1e3);
                if (k == 2) printf("%.2f |\n", ms * 1e3);
                else printf("|\n");
            }
        }
    }
    return 0;
}
