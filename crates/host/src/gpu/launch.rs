//! Every kernel launch of polymul, in one place.
//!
//! Each function takes validated arguments (the plan checked lengths, batch
//! sizes and moduli), computes the grid and queues the kernel on the GPU's
//! stream. Launch errors are returned; errors inside a kernel surface at the
//! next synchronisation.

use super::{DeviceVec, Gpu};
use crate::reduction::{DevicePrepared, Reduction};
use crate::{Coeff, Error, Result};
use cust::function::Function;
use cust::launch;
use cust::memory::DevicePointer;
use polymul_kernels::BLOCK_THREADS;
use polymul_kernels::arith::Barrett4;
use polymul_kernels::names;
use polymul_kernels::ntt::tiled::TileGeometry;

fn get<'g>(gpu: &'g Gpu, name: String) -> Result<Function<'g>> {
    gpu.module().get_function(&name).map_err(|source| Error::Cuda { during: "looking up a kernel", source })
}

/// Kernel handles one plan needs, looked up once at plan creation.
pub(crate) struct Radix2Kernels<'g> {
    fwd: Function<'g>,
    inv: Function<'g>,
    mul: Function<'g>,
}

impl<'g> Radix2Kernels<'g> {
    pub(crate) fn new<W: Coeff>(gpu: &'g Gpu, reduction: Reduction) -> Result<Self> {
        let (r, w) = (reduction.name(), W::NAME);
        Ok(Self {
            fwd: get(gpu, format!("{}_{r}_{w}", names::NTT_FWD_RADIX2_STAGE))?,
            inv: get(gpu, format!("{}_{r}_{w}", names::NTT_INV_RADIX2_STAGE))?,
            mul: get(gpu, format!("{}_{w}", names::POINTWISE_MUL))?,
        })
    }
}

/// The shared-memory pass kernels of one plan.
pub(crate) struct TiledKernels<'g> {
    fwd: Function<'g>,
    inv: Function<'g>,
}

impl<'g> TiledKernels<'g> {
    /// Looks the kernels up and lets them use `tile_bytes` of dynamic shared
    /// memory (above 48 KiB a kernel must opt in).
    pub(crate) fn new<W: Coeff>(gpu: &'g Gpu, reduction: Reduction, tile_bytes: usize) -> Result<Self> {
        let (r, w) = (reduction.name(), W::NAME);
        let k = Self {
            fwd: get(gpu, format!("{}_{r}_{w}", names::NTT_FWD_TILED))?,
            inv: get(gpu, format!("{}_{r}_{w}", names::NTT_INV_TILED))?,
        };
        if tile_bytes > 48 * 1024 {
            for f in [&k.fwd, &k.inv] {
                // SAFETY: a valid function handle; the size was checked
                // against the device's opt-in limit by the plan.
                let rc = unsafe {
                    cust::sys::cuFuncSetAttribute(
                        f.to_raw(),
                        cust::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                        tile_bytes as i32,
                    )
                };
                if rc != cust::sys::cudaError_enum::CUDA_SUCCESS {
                    let max = gpu.info().max_shared_per_block;
                    return Err(Error::BadTile { bytes: tile_bytes, min: 2 * std::mem::size_of::<W>(), max });
                }
            }
        }
        Ok(k)
    }
}

/// Threads per block of a tiled pass: half a tile's butterflies per thread
/// pair up to 512, at least one warp.
fn tiled_threads(log_tile: u32) -> u32 {
    (1u32 << (log_tile - 1)).clamp(32, 512)
}

/// Queues a shared-memory transform: forward = strided pass (if the
/// polynomial needs two) then contiguous pass; inverse = the reverse.
#[allow(clippy::too_many_arguments)] // one launch's worth of validated parameters
pub(crate) fn tiled_ntt<W: Coeff>(
    gpu: &Gpu,
    k: &TiledKernels<'_>,
    dir: Direction,
    data: &mut DeviceVec<W>,
    tw: &DevicePrepared<W>,
    batch: usize,
    geo: &TileGeometry,
    pairs: bool,
) -> Result<()> {
    gpu.bind()?;
    let stream = gpu.stream();
    let (f, order): (&Function<'_>, &[u32]) = match (geo.l1 > 0, dir) {
        (false, Direction::Forward) => (&k.fwd, &[0]),
        (false, Direction::Inverse) => (&k.inv, &[0]),
        (true, Direction::Forward) => (&k.fwd, &[1, 0]),
        (true, Direction::Inverse) => (&k.inv, &[0, 1]),
    };
    let grid = (batch * geo.blocks_per_poly()) as u32;
    let threads = tiled_threads(geo.log_tile);
    let smem = ((1usize << geo.log_tile) * std::mem::size_of::<W>()) as u32;
    let (a, main, aux) = (data.buf.as_device_ptr(), tw.main.buf.as_device_ptr(), aux_ptr(&tw.aux));
    let (q, kk, m) = tw.parts;
    let (log_n, l1, log_tile, pairs) = (geo.log_n, geo.l1, geo.log_tile, u32::from(pairs));
    for &strided in order {
        // SAFETY: the plan validated the geometry (tile within the device's
        // shared memory, l1 <= log_tile) and sized `data` to batch·N words.
        unsafe {
            launch!(f<<<grid, threads, smem, stream>>>(a, main, aux, log_n, l1, log_tile, strided, pairs, q, kk, m))
                .map_err(Error::cuda("launching a shared-memory NTT pass", 0))?;
        }
    }
    Ok(())
}

fn blocks(threads: u32) -> u32 {
    threads.div_ceil(BLOCK_THREADS)
}

fn aux_ptr<W: Coeff>(aux: &Option<DeviceVec<W>>) -> DevicePointer<W> {
    aux.as_ref().map_or(DevicePointer::null(), |a| a.buf.as_device_ptr())
}

/// Direction of a transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    Forward,
    Inverse,
}

/// Queues every stage of a radix-2 transform of `batch` polynomials in `data`.
pub(crate) fn radix2_ntt<W: Coeff>(
    gpu: &Gpu,
    k: &Radix2Kernels<'_>,
    dir: Direction,
    data: &mut DeviceVec<W>,
    tw: &DevicePrepared<W>,
    batch: usize,
    log_n: u32,
) -> Result<()> {
    gpu.bind()?;
    let total = (batch << (log_n - 1)) as u32;
    let stream = gpu.stream();
    let (f, stages): (&Function<'_>, Vec<u32>) = match dir {
        Direction::Forward => (&k.fwd, (0..log_n).collect()),
        Direction::Inverse => (&k.inv, (0..log_n).rev().collect()),
    };
    let (a, main, aux) = (data.buf.as_device_ptr(), tw.main.buf.as_device_ptr(), aux_ptr(&tw.aux));
    let (q, kk, m) = tw.parts;
    for log_m in stages {
        // SAFETY: the plan sized `data` to batch·N and the twiddle tables to N
        // words; the kernel touches only indices below those.
        unsafe {
            launch!(f<<<blocks(total), BLOCK_THREADS, 0, stream>>>(a, main, aux, total, log_n, log_m, q, kk, m))
                .map_err(Error::cuda("launching an NTT stage", 0))?;
        }
    }
    Ok(())
}

/// Queues `acc[i] ← acc[i] · other[i] mod q` over `len` words.
pub(crate) fn pointwise_mul<W: Coeff>(
    gpu: &Gpu,
    k: &Radix2Kernels<'_>,
    acc: &mut DeviceVec<W>,
    other: &DeviceVec<W>,
    len: usize,
    red: &Barrett4<W>,
) -> Result<()> {
    gpu.bind()?;
    let stream = gpu.stream();
    let f = &k.mul;
    let (out, b) = (acc.buf.as_device_ptr(), other.buf.as_device_ptr());
    let len = len as u32;
    let (q, mu, m) = (red.q, red.mu, red.m);
    // SAFETY: both buffers hold at least `len` words (checked by the plan).
    unsafe {
        launch!(f<<<blocks(len), BLOCK_THREADS, 0, stream>>>(out, out, b, len, q, mu, m))
            .map_err(Error::cuda("launching the pointwise product", 0))
    }
}

/// Queues one run of the modular-multiplication microbenchmark.
pub(crate) fn modmul_bench<W: Coeff>(
    gpu: &Gpu,
    reduction: Reduction,
    select: bool,
    data: &mut DeviceVec<W>,
    ops: &DevicePrepared<W>,
    threads: u32,
    iters: u32,
) -> Result<()> {
    gpu.bind()?;
    let base = if select { names::MODMUL_BENCH_SELECT } else { names::MODMUL_BENCH_IF };
    let f = get(gpu, format!("{base}_{}_{}", reduction.name(), W::NAME))?;
    let stream = gpu.stream();
    let (d, main, aux) = (data.buf.as_device_ptr(), ops.main.buf.as_device_ptr(), aux_ptr(&ops.aux));
    let (q, k, m) = ops.parts;
    // SAFETY: ModMulBench sized `data` to 4·threads and the tables to threads.
    unsafe {
        launch!(f<<<blocks(threads), BLOCK_THREADS, 0, stream>>>(d, main, aux, threads, iters, q, k, m))
            .map_err(Error::cuda("launching the reduction microbenchmark", 0))
    }
}
