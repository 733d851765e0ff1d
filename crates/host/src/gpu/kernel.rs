//! A kernel handle a plan can own: the looked-up function and a clone of
//! the [`Gpu`] whose module holds it, so the handle can never outlive its
//! code (cust's `Function<'a>` borrows the module, which would tie every
//! plan to a borrowed GPU). [`TypedKernel`] adds the kernel's argument
//! block to the type: every launch of polymul goes through it.

use super::Gpu;
use super::cluster::ClusterLaunch;
use super::launch::Queue;
use crate::{Coeff, Error, Result};
use cust::function::{BlockSize, Function, GridSize};
use polymul_kernels::names::KernelAbi;
use std::ffi::c_void;
use std::marker::PhantomData;

/// One kernel of the loaded module, owned: `Send + Sync`, no lifetime.
pub(crate) struct Kernel {
    /// Borrows `_gpu`'s module; `'static` because `_gpu` (declared after it,
    /// so dropped after it) keeps that module alive as long as `self`.
    f: Function<'static>,
    _gpu: Gpu,
}

impl Kernel {
    /// Looks `name` up in `gpu`'s module.
    pub(crate) fn get(gpu: &Gpu, name: &str) -> Result<Self> {
        let f = gpu.module().get_function(name).map_err(|source| Error::Cuda {
            during: "looking up a kernel",
            source: crate::DriverError(source),
        })?;
        // SAFETY: the transmute changes only the lifetime. A `Function` is a
        // plain `CUfunction` handle (no destructor), valid while its module is
        // loaded; the module lives in `gpu`'s shared `GpuInner` (gpu/mod.rs),
        // which the clone stored in `_gpu` keeps alive as long as this `Kernel`
        // (declared after `f`, so dropped after it). The `'static` never escapes:
        // `Deref` hands the function out borrowed from `self`, and a `Function`
        // is neither `Clone` nor `Copy`.
        let f = unsafe { std::mem::transmute::<Function<'_>, Function<'static>>(f) };
        Ok(Self { f, _gpu: gpu.clone() })
    }
}

/// The function, borrowed from the handle (a `Function` is neither `Clone`
/// nor `Copy`, so the `'static` cannot be moved out of the borrow).
impl std::ops::Deref for Kernel {
    type Target = Function<'static>;
    fn deref(&self) -> &Function<'static> {
        &self.f
    }
}

impl std::fmt::Debug for Kernel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Kernel")
    }
}

/// A kernel whose only parameter is the argument block `A` (`#[repr(C)]`,
/// defined in polymul-kernels next to the kernel's algorithm): looked up
/// from an identifier whose [`KernelAbi::Args`] is `A`, and launched only
/// with an `A`, so the host cannot pass what the kernel does not read.
pub(crate) struct TypedKernel<A> {
    k: Kernel,
    /// `fn(A)`: the handle is `Send + Sync` whatever `A` holds (raw device
    /// pointers), and it only ever takes an `A`.
    _args: PhantomData<fn(A)>,
}

impl<A: Copy> TypedKernel<A> {
    /// Looks up the kernel `id` on words `W` in `gpu`'s module.
    pub(crate) fn get<W: Coeff, K: KernelAbi<Args<W> = A>>(gpu: &Gpu, id: K) -> Result<Self> {
        Ok(Self { k: Kernel::get(gpu, id.symbol::<W>().as_str())?, _args: PhantomData })
    }

    /// The parameter pointers of a launch: one, to the block.
    fn params(args: &A) -> [*mut c_void; 1] {
        [args as *const A as *mut c_void]
    }

    /// Queues the kernel on `q`'s stream over `grid` blocks of `block`
    /// threads with `smem` bytes of dynamic shared memory; `during` names
    /// the launch in an error.
    ///
    /// # Safety
    /// The block's pointers, sizes and geometry must be what the kernel
    /// expects (validated by the plan): the kernel dereferences them
    /// unchecked. That is, the `# Invariants` section of `A` (in
    /// polymul-kernels) holds for `args` and this launch's grid, block and
    /// shared memory, and the memory the block points to stays allocated
    /// until the kernel has run. The context of `q.gpu` must be current.
    pub(crate) unsafe fn launch(
        &self,
        q: &Queue<'_>,
        grid: impl Into<GridSize>,
        block: u32,
        smem: u32,
        args: &A,
        during: &'static str,
    ) -> Result<()> {
        let params = Self::params(args);
        // SAFETY: `params` holds one pointer, to `args`, which is alive across
        // the call (the driver copies kernel parameters when it queues the
        // launch); the kernel's only parameter is an `A` by value:
        // `TypedKernel::get` looked the kernel up from an identifier whose
        // `KernelAbi::Args` is `A` (polymul-kernels `names.rs`; the build checks
        // the PTX's entries against `names::for_each_entry`). The block's
        // contents and the launch geometry (the `# Invariants` of `A`) and the
        // current context are this function's `# Safety` contract, established by
        // its callers.
        unsafe { q.stream.launch(&self.k, grid, BlockSize::x(block), smem, &params) }
            .map_err(Error::cuda(during, 0))
    }

    /// As [`TypedKernel::launch`] over a 2D grid, as a programmatic
    /// dependent of the stream's previous kernel where the GPU allows
    /// ([`Gpu::dependent_launch`]; the launch may then overlap that
    /// kernel's last blocks). A dependent launch asks for `dependent_smem`
    /// bytes of shared memory instead of `smem` where given (to hold its
    /// blocks to as many per SM as it needs: `spread_table`,
    /// gpu/launch.rs).
    ///
    /// # Safety
    /// As for [`TypedKernel::launch`], and the kernel waits for its
    /// predecessor (`grid_dependency_sync`) before any global access;
    /// `dependent_smem` is at least `smem` and within the kernel's opted-in
    /// limit (the kernel uses only the shared memory it needs).
    pub(crate) unsafe fn launch_dependent(
        &self,
        q: &Queue<'_>,
        (x, y): (u32, u32),
        block: u32,
        (smem, dependent_smem): (u32, Option<u32>),
        args: &A,
        during: &'static str,
    ) -> Result<()> {
        if let Some(l) = q.gpu.dependent_launch(q.stream) {
            let smem = dependent_smem.unwrap_or(smem);
            let mut params = Self::params(args);
            // SAFETY: as in `launch`: `params` is one pointer to `args` (an `A`,
            // the kernel's one parameter), alive across the call; `l` is
            // `q.gpu`'s `cuLaunchKernelEx` and launches on `q.stream`.
            // `ClusterLaunch::launch_dependent`'s contract (gpu/cluster.rs) is
            // this function's: the block, geometry and context (as for `launch`)
            // and the kernel waiting for its predecessor, all established by the
            // caller.
            return unsafe {
                l.launch_dependent(&self.k, ((x, y), block, smem), q.stream, &mut params, during)
            };
        }
        // SAFETY: `launch`'s contract is part of this function's (`# Safety`
        // above), established by its caller.
        unsafe { self.launch(q, GridSize::xy(x, y), block, smem, args, during) }
    }

    /// Queues the kernel in thread-block clusters of `cluster_x` blocks
    /// along x through `launcher` (`cuLaunchKernelEx`).
    ///
    /// # Safety
    /// As for [`TypedKernel::launch`], and `x` is a multiple of `cluster_x`.
    #[allow(clippy::too_many_arguments)] // one cluster launch's geometry
    pub(crate) unsafe fn launch_cluster(
        &self,
        launcher: &ClusterLaunch,
        q: &Queue<'_>,
        (x, y): (u32, u32),
        block: u32,
        smem: u32,
        cluster_x: u32,
        args: &A,
    ) -> Result<()> {
        let mut params = Self::params(args);
        // SAFETY: `ClusterLaunch::launch`'s contract (gpu/cluster.rs): `params`
        // is one pointer to `args`, the kernel's one parameter (an `A`, as in
        // `launch`), alive across the call; the block, geometry, `x` a multiple
        // of `cluster_x` and the current context are this function's `# Safety`
        // contract, established by its caller (`cluster_ntt`, plan/launch.rs).
        unsafe { launcher.launch(&self.k, ((x, y), block, smem), cluster_x, q.stream, &mut params) }
    }
}

/// The untyped handle (its attributes, its shared-memory limit).
impl<A> std::ops::Deref for TypedKernel<A> {
    type Target = Kernel;
    fn deref(&self) -> &Kernel {
        &self.k
    }
}

impl<A> std::fmt::Debug for TypedKernel<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TypedKernel")
    }
}
