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

/// Raises `f`'s dynamic shared-memory limit to `bytes` (above the default
/// 48 KiB needs this opt-in); the driver's status.
pub(crate) fn set_max_dynamic_smem(f: &Kernel, bytes: u32) -> cust::sys::CUresult {
    // SAFETY: `f.to_raw()` is a live `CUfunction`: `Kernel` keeps its module
    // loaded (gpu/kernel.rs). The call only sets one attribute of it; the driver
    // range-checks `bytes` and the callers check the status. The context is
    // current: the callers (`TiledKernels::new`, `LazyKernels::new`,
    // `FusedKernels::new`, `ClusterKernels::new` in plan/launch.rs,
    // `DgtKernels::new` in dgt/launch.rs, `DeviceConvert::new` in
    // rns/convert.rs) run inside `NttEngine::new` / `DgtPlan::with_pipeline`
    // / `DeviceConvert::new` after `Gpu::upload` bound it on this thread.
    unsafe {
        cust::sys::cuFuncSetAttribute(
            f.to_raw(),
            cust::sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
            bytes as i32,
        )
    }
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
