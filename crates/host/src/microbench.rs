//! The modular-multiplication microbenchmark on the GPU (Fig. 4 of the
//! SEED 2022 paper): chains of products with one reduction, timed by the
//! bench and checked against the kernels' own chain body on the CPU.

use crate::gpu::kernel::TypedKernel;
use crate::gpu::launch::{Queue, blocks, refused, view};
use crate::gpu::{DeviceVec, DeviceView, Gpu};
use crate::plan::twiddles::DeviceMultiplicands;
use crate::reduction::{Multiplicands, Reduction};
use crate::{Coeff, Error, Result};
use polymul_kernels::microbench::ModMulBenchArgs;
use polymul_kernels::names;

/// The modular-multiplication microbenchmark on the GPU: `threads` threads,
/// each running 4 independent chains `x ← x · w mod q` for `iters` steps.
#[derive(Debug)]
pub struct ModMulBench<W: Coeff> {
    gpu: Gpu,
    reduction: Reduction,
    select: bool,
    threads: u32,
    prepared: Multiplicands<W>,
    ops: DeviceMultiplicands<W>,
    start: Vec<W>,
    data: DeviceVec<W>,
}

impl<W: Coeff> ModMulBench<W> {
    /// Uploads random starting values (`4·threads`) and multiplicands
    /// (`threads`), all uniform below `q`, from `seed`. `select` chooses the
    /// mask-and-subtract correction instead of the `if`.
    ///
    /// # Errors
    /// [`Error::ArgumentOutOfRange`] for 0 threads, those of
    /// [`Multiplicands::new`] for `q` (both before the device is touched), then
    /// [`Error::OutOfDeviceMemory`].
    pub fn new(gpu: &Gpu, reduction: Reduction, select: bool, q: W, threads: u32, seed: u64) -> Result<Self> {
        if threads == 0 {
            return Err(Error::ArgumentOutOfRange {
                what: "threads",
                value: 0,
                min: 1,
                max: u32::MAX.into(),
            });
        }
        // The modulus before anything is drawn below it.
        Multiplicands::new(reduction, q, &[])?;
        let mut rng = crate::random::SplitMix64::new(seed);
        let start = rng.coeffs(polymul_kernels::microbench::CHAINS * threads as usize, q);
        let values = rng.coeffs(threads as usize, q);
        let prepared = Multiplicands::new(reduction, q, &values)?;
        let ops = DeviceMultiplicands::upload(gpu, &prepared)?;
        let data = gpu.upload(&start)?;
        Ok(Self { gpu: gpu.clone(), reduction, select, threads, prepared, ops, start, data })
    }

    /// Modular multiplications one [`ModMulBench::run`] performs.
    /// Saturates at `u64::MAX`.
    pub fn modmuls(&self, iters: u32) -> u64 {
        (self.threads as u64 * polymul_kernels::microbench::CHAINS as u64).saturating_mul(iters as u64)
    }

    /// Queues one run of `iters` steps (continuing from the current values).
    pub fn run(&mut self, iters: u32) -> Result<()> {
        modmul_bench(
            Queue::of(&self.gpu),
            self.reduction,
            self.select,
            &mut self.data,
            &self.ops,
            self.threads,
            iters,
        )
    }

    /// Resets the values to the starting ones.
    pub fn reset(&mut self) -> Result<()> {
        self.gpu.copy_into(&mut self.data, &self.start)
    }

    /// Downloads the current values.
    pub fn values(&self) -> Result<Vec<W>> {
        self.gpu.download(&self.data)
    }

    /// The CPU result for thread `t` after `iters` steps from the starting
    /// values: the kernels' own chain body run on the host.
    ///
    /// # Errors
    /// [`Error::ArgumentOutOfRange`] unless `t < threads`.
    pub fn cpu_thread(&self, t: usize, iters: u32) -> Result<[W; 4]> {
        if t >= self.threads as usize {
            let max = u64::from(self.threads) - 1;
            return Err(Error::ArgumentOutOfRange { what: "thread", value: t as u64, min: 0, max });
        }
        Ok(crate::cpu::modmul_chains(&self.prepared, self.select, &self.start, t, iters))
    }
}

/// Queues one run of the modular-multiplication microbenchmark.
fn modmul_bench<W: Coeff>(
    q: Queue<'_>,
    reduction: Reduction,
    select: bool,
    data: &mut DeviceView<W>,
    ops: &DeviceMultiplicands<W>,
    threads: u32,
    iters: u32,
) -> Result<()> {
    q.gpu.bind()?;
    let id = names::ModMulBenchKernel { select, reduction: reduction.kind() };
    let f = TypedKernel::get::<W, _>(q.gpu, id)?;
    let args = ModMulBenchArgs::new(view(data), ops.bufs(), threads, iters, ops.parts)
        .map_err(refused("the reduction microbenchmark"))?;
    // SAFETY: the invariants of `ModMulBenchArgs` (polymul-kernels
    // `microbench.rs`); `ModMulBenchArgs::new` checked the buffers' extents and
    // `q`'s range: `data` is `ModMulBench::data`, `CHAINS · threads` words
    // below `q` (`ModMulBench::new` uploads them; `reset` copies the same `start`
    // back), `ops` (and `ops_aux` where the reduction has auxiliary words) hold
    // `threads` prepared words (`Multiplicands::new` in `ModMulBench::new`),
    // `(q, k, m)` are those of the same preparation; the grid covers `threads`
    // threads (the kernel skips the rest). The context is current: `Gpu::bind`
    // above.
    unsafe {
        f.launch(
            &q,
            blocks(threads),
            polymul_kernels::BLOCK_THREADS,
            0,
            &args,
            "launching the reduction microbenchmark",
        )
    }
}
