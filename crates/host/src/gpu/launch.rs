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
