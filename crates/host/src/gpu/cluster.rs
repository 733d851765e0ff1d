//! Launching a kernel in thread-block clusters: `cuLaunchKernelEx` with a
//! cluster-dimension attribute. cust 0.3.2 does not wrap it and its raw
//! bindings predate it (CUDA 11.4), so the entry point is looked up at run
//! time through `cuGetProcAddress` (CUDA 11.3+); a driver without it (before
//! CUDA 12.0) has no [`ClusterLaunch`], and plans fall back to the two-pass
//! kernels.

use crate::{Error, Result};
use cust::function::Function;
use cust::stream::Stream;
use std::ffi::c_void;

/// `CUlaunchAttributeValue`: a 64-byte union; the cluster dimension is its
/// first three `u32`s.
#[repr(C, align(8))]
#[derive(Clone, Copy)]
struct AttrValue {
    words: [u32; 16],
}

/// `CUlaunchAttribute` (cuda.h, CUDA 12): the id, padding to 8 bytes, the value.
#[repr(C)]
#[derive(Clone, Copy)]
struct Attr {
    id: u32,
    pad: u32,
    value: AttrValue,
}

/// `CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`.
const CLUSTER_DIMENSION: u32 = 4;

/// `CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION`: the launch may
/// begin before the previous kernel of the stream ends (its blocks wait in
/// `griddepcontrol.wait`; sm_90).
const PROGRAMMATIC_STREAM_SERIALIZATION: u32 = 6;

/// `CUlaunchConfig` (cuda.h, CUDA 12).
#[repr(C)]
struct Config {
    grid: [u32; 3],
    block: [u32; 3],
    shared_bytes: u32,
    stream: cust::sys::CUstream,
    attrs: *mut Attr,
    num_attrs: u32,
}

type LaunchEx = unsafe extern "C" fn(
    config: *const Config,
    f: cust::sys::CUfunction,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> cust::sys::CUresult;

/// The driver's `cuLaunchKernelEx`, resolved once.
#[derive(Clone, Copy)]
pub(crate) struct ClusterLaunch {
    launch: LaunchEx,
}

impl std::fmt::Debug for ClusterLaunch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ClusterLaunch")
    }
}

impl ClusterLaunch {
    /// The entry point, or `None` if the driver has none (before CUDA 12.0).
    pub(crate) fn resolve() -> Option<Self> {
        let mut pfn: *mut c_void = std::ptr::null_mut();
        // SAFETY: the name is a static NUL-terminated string and `pfn` a live
        // out-pointer for one function pointer; flags 0 is
        // CU_GET_PROC_ADDRESS_DEFAULT, version 12000 asks for the CUDA 12 ABI.
        // The driver is initialised: the only caller, `Gpu::with_options`
        // (gpu/mod.rs), runs after `Gpu::device_count` (`cust::init`) and the
        // context's creation.
        let rc = unsafe { cust::sys::cuGetProcAddress(c"cuLaunchKernelEx".as_ptr(), &mut pfn, 12000, 0) };
        if rc != cust::sys::cudaError_enum::CUDA_SUCCESS || pfn.is_null() {
            return None;
        }
        // SAFETY: `pfn` is non-null (checked above) and is the driver's
        // `cuLaunchKernelEx` for the CUDA 12 ABI, whose C signature is `LaunchEx`
        // (cuda.h, CUDA 12.0 and later:
        // `CUresult (const CUlaunchConfig *, CUfunction, void **, void **)`);
        // `Config` and `Attr` have the layouts of `CUlaunchConfig` and
        // `CUlaunchAttribute` (`structs_have_the_driver_layout` below).
        Some(Self { launch: unsafe { std::mem::transmute::<*mut c_void, LaunchEx>(pfn) } })
    }

    /// Queues `f` on `stream` over `grid` blocks of `block` threads in
    /// clusters of `cluster_x` blocks along x, with `shared_bytes` of dynamic
    /// shared memory and the kernel parameters `params`.
    ///
    /// # Safety
    /// `params` must match `f`'s parameters (one pointer per parameter, each
    /// to a value of its type, alive until this returns); `grid.0` must be a
    /// multiple of `cluster_x`; the context of `f` must be current.
    pub(crate) unsafe fn launch(
        &self,
        f: &Function<'_>,
        (grid, block, shared_bytes): ((u32, u32), u32, u32),
        cluster_x: u32,
        stream: &Stream,
        params: &mut [*mut c_void],
    ) -> Result<()> {
        let mut words = [0u32; 16];
        words[..3].copy_from_slice(&[cluster_x, 1, 1]);
        let attr = Attr { id: CLUSTER_DIMENSION, pad: 0, value: AttrValue { words } };
        // SAFETY: `launch_with`'s contract is this function's (`# Safety` above),
        // established by its caller (`TypedKernel::launch_cluster`,
        // gpu/kernel.rs); the attribute is a well-formed cluster dimension
        // `(cluster_x, 1, 1)`, which needs `grid.0` to be a multiple of
        // `cluster_x`: the caller's contract.
        unsafe { self.launch_with(f, (grid, block, shared_bytes), attr, stream, params) }
            .map_err(|code| Error::CudaCode { during: "launching a cluster kernel", code })
    }

    /// Queues `f` as a programmatic dependent of the stream's previous
    /// kernel: it may start before that one ends, so its launch overlaps
    /// the other's last blocks; the kernel must wait (`griddepcontrol.wait`,
    /// `polymul_kernels::gpu::grid_dependency_sync`) before it touches
    /// memory. Geometry and parameters as for [`ClusterLaunch::launch`];
    /// `during` names the launch in the error.
    ///
    /// # Safety
    /// As for [`ClusterLaunch::launch`] (no cluster condition), and `f`
    /// waits for its predecessor before any global access.
    pub(crate) unsafe fn launch_dependent(
        &self,
        f: &Function<'_>,
        geometry: ((u32, u32), u32, u32),
        stream: &Stream,
        params: &mut [*mut c_void],
        during: &'static str,
    ) -> Result<()> {
        let mut words = [0u32; 16];
        words[0] = 1;
        let attr = Attr { id: PROGRAMMATIC_STREAM_SERIALIZATION, pad: 0, value: AttrValue { words } };
        // SAFETY: `launch_with`'s contract is this function's (`# Safety` above),
        // established by its caller (`TypedKernel::launch_dependent`,
        // gpu/kernel.rs, or `LaunchChain::queue`, gpu/timing.rs); the attribute
        // is a well-formed programmatic stream serialisation (value 1), which
        // needs `f` to wait for its predecessor: the caller's contract.
        unsafe { self.launch_with(f, geometry, attr, stream, params) }
            .map_err(|code| Error::CudaCode { during, code })
    }

    /// `cuLaunchKernelEx` with one attribute; the driver's error code.
    ///
    /// # Safety
    /// As for [`ClusterLaunch::launch`] without the cluster condition, plus
    /// what `attr` asks: for a cluster dimension, `grid.0` a multiple of it;
    /// for programmatic stream serialisation, `f` waits for its predecessor
    /// before any global access.
    unsafe fn launch_with(
        &self,
        f: &Function<'_>,
        (grid, block, shared_bytes): ((u32, u32), u32, u32),
        mut attr: Attr,
        stream: &Stream,
        params: &mut [*mut c_void],
    ) -> std::result::Result<(), i32> {
        let config = Config {
            grid: [grid.0, grid.1, 1],
            block: [block, 1, 1],
            shared_bytes,
            stream: stream.as_inner(),
            attrs: &mut attr,
            num_attrs: 1,
        };
        // SAFETY: `self.launch` is the driver's `cuLaunchKernelEx`
        // (`ClusterLaunch::resolve`); `config` and `attr` are live locals of the
        // driver's layouts (`structs_have_the_driver_layout`), borrowed for the
        // call; `f` is a loaded function and `stream` a live `Stream`, both
        // borrowed. `params` matching `f`'s parameters and alive, the geometry,
        // the attribute's condition and the current context are this function's
        // `# Safety` contract, established by its callers.
        let rc = unsafe { (self.launch)(&config, f.to_raw(), params.as_mut_ptr(), std::ptr::null_mut()) };
        if rc == cust::sys::cudaError_enum::CUDA_SUCCESS { Ok(()) } else { Err(rc as i32) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The layouts of cuda.h (CUDA 12, x86-64): CUlaunchAttribute is 72
    /// bytes with the value at offset 8; CUlaunchConfig is 56 bytes with
    /// the stream at 32, the attributes at 40 and their count at 48.
    #[test]
    fn structs_have_the_driver_layout() {
        assert_eq!(std::mem::size_of::<Attr>(), 72);
        assert_eq!(std::mem::offset_of!(Attr, value), 8);
        assert_eq!(std::mem::size_of::<Config>(), 56);
        assert_eq!(std::mem::offset_of!(Config, stream), 32);
        assert_eq!(std::mem::offset_of!(Config, attrs), 40);
        assert_eq!(std::mem::offset_of!(Config, num_attrs), 48);
    }
}
