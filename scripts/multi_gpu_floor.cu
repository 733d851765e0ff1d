// The copy floors of a multi-GPU host (issue 35): for every GPU, pinned host <-> device
// copies alone; the same copies on every GPU at once (the host's and the PCIe switches'
// shared limits); and peer copies between every ordered pair of GPUs (through NVLink
// or PCIe, whichever the driver uses), alone and all pairs at once.
//
// usage: multi_gpu_floor [MIB]   (bytes per copy, default 256 MiB)
// Prints one line per measurement: GB/s, and for concurrent copies the aggregate.
// Build on the GPU machine: nvcc -O3 -o multi_gpu_floor multi_gpu_floor.cu
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

typedef std::chrono::steady_clock Clock;

struct Dev {
    void* d;   // device buffer
    void* d2;  // second device buffer (peer target)
    void* h;   // pinned host buffer
    cudaStream_t s;
};

static double secs(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

// Runs `issue` on the listed devices at once (each on its own stream), waits for all;
// best of 5 wall-clock times after one warm-up.
template <class F>
static double timed(std::vector<Dev>& devs, const std::vector<int>& which, F issue) {
    double best = 1e30;
    for (int rep = 0; rep < 6; rep++) {
        for (int i : which) {
            CK(cudaSetDevice(i));
            CK(cudaStreamSynchronize(devs[i].s));
        }
        auto t0 = Clock::now();
        for (int i : which) {
            CK(cudaSetDevice(i));
            issue(i);
        }
        for (int i : which) {
            CK(cudaSetDevice(i));
            CK(cudaStreamSynchronize(devs[i].s));
        }
        double t = secs(t0, Clock::now());
        if (rep > 0 && t < best) best = t;
    }
    return best;
}

int main(int argc, char** argv) {
    size_t mib = argc > 1 ? strtoull(argv[1], 0, 10) : 256;
    size_t bytes = mib << 20;
    int n = 0;
    CK(cudaGetDeviceCount(&n));
    std::vector<Dev> devs(n);
    for (int i = 0; i < n; i++) {
        cudaDeviceProp p;
        CK(cudaGetDeviceProperties(&p, i));
        printf("# GPU %d: %s, PCI %04x:%02x:%02x\n", i, p.name, p.pciDomainID, p.pciBusID, p.pciDeviceID);
        CK(cudaSetDevice(i));
        CK(cudaMalloc(&devs[i].d, bytes));
        CK(cudaMalloc(&devs[i].d2, bytes));
        CK(cudaMemset(devs[i].d, 1, bytes));
        CK(cudaMallocHost(&devs[i].h, bytes));
        memset(devs[i].h, 2, bytes);
        CK(cudaStreamCreateWithFlags(&devs[i].s, cudaStreamNonBlocking));
    }
    printf("# %zu MiB per copy; GB/s = bytes / best of 5 wall-clock times\n", mib);
    std::vector<int> all;
    for (int i = 0; i < n; i++) all.push_back(i);
    auto h2d = [&](int i) { CK(cudaMemcpyAsync(devs[i].d, devs[i].h, bytes, cudaMemcpyHostToDevice, devs[i].s)); };
    auto d2h = [&](int i) { CK(cudaMemcpyAsync(devs[i].h, devs[i].d, bytes, cudaMemcpyDeviceToHost, devs[i].s)); };
    for (int i = 0; i < n; i++) {
        std::vector<int> one{i};
        printf("h2d GPU %d alone | %.1f GB/s\n", i, bytes / timed(devs, one, h2d) / 1e9);
        printf("d2h GPU %d alone | %.1f GB/s\n", i, bytes / timed(devs, one, d2h) / 1e9);
    }
    if (n > 1) {
        double t = timed(devs, all, h2d);
        printf("h2d all %d at once | %.1f GB/s aggregate, %.1f per GPU\n", n, n * bytes / t / 1e9, bytes / t / 1e9);
        t = timed(devs, all, d2h);
        printf("d2h all %d at once | %.1f GB/s aggregate, %.1f per GPU\n", n, n * bytes / t / 1e9, bytes / t / 1e9);
    }
    // Peer copies: enable access both ways where the driver allows it.
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i == j) continue;
            int can = 0;
            CK(cudaDeviceCanAccessPeer(&can, i, j));
            if (can) {
                CK(cudaSetDevice(i));
                cudaError_t e = cudaDeviceEnablePeerAccess(j, 0);
                if (e != cudaSuccess && e != cudaErrorPeerAccessAlreadyEnabled) CK(e);
                cudaGetLastError();
            }
            printf("peer access %d -> %d | %s\n", i, j, can ? "yes" : "no");
        }
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) {
            if (i == j) continue;
            std::vector<int> src{i};
            double t = timed(devs, src, [&](int k) {
                CK(cudaMemcpyPeerAsync(devs[j].d2, j, devs[k].d, k, bytes, devs[k].s));
            });
            printf("peer %d -> %d alone | %.1f GB/s\n", i, j, bytes / t / 1e9);
        }
    if (n > 1) {
        // Every GPU sends to the next one at once (a ring).
        double t = timed(devs, all, [&](int k) {
            int j = (k + 1) % n;
            CK(cudaMemcpyPeerAsync(devs[j].d2, j, devs[k].d, k, bytes, devs[k].s));
        });
        printf("peer ring, all %d at once | %.1f GB/s aggregate, %.1f per GPU\n", n, n * bytes / t / 1e9,
               bytes / t / 1e9);
    }
    return 0;
}
