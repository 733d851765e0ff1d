/* Host side of the ptxas reproducer (CUDA driver API, no runtime).
 *
 *   ./repro IMAGE [MAGIC [D]]
 *
 * IMAGE: a cubin (ELF) or a PTX file (JIT-compiled by the driver) holding
 * the kernel `repro` of repro.ptx (or control.ptx). One block of 256
 * threads computes out[e] = (2 * D) * hi32(e * MAGIC mod 2^64) for
 * e < 1024; this program prints what the first threads wrote next to the
 * expected value and exits 1 if any word is wrong (0 if all are right,
 * 2 on a CUDA error). Defaults: MAGIC = 0x55555556 (so hi32(e * MAGIC) =
 * floor(e / 3) for small e), D = 1. */
#include <cuda.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 1024u
#define THREADS 256u

static int check(CUresult r, const char *what) {
    if (r != CUDA_SUCCESS) {
        const char *name = "?", *msg = "?";
        cuGetErrorName(r, &name);
        cuGetErrorString(r, &msg);
        fprintf(stderr, "%s failed: %s (%s)\n", what, name, msg);
        exit(2);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s IMAGE.cubin|IMAGE.ptx [MAGIC [D]]\n", argv[0]);
        return 2;
    }
    uint64_t magic = argc > 2 ? strtoull(argv[2], NULL, 0) : 0x55555556ull;
    uint32_t d = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 0) : 1u;

    FILE *f = fopen(argv[1], "rb");
    if (!f) { perror(argv[1]); return 2; }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *image = calloc((size_t)len + 1, 1); /* NUL-terminated for PTX */
    if (!image || fread(image, 1, (size_t)len, f) != (size_t)len) { perror("read"); return 2; }
    fclose(f);
    int is_elf = len >= 4 && memcmp(image, "\x7f" "ELF", 4) == 0;

    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    CUdeviceptr out;
    int driver = 0, major = 0, minor = 0;
    char name[256] = {0};
    check(cuInit(0), "cuInit");
    check(cuDriverGetVersion(&driver), "cuDriverGetVersion");
    check(cuDeviceGet(&dev, 0), "cuDeviceGet");
    check(cuDeviceGetName(name, sizeof name, dev), "cuDeviceGetName");
    check(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev), "attribute");
    check(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev), "attribute");
    check(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
    check(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
    printf("%s: %s (sm_%d%d), driver API %d, %s\n", argv[1], name, major, minor, driver,
           is_elf ? "cubin" : "PTX, JIT-compiled by the driver");
    check(cuModuleLoadData(&mod, image), "cuModuleLoadData");
    check(cuModuleGetFunction(&fn, mod, "repro"), "cuModuleGetFunction(repro)");
    check(cuMemAlloc(&out, N * sizeof(uint32_t)), "cuMemAlloc");
    check(cuMemsetD32(out, 0xffffffffu, N), "cuMemsetD32");
    uint32_t n = N;
    void *params[] = {&out, &magic, &n, &d};
    check(cuLaunchKernel(fn, 1, 1, 1, THREADS, 1, 1, 0, NULL, params, NULL), "cuLaunchKernel");
    check(cuCtxSynchronize(), "cuCtxSynchronize");
    uint32_t got[N];
    check(cuMemcpyDtoH(got, out, sizeof got), "cuMemcpyDtoH");

    unsigned wrong = 0;
    printf("magic = 0x%016" PRIx64 ", d = %u: out[e] = (2d) * hi32(e * magic)\n", magic, d);
    for (uint32_t e = 0; e < N; e++) {
        uint32_t hi = (uint32_t)(((uint64_t)e * magic) >> 32); /* mod 2^64, high word */
        uint32_t want = (2u * d) * hi;
        if (got[e] != want) wrong++;
        if (e < 8 || (got[e] != want && wrong <= 8))
            printf("  e = %4u: wrote %10u, expected %10u%s\n", e, got[e], want, got[e] == want ? "" : "  WRONG");
    }
    printf("%u of %u words wrong\n", wrong, N);
    return wrong ? 1 : 0;
}
