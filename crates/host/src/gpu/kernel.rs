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
        // SAFETY: a `Function` is a plain driver handle (no destructor) valid
        // while its module is loaded; the module belongs to `gpu`'s shared
        // state, which the clone stored beside it keeps alive for as long as
        // this `Kernel` exists. The `'static` never escapes: `function()`
        // hands it out borrowed from `self` (`Deref`).
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
    /// expects (validated by the plan): the kernel dereferences them. The
    /// context must be current.
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
        // SAFETY: one parameter, the block the kernel takes (`A`, by the
        // identifier it was looked up from), alive across the call; the
        // rest is the caller's.
        unsafe { q.stream.launch(&self.k, grid, BlockSize::x(block), smem, &params) }
            .map_err(Error::cuda(during, 0))
    }

    /// As [`TypedKernel::launch`] over a 2D grid, as a programmatic
    /// dependent of the stream's previous kernel where the GPU allows
    /// ([`Gpu::dependent_launch`]; the launch may then overlap that
    /// kernel's last blocks).
    ///
    /// # Safety
    /// As for [`TypedKernel::launch`], and the kernel waits for its
    /// predecessor (`grid_dependency_sync`) before any global access.
    pub(crate) unsafe fn launch_dependent(
        &self,
        q: &Queue<'_>,
        (x, y): (u32, u32),
        block: u32,
        smem: u32,
        args: &A,
        during: &'static str,
    ) -> Result<()> {
        if let Some(l) = q.gpu.dependent_launch(q.stream) {
            let mut params = Self::params(args);
            // SAFETY: as for `launch`; the kernel waits (caller).
            return unsafe { l.launch_dependent(&self.k, ((x, y), block, smem), q.stream, &mut params) };
        }
        // SAFETY: the caller's.
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
        // SAFETY: as for `launch`; the cluster condition is the caller's.
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
