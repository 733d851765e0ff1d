//! What every family's launcher shares: the queue a launch goes to (a GPU
//! and a stream), the tower arguments of a launch over RNS towers, and the
//! driver calls around a launch. The launches themselves live with their
//! plans: `plan/launch.rs` (the NTT kernels), `dgt/launch.rs` (the DGT),
//! `microbench.rs` (the reduction microbenchmark).

use crate::gpu::kernel::Kernel;
use crate::gpu::{DeviceView, Gpu};
use crate::{Coeff, Error, Result};
use cust::memory::DevicePointer;
use cust::stream::Stream;
use polymul_kernels::BLOCK_THREADS;
use polymul_kernels::args::{ArgsError, Buf, TowerGrid};
/// Where a launch goes: the GPU (its context) and the stream to queue on
/// (the GPU's own, or one a plan was bound to).
#[derive(Clone, Copy)]
pub(crate) struct Queue<'a> {
    pub gpu: &'a Gpu,
    pub stream: &'a Stream,
}

impl<'a> Queue<'a> {
    /// The GPU's own stream.
    pub(crate) fn of(gpu: &'a Gpu) -> Self {
        Self { gpu, stream: gpu.stream() }
    }

    /// A plan's queue: its bound stream, else the GPU's own.
    pub(crate) fn on(gpu: &'a Gpu, stream: Option<&'a super::GpuStream>) -> Self {
        match stream {
            Some(s) => Self { gpu, stream: &s.inner },
            None => Self::of(gpu),
        }
    }

    /// Waits for the work queued here.
    pub(crate) fn synchronize(&self) -> Result<()> {
        self.gpu.bind()?;
        self.stream.synchronize().map_err(Error::cuda("waiting for the GPU", 0))
    }

    /// Copies `v` back after the work queued here.
    pub(crate) fn download<W: Coeff>(&self, v: &DeviceView<W>) -> Result<Vec<W>> {
        self.synchronize()?;
        self.gpu.download(v)
    }
}

/// The RNS tower arguments of a launch (`polymul_kernels::towers`): block
/// row `y` of the grid is tower `y`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TowerLaunch<W: Coeff> {
    /// The constants table, null for one tower.
    pub moduli: DevicePointer<W>,
    /// Towers = block rows of the grid.
    pub rows: u32,
    /// Words between consecutive towers' data.
    pub data_words: u64,
    /// Words between consecutive towers' twiddle tables.
    pub tw_words: u32,
    /// Words of the constants table (0 for one tower).
    pub moduli_words: usize,
}

impl<W: Coeff> TowerLaunch<W> {
    /// The kernels' tower arguments with the grid's tower extent, checked
    /// by `TowerGrid::new` (a null table and one row, or a table of
    /// `rows · TOWER_WORDS` words); `kernel` names the launch a refusal
    /// reports.
    pub(crate) fn grid(&self, kernel: &'static str) -> Result<TowerGrid<W>> {
        TowerGrid::new(buf(self.moduli, self.moduli_words), self.rows, self.data_words, self.tw_words)
            .map_err(refused(kernel))
    }
}

/// A device buffer of `len` elements at `p` as the argument blocks'
/// constructors take it.
pub(crate) fn buf<T: cust::memory::DeviceCopy>(p: DevicePointer<T>, len: usize) -> Buf<T> {
    Buf::new(p.as_raw() as *const T, len)
}

/// A device view as the argument blocks' constructors take it.
pub(crate) fn view<W: Coeff>(v: &DeviceView<W>) -> Buf<W> {
    buf(v.ptr(), v.len())
}

/// Maps an argument block that `kernel`'s constructor refused to
/// [`Error::BadLaunch`].
pub(crate) fn refused(kernel: &'static str) -> impl Fn(ArgsError) -> Error {
    move |e| Error::BadLaunch { kernel, why: e.why() }
}

/// Raises `f`'s dynamic shared-memory limit to at least `bytes` (above the
/// default 48 KiB a kernel must opt in); the driver's status. It never
/// lowers the limit: the attribute belongs to the module's function, which
/// every plan of the GPU shares, so setting another plan's smaller size
/// would make the launches of a plan made earlier fail (a tiled plan of 128
/// KiB tiles after one of 64 KiB was made; a dependent held by a spread
/// table, [`spread_table`]). One lock orders the read and the write of
/// every caller in the process.
pub(crate) fn raise_max_dynamic_smem(f: &Kernel, bytes: u32) -> cust::sys::CUresult {
    use cust::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES as MAX_DYNAMIC;
    static RAISING: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _one_at_a_time = RAISING.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut now = 0i32;
    // SAFETY: `f.to_raw()` is a live `CUfunction`: `Kernel` keeps its module
    // loaded (gpu/kernel.rs); `now` is a live out-pointer for one `int`. The
    // calls only read and set one attribute of it; the driver range-checks
    // `bytes` and the callers check the status. The context is current: the
    // callers (`TiledKernels::new`, `LazyKernels::new`, `FusedKernels::new`,
    // `ClusterKernels::new` in plan/launch.rs, `DgtKernels::new` in
    // dgt/launch.rs, `DeviceConvert::new` in rns/convert.rs, and
    // `spread_table` for them) run inside `NttEngine::new` /
    // `DgtPlan::with_pipeline` / `DeviceConvert::new` after `Gpu::upload`
    // bound it on this thread.
    unsafe {
        let rc = cust::sys::cuFuncGetAttribute(&mut now, MAX_DYNAMIC, f.to_raw());
        if rc != cust::sys::cudaError_enum::CUDA_SUCCESS || now as i64 >= bytes as i64 {
            return rc;
        }
        cust::sys::cuFuncSetAttribute(f.to_raw(), MAX_DYNAMIC, bytes as i32)
    }
}

/// For `t` = 1, 2, … below the blocks of `f` (`threads` per block, `smem`
/// bytes) that fit an SM, the shared memory that holds a launch to `t`
/// blocks per SM: `1/(t + 1)` of the SM's plus 1 KiB (at least `smem`), as
/// the driver's occupancy figure confirms; the largest is opted into here
/// ([`raise_max_dynamic_smem`]). The table ends at the first size it does
/// not confirm; it is empty where one block already fills an SM or the GPU
/// launches no dependents. [`spread_for`] picks a launch's entry.
///
/// Why: a programmatic dependent's blocks become resident while the grid
/// before it still runs, on the room the SMs have left, as many per SM as
/// fit. A grid under one wave then crowds some SMs and leaves others idle
/// (traced with `scripts/placement.cu`: a chain's third kernel of 96
/// blocks on 60 SMs, two on some, its span doubled; docs/ntt.md, "The
/// placement, traced"); a launch of `b` blocks is held to `⌈b / SMs⌉` per
/// SM. On an H100
/// (results/2026-11-28-nvidia-h100-pdl-spread): the `u64` N = 2^17 polymul
/// of 3 and 4 polynomials, whose 96- and 128-block product pass fits two
/// blocks per SM, took 50.9 and 55.0 µs launched so and 35.1 and 35.9 held
/// to one; the `u64` 2^16 × 16 inverse, two passes of 256 blocks that fit
/// three and four per SM, 32.3 against 24.7 held to two; the 4-tower RNS
/// polymul 24.5 against 22.7 back to back. Launching such passes plainly
/// instead cost one-polynomial calls up to the 3–7% that programmatic
/// launch gains them.
pub(crate) fn spread_table(gpu: &Gpu, f: &Kernel, threads: u32, smem: u32) -> Result<Vec<u32>> {
    let fits = |bytes: u32| {
        f.max_active_blocks_per_multiprocessor(cust::function::BlockSize::x(threads), bytes as usize)
            .map_err(Error::cuda("sizing a kernel's blocks per SM", 0))
    };
    let sm_smem = gpu.shared_per_sm() as u32;
    let holding = |t: u32| (sm_smem / (t + 1) + 1024).max(smem);
    if !gpu.launches_dependents() || sm_smem == 0 || holding(1) as usize > gpu.info().max_shared_per_block {
        return Ok(Vec::new());
    }
    let most = fits(smem)?;
    if most < 2 {
        return Ok(Vec::new());
    }
    check(raise_max_dynamic_smem(f, holding(1)), "raising a kernel's shared-memory limit")?;
    let mut spread = Vec::new();
    for t in 1..most {
        if fits(holding(t))? != t {
            break;
        }
        spread.push(holding(t));
    }
    Ok(spread)
}

/// The shared memory a dependent launch of `blocks` blocks (all towers)
/// asks for from its kernel's [`spread_table`]: the entry that holds it to
/// `⌈blocks / SMs⌉` per SM, or `None` (its own size) where the table has
/// none, as for a launch of a wave or more.
pub(crate) fn spread_for(gpu: &Gpu, table: &[u32], blocks: u32) -> Option<u32> {
    let sms = gpu.info().multiprocessors.max(1) as u32;
    let per_sm = blocks.div_ceil(sms) as usize;
    per_sm.checked_sub(1).and_then(|i| table.get(i)).copied()
}

pub(crate) fn check(rc: cust::sys::CUresult, during: &'static str) -> Result<()> {
    if rc == cust::sys::cudaError_enum::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(Error::CudaCode { during, code: rc as i32 })
    }
}

pub(crate) fn blocks(threads: u32) -> u32 {
    threads.div_ceil(BLOCK_THREADS)
}
