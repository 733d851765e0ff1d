//! Every kernel launch of polymul, in one place.
//!
//! Each function takes validated arguments (the plan checked lengths, batch
//! sizes and moduli), computes the grid and queues the kernel on the GPU's
//! stream. Launch errors are returned; errors inside a kernel surface at the
//! next synchronisation.

use super::{DeviceVec, Gpu};
use crate::{Coeff, Error, Result};
use cust::function::Function;
use cust::launch;
use polymul_kernels::BLOCK_THREADS;
use polymul_kernels::arith::Barrett4;

/// Kernel handles one plan needs, looked up once at plan creation.
pub(crate) struct Radix2Kernels<'g> {
    fwd: Function<'g>,
    inv: Function<'g>,
    mul: Function<'g>,
}

fn get<'g>(gpu: &'g Gpu, base: &str, word: &str) -> Result<Function<'g>> {
    gpu.module()
        .get_function(format!("{base}_{word}"))
        .map_err(|source| Error::Cuda {
            during: "looking up a kernel",
            source,
        })
}

impl<'g> Radix2Kernels<'g> {
    pub(crate) fn new<W: Coeff>(gpu: &'g Gpu) -> Result<Self> {
        use polymul_kernels::names::*;
        Ok(Self {
            fwd: get(gpu, NTT_FWD_RADIX2_STAGE, W::NAME)?,
            inv: get(gpu, NTT_INV_RADIX2_STAGE, W::NAME)?,
            mul: get(gpu, POINTWISE_MUL, W::NAME)?,
        })
    }
}

fn blocks(threads: u32) -> u32 {
    threads.div_ceil(BLOCK_THREADS)
}

/// Direction of a transform.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Direction {
    Forward,
    Inverse,
}

/// Queues every stage of a radix-2 transform of `batch` polynomials in `data`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn radix2_ntt<W: Coeff>(
    gpu: &Gpu,
    k: &Radix2Kernels<'_>,
    dir: Direction,
    data: &mut DeviceVec<W>,
    twiddles: &DeviceVec<W>,
    batch: usize,
    log_n: u32,
    red: &Barrett4<W>,
) -> Result<()> {
    gpu.bind()?;
    let total = (batch << (log_n - 1)) as u32;
    let stream = gpu.stream();
    let (f, stages): (&Function<'_>, Vec<u32>) = match dir {
        Direction::Forward => (&k.fwd, (0..log_n).collect()),
        Direction::Inverse => (&k.inv, (0..log_n).rev().collect()),
    };
    let (a, tw) = (data.buf.as_device_ptr(), twiddles.buf.as_device_ptr());
    let (q, mu, m) = (red.q, red.mu, red.m);
    for log_m in stages {
        // SAFETY: the plan sized `data` to batch·N and `twiddles` to N words;
        // the kernel touches only indices below those.
        unsafe {
            launch!(f<<<blocks(total), BLOCK_THREADS, 0, stream>>>(a, tw, total, log_n, log_m, q, mu, m))
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
