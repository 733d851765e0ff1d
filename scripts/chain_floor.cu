// The floor under one-polynomial calls: chains of K dependent kernels that each
// read one polynomial from device memory and write it back (the data movement
// of K passes, nothing else), against chains of K empty kernels, on the same
// GPU in the same run.
//
// Every kernel opens as polymul's passes do (crates/kernels/src/gpu.rs,
// grid_dependency_sync): griddepcontrol.wait, then launch_dependents, then its
// loads. Each chain is launched three ways, as polymul's latency table times
// a call (crates/bench/src/latency.rs):
//   b2b   : 1000 chains queued on one stream, events around all, per chain (from one
//           host thread through cudaLaunchKernelEx, so it times the runtime's launch
//           cost as much as the GPU; the summaries use graph x100);
//   graph : one chain captured into a CUDA graph, 100 replays queued, per replay;
//   plain : the chain launched 200 times, each timed alone (events), median.
// Programmatic launches (cudaLaunchAttributeProgrammaticStreamSerialization)
// are on for every kernel after the first of a chain, as polymul launches them.
//
// Then the latency of one lazy butterfly (harvey::ct of crates/kernels/src/arith/harvey.rs,
// the body of polymul's floor kernel microbench::lazy_butterflies, written out in CUDA):
// one thread, two butterflies per step
// as a latency pass has (4 words per thread), each step depending on the last;
// cycles (clock64) and ns (%globaltimer) per step.
//
// Then one exchange through shared memory between two steps of a pass (store,
// barrier, load, barrier), in cycles.
//
// usage: chain_floor WORDS WORD_BYTES BLOCKS THREADS
//   e.g. chain_floor 65536 8 128 128    (one u64 polynomial of 2^16 words, the latency passes' grid)
// prints one line per (kind, K) with the three times in µs.
// Build on the GPU machine: nvcc -O3 -arch=sm_90 -o chain_floor chain_floor.cu
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                        \
    do {                                                                             \
        cudaError_t e_ = (x);                                                        \
        if (e_ != cudaSuccess) {                                                     \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

__device__ __forceinline__ void dep_sync() {
    asm volatile("griddepcontrol.wait;\n\tgriddepcontrol.launch_dependents;" ::: "memory");
}

__global__ void empty_pass(const uint4*, uint4*, unsigned) { dep_sync(); }

// Each thread moves its 16-byte chunks t, t + threads, ... (coalesced).
__global__ void copy_pass(const uint4* in, uint4* out, unsigned chunks) {
    dep_sync();
    unsigned stride = gridDim.x * blockDim.x;
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < chunks; i += stride) out[i] = in[i];
}

template <class T>
__device__ __forceinline__ T mulhi_(T a, T b);
template <>
__device__ __forceinline__ unsigned long long mulhi_(unsigned long long a, unsigned long long b) {
    return __umul64hi(a, b);
}
template <>
__device__ __forceinline__ unsigned mulhi_(unsigned a, unsigned b) { return __umulhi(a, b); }

// Harvey's lazy butterfly (values in [0, 4q)): the floor kernel's body.
template <class T>
__device__ __forceinline__ void bfly(T& a, T& b, T w, T ws, T q) {
    T q2 = q << 1;
    a = a >= q2 ? a - q2 : a;
    T t = w * b - mulhi_(b, ws) * q;
    b = a + q2 - t;
    a = a + t;
}

template <class T>
__global__ void bfly_latency(T* out, T w, T ws, T q, int steps, long long* cyc, unsigned long long* ns) {
    T x0 = threadIdx.x + 1, x1 = x0 + 2, x2 = x0 + 3, x3 = x0 + 5;
    unsigned long long g0, g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
    long long c0 = clock64();
    for (int s = 0; s < steps; s++) {
        // One radix-2 stage over the thread's four words: two independent butterflies,
        // then the next stage pairs them the other way (as registers of a radix-4 step).
        if (s & 1) {
            bfly(x0, x1, w, ws, q);
            bfly(x2, x3, w, ws, q);
        } else {
            bfly(x0, x2, w, ws, q);
            bfly(x1, x3, w, ws, q);
        }
    }
    long long c1 = clock64();
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
    out[threadIdx.x] = x0 ^ x1 ^ x2 ^ x3;
    if (threadIdx.x == 0) {
        *cyc = c1 - c0;
        *ns = g1 - g0;
    }
}

template <class T>
static void latency_line(T q) {
    T *out;
    long long* cyc;
    unsigned long long* ns;
    CK(cudaMalloc(&out, 32 * sizeof(T)));
    CK(cudaMallocManaged(&cyc, sizeof(long long)));
    CK(cudaMallocManaged(&ns, sizeof(unsigned long long)));
    const int steps = 1 << 16;
    T w = q / 3, ws = (T)(((unsigned __int128)w << (8 * sizeof(T))) / q);
    for (int r = 0; r < 3; r++) {
        bfly_latency<T><<<1, 1>>>(out, w, ws, q, steps, cyc, ns);
        CK(cudaDeviceSynchronize());
    }
    printf("bfly-latency u%zu | %.1f cycles per stage | %.2f ns per stage (two independent butterflies each)\n",
           8 * sizeof(T), (double)*cyc / steps, (double)*ns / steps);
    CK(cudaFree(out));
    CK(cudaFree(cyc));
    CK(cudaFree(ns));
}

// One exchange of a latency pass between its steps: every thread stores its four words to
// shared memory, the block waits at a barrier, every thread loads four words another
// thread stored, and the block waits again before the tile is reused; one 128-thread
// block, cycles (clock64) per exchange.
template <class T>
__global__ void exchange_latency(T* out, int steps, long long* cyc) {
    __shared__ T tile[4 * 128];
    unsigned t = threadIdx.x;
    T x0 = t, x1 = t + 1, x2 = t + 2, x3 = t + 3;
    __syncthreads();
    long long c0 = clock64();
    for (int s = 0; s < steps; s++) {
        tile[t] = x0;
        tile[t + 128] = x1;
        tile[t + 256] = x2;
        tile[t + 384] = x3;
        __syncthreads();
        unsigned u = (t * 4 + (unsigned)s) & 127;
        x0 = tile[u] + 1;
        x1 = tile[u + 128];
        x2 = tile[u + 256];
        x3 = tile[u + 384];
        __syncthreads();
    }
    long long c1 = clock64();
    out[t] = x0 ^ x1 ^ x2 ^ x3;
    if (t == 0) *cyc = c1 - c0;
}

template <class T>
static void exchange_line() {
    T* out;
    long long* cyc;
    CK(cudaMalloc(&out, 128 * sizeof(T)));
    CK(cudaMallocManaged(&cyc, sizeof(long long)));
    const int steps = 1 << 14;
    for (int r = 0; r < 3; r++) {
        exchange_latency<T><<<1, 128>>>(out, steps, cyc);
        CK(cudaDeviceSynchronize());
    }
    printf("exchange-latency u%zu | %.1f cycles per exchange (128 threads, four words each)\n", 8 * sizeof(T),
           (double)*cyc / steps);
    CK(cudaFree(out));
    CK(cudaFree(cyc));
}

typedef void (*Pass)(const uint4*, uint4*, unsigned);

struct Setup {
    uint4 *a, *b;
    unsigned chunks, blocks, threads;
    cudaStream_t s;
};

static void chain(const Setup& st, Pass f, int k) {
    for (int i = 0; i < k; i++) {
        cudaLaunchConfig_t c = {};
        c.gridDim = dim3(st.blocks);
        c.blockDim = dim3(st.threads);
        c.stream = st.s;
        cudaLaunchAttribute at[1];
        at[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
        at[0].val.programmaticStreamSerializationAllowed = 1;
        c.attrs = at;
        c.numAttrs = i > 0 ? 1 : 0;
        const uint4* in = (i & 1) ? st.b : st.a;
        uint4* out = (i & 1) ? st.a : st.b;
        CK(cudaLaunchKernelEx(&c, f, in, out, st.chunks));
    }
}

static float events_us(const Setup& st, cudaEvent_t e0, cudaEvent_t e1) {
    CK(cudaEventSynchronize(e1));
    float ms;
    CK(cudaEventElapsedTime(&ms, e0, e1));
    return ms * 1e3f;
}

static float median(std::vector<float> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

int main(int argc, char** argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: chain_floor WORDS WORD_BYTES BLOCKS THREADS\n");
        return 2;
    }
    size_t words = strtoull(argv[1], 0, 10), wb = strtoull(argv[2], 0, 10);
    Setup st;
    st.blocks = atoi(argv[3]);
    st.threads = atoi(argv[4]);
    st.chunks = (unsigned)(words * wb / 16);
    CK(cudaMalloc(&st.a, st.chunks * 16));
    CK(cudaMalloc(&st.b, st.chunks * 16));
    CK(cudaMemset(st.a, 1, st.chunks * 16));
    CK(cudaStreamCreateWithFlags(&st.s, cudaStreamNonBlocking));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    printf("# %s, %d SMs; %zu words of %zu bytes (%zu KiB), %u blocks x %u threads\n", p.name,
           p.multiProcessorCount, words, wb, words * wb / 1024, st.blocks, st.threads);
    printf("# kind K | b2b us per chain | graph x100 us per replay | plain us (median of 200)\n");
    const char* names[2] = {"empty", "copy"};
    Pass passes[2] = {empty_pass, copy_pass};
    for (int kind = 0; kind < 2; kind++) {
        for (int k = 1; k <= 4; k++) {
            Pass f = passes[kind];
            for (int w = 0; w < 50; w++) chain(st, f, k);
            CK(cudaStreamSynchronize(st.s));
            std::vector<float> b2b;
            for (int r = 0; r < 3; r++) {
                CK(cudaEventRecord(e0, st.s));
                for (int i = 0; i < 1000; i++) chain(st, f, k);
                CK(cudaEventRecord(e1, st.s));
                b2b.push_back(events_us(st, e0, e1) / 1000);
            }
            cudaGraph_t g;
            cudaGraphExec_t ge;
            CK(cudaStreamBeginCapture(st.s, cudaStreamCaptureModeThreadLocal));
            chain(st, f, k);
            CK(cudaStreamEndCapture(st.s, &g));
            CK(cudaGraphInstantiate(&ge, g, 0));
            for (int w = 0; w < 20; w++) CK(cudaGraphLaunch(ge, st.s));
            std::vector<float> gr;
            for (int r = 0; r < 5; r++) {
                CK(cudaEventRecord(e0, st.s));
                for (int i = 0; i < 100; i++) CK(cudaGraphLaunch(ge, st.s));
                CK(cudaEventRecord(e1, st.s));
                gr.push_back(events_us(st, e0, e1) / 100);
            }
            std::vector<float> plain;
            for (int r = 0; r < 200; r++) {
                CK(cudaEventRecord(e0, st.s));
                chain(st, f, k);
                CK(cudaEventRecord(e1, st.s));
                plain.push_back(events_us(st, e0, e1));
            }
            printf("%s %d | %.2f | %.2f | %.2f\n", names[kind], k, median(b2b), median(gr), median(plain));
            CK(cudaGraphExecDestroy(ge));
            CK(cudaGraphDestroy(g));
        }
    }
    if (wb == 8) {
        latency_line<unsigned long long>((1ull << 62) - 57);
        exchange_line<unsigned long long>();
    } else {
        latency_line<unsigned>((1u << 30) - 35);
        exchange_line<unsigned>();
    }
    int khz = 0;
    CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, 0));
    printf("# SM clock attribute: %d MHz\n", khz / 1000);
    return 0;
}
