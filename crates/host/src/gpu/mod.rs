//! The GPU side: device selection, the loaded kernel module, streams, device
//! buffers and CUDA-event timing. Kernel launches live in `gpu/launch.rs`
//! (crate-private), and nowhere else.

mod buffer;
pub(crate) mod cluster;
pub(crate) mod external;
pub(crate) mod graph;
mod image;
pub(crate) mod kernel;
pub(crate) mod launch;
mod options;
pub(crate) mod peer;
pub(crate) mod reduced;
pub(crate) mod scratch;
pub(crate) mod split;
pub(crate) mod staging;
mod threads;
mod timing;

pub use buffer::{DeviceVec, DeviceView};
pub use graph::{Graph, GraphState};
pub use image::{embedded_cubin, embedded_cubin_archs, embedded_ptx, embedded_ptx_archs};
pub use options::GpuOptions;
pub use timing::{GpuTiming, LaunchChain, Timing, median};

use crate::{Coeff, Error, Result};
use cust::CudaFlags;
use cust::context::{Context, CurrentContext};
use cust::device::{Device, DeviceAttribute};
use cust::memory::{CopyDestination, DeviceBuffer};
use cust::module::Module;
use cust::stream::{Stream, StreamFlags};

/// What polymul knows about the device it runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    /// Device ordinal.
    pub ordinal: u32,
    /// Marketing name, e.g. `NVIDIA H100 80GB HBM3`.
    pub name: String,
    /// Compute capability `(major, minor)`.
    pub compute_capability: (i32, i32),
    /// Number of streaming multiprocessors.
    pub multiprocessors: i32,
    /// Global memory in bytes.
    pub total_memory: usize,
    /// CUDA driver version, e.g. `13000` for 13.0.
    pub driver_version: i32,
    /// The SM version of the embedded PTX that was loaded.
    pub ptx_arch: u32,
    /// What was loaded: prebuilt SASS (a cubin for this architecture, no
    /// compilation at start-up) or PTX, JIT-compiled by the driver, and how
    /// long unpacking the embedded image took (zstd, once a process, while
    /// the driver created the context).
    pub kernel_image: String,
    /// Most shared memory one block may opt in to, in bytes.
    pub max_shared_per_block: usize,
}

/// A CUDA device with polymul's kernels loaded and one stream: a cheap
/// handle (an `Arc`, as cudarc's `CudaContext`), `Clone + Send + Sync`.
///
/// Plans keep a clone, so a GPU and its plans can live in one struct (an
/// HE context, a server's state) and move between threads; the context,
/// module and stream go away with the last handle. Creating a `Gpu` never
/// panics: no driver, no device or an unsuitable device give an [`Error`].
/// All work of the plans built on it is queued on its stream, in order,
/// unless a plan is bound to another ([`Gpu::create_stream`]).
///
/// ```no_run
/// let gpu = polymul::Gpu::new()?;
/// println!("running on {}", gpu.info().name);
/// # Ok::<(), polymul::Error>(())
/// ```
///
/// # Graphs the plans capture on their own, and threads
///
/// Plans replay repeated small calls as CUDA graphs: the second call of
/// `forward`, `inverse` or `polymul_in_place`/`polymul_into` on the same
/// device buffers captures its launches into a graph, and later calls
/// replay it with one driver call. This happens for an [`crate::NttPlan`]
/// or [`crate::rns::RnsPlan`] on the lazy kernels when the call is small
/// (fewer blocks than the GPU has SMs, or at most 2^23 words in its
/// largest launch: a few polynomials, or a ciphertext of tens of towers,
/// whose tensor product is one graph too), and for every
/// [`crate::dgt::DgtPlan`] transform and product; [`crate::expert::PlanOptions`]'s
/// `graph_cache` turns it off for a plan.
///
/// Such a capture is only safe while no other host thread uses the
/// device: the driver does not guard other threads' allocations, frees
/// and synchronous copies against it (on an H100 they gave "unknown error"
/// and crashes). So a `Gpu` records the first host thread that queues work
/// through it (an upload, a launch, a download of any plan made on it or
/// on a clone of it); **once a second thread does, plans on that `Gpu` and
/// all its clones stop capturing, for good.** Graphs they captured before
/// keep being replayed; calls without a graph launch their kernels as
/// usual. Results are the same either way; only the CPU time per small
/// call grows (H100, one `u64` polynomial of N = 2^16: about 8 µs per
/// replay against 11 to 12 µs for the launches; docs/latency.md). Moving
/// a used `Gpu` (or a plan) to another thread counts as a second thread.
/// [`Gpu::graph_capture_enabled`] tells which case holds.
///
/// Nothing turns capturing back on for that `Gpu`. A `Gpu` created anew
/// ([`Gpu::with_device`]) keeps its own record and captures while one
/// thread uses it, but it shares the device's primary CUDA context with
/// every other `Gpu` of the device in the process, so the hazard above
/// holds between them too: give each thread its own `Gpu` only where no
/// other thread uses that device meanwhile. Graphs captured explicitly
/// ([`crate::NttPlan::capture`], [`LaunchChain::capture`]) are not subject
/// to the rule: they capture when asked, and the caller keeps other
/// threads' work on the device off the capture's duration.
#[derive(Clone)]
pub struct Gpu {
    inner: std::sync::Arc<GpuInner>,
}

/// What a [`Gpu`] handle shares.
struct GpuInner {
    // Drop order: module and stream before the context that owns them.
    module: Module,
    stream: Stream,
    /// Pinned memory for large copies (freed before the context).
    staging: staging::Staging,
    ctx: Context,
    info: DeviceInfo,
    /// `cuLaunchKernelEx`, on a device with thread-block clusters (sm_90+)
    /// and a driver that has it.
    cluster: Option<cluster::ClusterLaunch>,
    /// Whether the lazy passes launch as programmatic dependents.
    pdl: bool,
    /// Whether they do while a stream captures a graph.
    pdl_graph: bool,
    /// Shared memory of one SM in bytes (0 where the driver did not say).
    shared_per_sm: usize,
    /// Which host threads have used this GPU (see [`Gpu::exclusive_capture`]).
    threads: threads::ThreadUse,
}

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Gpu").field("info", &self.inner.info).finish_non_exhaustive()
    }
}

impl Gpu {
    /// The first CUDA device.
    pub fn new() -> Result<Self> {
        Self::with_device(0)
    }

    /// Number of CUDA devices, or [`Error::NoGpu`].
    pub fn device_count() -> Result<u32> {
        // The driver library is opened at run time (third_party/cust_raw):
        // without it, say so rather than the bindings' stand-in error code.
        if let Err(why) = cust::sys::driver_library() {
            return Err(Error::NoGpu { detail: no_driver_detail(why) });
        }
        cust::init(CudaFlags::empty()).map_err(|e| Error::NoGpu { detail: e.to_string() })?;
        let n = Device::num_devices().map_err(|e| Error::NoGpu { detail: e.to_string() })?;
        if n == 0 {
            return Err(Error::NoGpu { detail: "the driver reports 0 devices".into() });
        }
        Ok(n)
    }

    /// Every CUDA device of the machine, in ordinal order, each with its own
    /// context, stream and kernels (what a [`crate::MultiPlan`] spreads
    /// over).
    ///
    /// # Errors
    /// [`Error::NoGpu`] without a device; the first device's error that
    /// [`Gpu::with_device`] gives.
    pub fn all() -> Result<Vec<Self>> {
        (0..Self::device_count()?).map(Self::with_device).collect()
    }

    /// The device with the given ordinal, with the default
    /// [`GpuOptions`].
    pub fn with_device(ordinal: u32) -> Result<Self> {
        Self::with_options(ordinal, GpuOptions::default())
    }

    /// The device with the given ordinal, launching as `options` say.
    pub fn with_options(ordinal: u32, options: GpuOptions) -> Result<Self> {
        let count = Self::device_count()?;
        if ordinal >= count {
            return Err(Error::NoSuchDevice { ordinal, count });
        }
        let cuda = |during| {
            move |source: cust::error::CudaError| Error::Cuda { during, source: crate::DriverError(source) }
        };
        let device = Device::get_device(ordinal).map_err(cuda("opening the device"))?;
        let attr = |a| device.get_attribute(a).map_err(cuda("reading device attributes"));
        let major = attr(DeviceAttribute::ComputeCapabilityMajor)?;
        let minor = attr(DeviceAttribute::ComputeCapabilityMinor)?;
        let multiprocessors = attr(DeviceAttribute::MultiprocessorCount)?;
        let ptx_arch = image::ptx_arch_for(major, minor)?;
        let mut driver_version = 0i32;
        let (mut smem_optin, mut smem_sm) = (0i32, 0i32);
        // SAFETY: the calls only write their out-parameter, a live local `i32`;
        // `device.as_raw()` is a device the driver knows (`Device::get_device`
        // succeeded above, after `Gpu::device_count` ran `cust::init`). Neither
        // needs a context. Their status is ignored: on failure the locals stay 0,
        // `max_shared_per_block` falls back to 48 KiB and `shared_per_sm` is 0
        // (no lazy pass is then spread, `LazyKernels::new`).
        unsafe {
            cust::sys::cuDriverGetVersion(&mut driver_version);
            cust::sys::cuDeviceGetAttribute(
                &mut smem_optin,
                cust::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
                device.as_raw(),
            );
            cust::sys::cuDeviceGetAttribute(
                &mut smem_sm,
                cust::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
                device.as_raw(),
            );
        }
        let info = DeviceInfo {
            ordinal,
            name: device.name().map_err(cuda("reading the device name"))?,
            compute_capability: (major, minor),
            multiprocessors,
            total_memory: device.total_memory().map_err(cuda("reading the memory size"))?,
            driver_version,
            ptx_arch,
            max_shared_per_block: smem_optin.max(48 * 1024) as usize,
            kernel_image: String::new(),
        };
        // The embedded image to load is unpacked (zstd, once a process) on
        // a thread of its own while the driver creates the context.
        let (ctx, unpacked) = std::thread::scope(|s| {
            let unpack = || image::unpack_for(major, minor, ptx_arch);
            let unpacking = match options.kernel_image {
                Some(_) => None,
                None => std::thread::Builder::new().spawn_scoped(s, unpack).ok(),
            };
            let ctx = Context::new(device);
            let unpacked = match unpacking {
                Some(h) => h.join().unwrap_or_default(),
                None => std::time::Duration::ZERO,
            };
            (ctx, unpacked)
        });
        let ctx = ctx.map_err(cuda("creating a context"))?;
        let (module, kernel_image) =
            image::load(major, minor, ptx_arch, options.kernel_image.as_deref(), unpacked)?;
        let stream = Stream::new(StreamFlags::DEFAULT, None).map_err(cuda("creating a stream"))?;
        let info = DeviceInfo { kernel_image, ..info };
        let cluster = if major >= 9 { cluster::ClusterLaunch::resolve() } else { None };
        // Only a module whose pass kernels wait for their predecessor (the
        // sm_90 build has `griddepcontrol`) may launch them as dependents.
        let pdl = options.pdl && image::dependent_launch(ptx_arch);
        let pdl_graph = options.pdl_graph;
        let inner = GpuInner {
            module,
            stream,
            ctx,
            info,
            cluster,
            pdl,
            pdl_graph,
            shared_per_sm: smem_sm.max(0) as usize,
            threads: threads::ThreadUse::default(),
            staging: staging::Staging::with_max(options.staging_buffers),
        };
        external::note_opened(ordinal);
        Ok(Self { inner: std::sync::Arc::new(inner) })
    }

    /// What the device is.
    pub fn info(&self) -> &DeviceInfo {
        &self.inner.info
    }

    /// Whether `other` is a handle to the same loaded GPU (the same
    /// context), e.g. before mixing buffers of two plans.
    pub fn same_as(&self, other: &Gpu) -> bool {
        std::sync::Arc::ptr_eq(&self.inner, &other.inner)
    }

    /// Makes this GPU's context current on the calling thread.
    pub(crate) fn bind(&self) -> Result<()> {
        self.note_thread();
        CurrentContext::set_current(&self.inner.ctx).map_err(|source| Error::Cuda {
            during: "binding the context",
            source: crate::DriverError(source),
        })
    }

    /// The cluster launcher, where the device and driver have clusters.
    pub(crate) fn cluster_launch(&self) -> Option<cluster::ClusterLaunch> {
        self.inner.cluster
    }

    /// The launcher of programmatic dependents on `stream` (sm_90 with
    /// `cuLaunchKernelEx`), unless this `Gpu` was created with
    /// [`GpuOptions::pdl`] off (a developer's switch for comparing the two),
    /// or with [`GpuOptions::pdl_graph`] off and the stream captures a graph (H100,
    /// graph replays ×100: `u64` N = 2^16 forward 6.88 → 6.60 µs with
    /// programmatic edges, `u32` 6.00 → 5.67; docs/latency.md).
    pub(crate) fn dependent_launch(&self, stream: &Stream) -> Option<cluster::ClusterLaunch> {
        self.inner
            .cluster
            .filter(|_| self.inner.pdl && (self.inner.pdl_graph || !graph::is_capturing(stream)))
    }

    /// Whether this `Gpu` ever launches programmatic dependents (sm_90 with
    /// `cuLaunchKernelEx` and [`GpuOptions::pdl`] on); [`Gpu::dependent_launch`]
    /// says whether a launch on a given stream does.
    pub(crate) fn launches_dependents(&self) -> bool {
        self.inner.pdl && self.inner.cluster.is_some()
    }

    /// Shared memory of one SM in bytes (0 where the driver did not say).
    pub(crate) fn shared_per_sm(&self) -> usize {
        self.inner.shared_per_sm
    }

    pub(crate) fn module(&self) -> &Module {
        &self.inner.module
    }

    pub(crate) fn stream(&self) -> &Stream {
        &self.inner.stream
    }

    /// The pinned staging memory of large copies.
    pub(crate) fn staging(&self) -> &staging::Staging {
        &self.inner.staging
    }

    /// A new stream on this GPU, for binding plans to (`set_stream`), so
    /// that work of different plans (or host threads) can overlap.
    pub fn create_stream(&self) -> Result<GpuStream> {
        self.bind()?;
        let s = Stream::new(StreamFlags::DEFAULT, None).map_err(Error::cuda("creating a stream", 0))?;
        Ok(GpuStream { inner: std::sync::Arc::new(s), _gpu: self.clone() })
    }

    /// Waits until all queued work is done; reports errors of earlier launches.
    pub fn synchronize(&self) -> Result<()> {
        self.bind()?;
        self.inner.stream.synchronize().map_err(Error::cuda("waiting for the GPU", 0))
    }

    /// Copies `data` to a new device buffer (empty `data`: an empty buffer,
    /// no allocation). Plans validate before they upload; this does not.
    ///
    /// # Errors
    /// [`Error::OutOfDeviceMemory`] if the device has no room.
    pub fn upload<W: Coeff>(&self, data: &[W]) -> Result<DeviceVec<W>> {
        self.bind()?;
        let bytes = std::mem::size_of_val(data);
        let buf = DeviceBuffer::from_slice(data).map_err(Error::cuda("uploading", bytes))?;
        Ok(DeviceVec::from_buffer(self, buf))
    }

    /// A new device buffer of `len` zeros (`len = 0`: an empty buffer, no
    /// allocation).
    ///
    /// # Errors
    /// [`Error::OutOfDeviceMemory`] if the device has no room (or `len`
    /// words exceed the address space).
    pub fn zeros<W: Coeff>(&self, len: usize) -> Result<DeviceVec<W>> {
        self.bind()?;
        let Some(bytes) = len.checked_mul(std::mem::size_of::<W>()) else {
            return Err(Error::OutOfDeviceMemory { during: "allocating", bytes: usize::MAX });
        };
        if len == 0 {
            // SAFETY: `uninitialized` is unsafe because the words are
            // uninitialised; a zero-length buffer has no words (cust allocates
            // nothing), so none is ever read.
            let buf = unsafe { DeviceBuffer::uninitialized(0) }.map_err(Error::cuda("allocating", 0))?;
            return Ok(DeviceVec::from_buffer(self, buf));
        }
        let buf = DeviceBuffer::zeroed(len).map_err(Error::cuda("allocating", bytes))?;
        Ok(DeviceVec::from_buffer(self, buf))
    }

    /// Copies device words back (after all queued work on the stream).
    pub fn download<W: Coeff>(&self, v: &DeviceView<W>) -> Result<Vec<W>> {
        self.synchronize()?;
        let mut out = vec![W::default(); v.len()];
        if !v.is_empty() {
            v.slice().copy_to(&mut out[..]).map_err(Error::cuda("downloading", 0))?;
        }
        Ok(out)
    }

    /// Overwrites device words with `data` (same length).
    pub fn copy_into<W: Coeff>(&self, v: &mut DeviceView<W>, data: &[W]) -> Result<()> {
        if data.len() != v.len() {
            return Err(Error::LengthMismatch { what: "data", got: data.len(), expected: v.len() });
        }
        self.synchronize()?;
        if data.is_empty() {
            return Ok(());
        }
        v.slice_mut().copy_from(data).map_err(Error::cuda("uploading", std::mem::size_of_val(data)))
    }
}

/// A CUDA stream of a [`Gpu`], shareable between plans (cloning shares the
/// stream). A plan bound to it queues its launches there instead of on the
/// GPU's own stream.
#[derive(Clone)]
pub struct GpuStream {
    pub(crate) inner: std::sync::Arc<Stream>,
    /// The GPU whose context owns the stream, dropped after it: the context
    /// outlives every stream of it (as it does every [`DeviceVec`]).
    _gpu: Gpu,
}

impl std::fmt::Debug for GpuStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("GpuStream")
    }
}

impl GpuStream {
    /// Waits for the work queued on this stream (the GPU's context must
    /// be current: call it through a plan or after [`Gpu::synchronize`]
    /// on the same thread, or use the plan's `synchronize`).
    pub fn synchronize(&self, gpu: &Gpu) -> Result<()> {
        gpu.bind()?;
        self.inner.synchronize().map_err(Error::cuda("waiting for a stream", 0))
    }
}

/// [`Error::NoGpu`]'s detail where the driver library could not be opened
/// (`why`: the loader's message for each file tried).
fn no_driver_detail(why: &str) -> String {
    let lib = cust::sys::DRIVER_NAMES[0];
    format!(
        "the NVIDIA driver library {lib} was not found ({why}); install the NVIDIA driver for a GPU, \
         or set {} to the library's path",
        cust::sys::DRIVER_ENV
    )
}
