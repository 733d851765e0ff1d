//! CUDA-event timing: warm up, then time each repetition with a pair of
//! events on the GPU's stream, and report the median.

use super::{DeviceVec, Gpu};
use crate::{Coeff, Error, Result};
use cust::event::{Event, EventFlags};
use cust::memory::AsyncCopyDestination;

/// Statistics of repeated GPU timings, in microseconds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Timing {
    /// Median of the repetitions.
    pub median_us: f64,
    /// Fastest repetition.
    pub min_us: f64,
    /// Slowest repetition.
    pub max_us: f64,
    /// Number of timed repetitions.
    pub reps: usize,
}

/// Median of a non-empty sample (NaN for an empty one).
pub fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return f64::NAN;
    }
    v.sort_by(|a, b| a.total_cmp(b));
    let m = v.len() / 2;
    if v.len() % 2 == 1 { v[m] } else { 0.5 * (v[m - 1] + v[m]) }
}

/// Timing tools on a [`Gpu`] (for benchmarks: `polymul::expert`): CUDA
/// events around queued work, and the floors a measurement is compared
/// with (the lazy-butterfly compute rate, the copy bandwidth).
pub trait GpuTiming {
    /// Runs `work` `warmup` times, then times `reps` runs with CUDA events.
    ///
    /// `work` must only queue work on this GPU's stream (plans do).
    fn time<F: FnMut() -> Result<()>>(&self, warmup: usize, reps: usize, work: F) -> Result<Timing>;

    /// The compute floor of the lazy NTT on this GPU: Harvey butterflies
    /// per second, device-wide, from a register-only kernel (8 blocks of
    /// 256 threads per SM, each thread 4 independent butterflies per round,
    /// `rounds` rounds; median of `reps` timed runs) modulo `q`.
    /// A `2^k`-point NTT needs `k · 2^(k−1)` of them.
    ///
    /// # Errors
    /// [`Error::ArgumentOutOfRange`] for `q` wider than the lazy kernels
    /// allow (62 bits on `u64`, 30 on `u32`) or below 3, or `rounds = 0`;
    /// then launch errors.
    fn lazy_butterfly_rate<W: Coeff>(&self, q: W, rounds: u32, reps: usize) -> Result<f64>;

    /// Device-to-device copy bandwidth in GB/s (bytes read + bytes written),
    /// measured with a `bytes`-sized buffer: the ceiling for memory-bound
    /// kernels that every GPU timing is compared with.
    ///
    /// # Errors
    /// [`Error::ArgumentOutOfRange`] below 8 bytes (one word), then
    /// [`Error::OutOfDeviceMemory`] if two such buffers do not fit.
    fn copy_bandwidth_gbs(&self, bytes: usize, reps: usize) -> Result<f64>;

    /// Host ↔ device copy bandwidth over the bus in GB/s, `(host to
    /// device, device to host)`, each the median of `reps` copies of
    /// `bytes` bytes between page-locked (pinned) host memory and the
    /// device: the ceiling of host-slice calls, whose words cross the bus.
    ///
    /// # Errors
    /// [`Error::ArgumentOutOfRange`] below 8 bytes (one word), then
    /// [`Error::OutOfDeviceMemory`] if the buffers do not fit.
    fn host_copy_gbs(&self, bytes: usize, reps: usize) -> Result<(f64, f64)>;

    /// The host's own copy rate between pageable and pinned memory in GB/s,
    /// `(pageable to pinned, pinned to pageable)`, each the wall-clock
    /// median of `reps` copies of `bytes` bytes (after one warm-up) as a
    /// split host-slice call makes them: in 8 MiB segments, each on every
    /// core of rayon's pool, into (out of) a pinned buffer of this GPU's
    /// staging pool. With [`host_copy_gbs`](Self::host_copy_gbs), the
    /// ceilings of a split host-slice call: its cores copy each operand and
    /// the result once, its copy engines move them over the bus.
    ///
    /// # Errors
    /// [`Error::ArgumentOutOfRange`] below 8 bytes (one word), then
    /// [`Error::OutOfDeviceMemory`] if the pinned buffer cannot be
    /// allocated.
    fn host_staging_gbs(&self, bytes: usize, reps: usize) -> Result<(f64, f64)>;

    /// The device's `(free, total)` memory in bytes (`cuMemGetInfo`).
    ///
    /// # Errors
    /// A driver error.
    fn device_memory(&self) -> Result<(usize, usize)>;

    /// Copy bandwidth from this GPU's memory to `to`'s in GB/s (bytes
    /// moved), the median of `reps` copies of `bytes` bytes, and whether
    /// they went over the GPUs' own link: peer access is enabled where the
    /// devices allow it (else the driver copies through host memory). The
    /// ceiling of a multi-device plan's gathers.
    ///
    /// # Errors
    /// [`Error::ArgumentOutOfRange`] below 8 bytes (one word), then
    /// [`Error::OutOfDeviceMemory`] if the buffers do not fit.
    fn peer_copy_gbs(&self, to: &Gpu, bytes: usize, reps: usize) -> Result<(f64, bool)>;
}

impl GpuTiming for Gpu {
    /// Runs `work` `warmup` times, then times `reps` runs with CUDA events.
    ///
    /// `work` must only queue work on this GPU's stream (plans do).
    fn time<F: FnMut() -> Result<()>>(&self, warmup: usize, reps: usize, mut work: F) -> Result<Timing> {
        self.bind()?;
        let ev = |_| Event::new(EventFlags::DEFAULT).map_err(Error::cuda("creating an event", 0));
        let (start, stop) = (ev(())?, ev(())?);
        for _ in 0..warmup {
            work()?;
        }
        self.synchronize()?;
        let mut samples = Vec::with_capacity(reps);
        for _ in 0..reps.max(1) {
            start.record(self.stream()).map_err(Error::cuda("recording an event", 0))?;
            work()?;
            stop.record(self.stream()).map_err(Error::cuda("recording an event", 0))?;
            stop.synchronize().map_err(Error::cuda("waiting for an event", 0))?;
            let ms = stop.elapsed_time_f32(&start).map_err(Error::cuda("reading an event", 0))?;
            samples.push(ms as f64 * 1e3);
        }
        let min_us = samples.iter().copied().fold(f64::INFINITY, f64::min);
        let max_us = samples.iter().copied().fold(0.0, f64::max);
        let n = samples.len();
        Ok(Timing { median_us: median(&mut samples), min_us, max_us, reps: n })
    }

    /// The compute floor of the lazy NTT on this GPU: Harvey butterflies
    /// per second, device-wide, from a register-only kernel (8 blocks of
    /// 256 threads per SM, each thread 4 independent butterflies per round,
    /// `rounds` rounds; median of `reps` timed runs) modulo `q`.
    /// A `2^k`-point NTT needs `k · 2^(k−1)` of them.
    ///
    /// # Errors
    /// [`Error::ArgumentOutOfRange`] for `q` wider than the lazy kernels
    /// allow (62 bits on `u64`, 30 on `u32`) or below 3, or `rounds = 0`;
    /// then launch errors.
    fn lazy_butterfly_rate<W: Coeff>(&self, q: W, rounds: u32, reps: usize) -> Result<f64> {
        let max = polymul_kernels::arith::harvey::max_bits(W::BITS);
        let (q64, limit) = (q.as_u64(), (1u64 << max) - 1);
        if !(3..=limit).contains(&q64) {
            return Err(Error::ArgumentOutOfRange { what: "q", value: q64, min: 3, max: limit });
        }
        if rounds == 0 {
            return Err(Error::ArgumentOutOfRange { what: "rounds", value: 0, min: 1, max: u32::MAX as u64 });
        }
        let w = polymul_kernels::arith::harvey::ShoupPair::new(W::from_u64(q64 / 3), q).unwrap_or_default();
        let (blocks, threads) = (self.info().multiprocessors.max(1) as u32 * 8, 256u32);
        let out: DeviceVec<W> = self.zeros((blocks * threads) as usize)?;
        let f = super::kernel::TypedKernel::get::<W, _>(self, polymul_kernels::names::ButterflyFloorKernel)?;
        const KERNEL: &str = "the butterfly floor";
        let out_buf = super::launch::buf(out.ptr(), out.len());
        let args = polymul_kernels::microbench::ButterflyFloorArgs::new(
            out_buf,
            u64::from(blocks * threads),
            rounds,
            w,
            q,
        )
        .map_err(super::launch::refused(KERNEL))?;
        let queue = super::launch::Queue::of(self);
        let t = self.time(1, reps, || {
            // SAFETY: the invariants of `ButterflyFloorArgs` (polymul-kernels
            // `microbench.rs`), `out`'s extent and `q`'s range checked by
            // `ButterflyFloorArgs::new`: `out` holds `blocks · threads` words
            // (`self.zeros` above), one per launched thread of the `blocks` ×
            // `threads` grid, and outlives `self.time`, which waits for every run
            // before it returns `Ok`; `q` is in `3..=limit` (checked above). The
            // context is current: `Gpu::time` calls `Gpu::bind` first.
            unsafe { f.launch(&queue, blocks, threads, 0, &args, "launching the butterfly floor") }
        })?;
        Ok(4.0 * f64::from(blocks * threads) * f64::from(rounds) / (t.median_us * 1e-6))
    }

    /// Device-to-device copy bandwidth in GB/s (bytes read + bytes written),
    /// measured with a `bytes`-sized buffer: the ceiling for memory-bound
    /// kernels that every GPU timing is compared with.
    ///
    /// # Errors
    /// [`Error::ArgumentOutOfRange`] below 8 bytes (one word), then
    /// [`Error::OutOfDeviceMemory`] if two such buffers do not fit.
    fn copy_bandwidth_gbs(&self, bytes: usize, reps: usize) -> Result<f64> {
        if bytes < 8 {
            let (value, max) = (bytes as u64, usize::MAX as u64);
            return Err(Error::ArgumentOutOfRange { what: "bytes", value, min: 8, max });
        }
        let words = bytes / 8;
        let src: DeviceVec<u64> = self.zeros(words)?;
        let mut dst: DeviceVec<u64> = self.zeros(words)?;
        let t = self.time(3, reps, || {
            // SAFETY: `async_copy_from` needs both buffers to stay allocated
            // until the copy runs: `src` and `dst` are distinct live allocations
            // of `words` words each (`self.zeros` above), and both outlive
            // `self.time`, which waits for every run (its `synchronize` after the
            // warm-up, its stop event after each timed run) before it returns
            // `Ok`. The stream is this GPU's, of the context `Gpu::time` binds
            // first.
            unsafe { dst.buf.async_copy_from(&*src.buf, self.stream()) }
                .map_err(Error::cuda("copying", bytes))
        })?;
        Ok(2.0 * (words * 8) as f64 / (t.median_us * 1e3))
    }

    fn host_staging_gbs(&self, bytes: usize, reps: usize) -> Result<(f64, f64)> {
        if bytes < 8 {
            let (value, max) = (bytes as u64, usize::MAX as u64);
            return Err(Error::ArgumentOutOfRange { what: "bytes", value, min: 8, max });
        }
        super::split::staging_copy_gbs(self, bytes / 8, reps)
    }

    fn host_copy_gbs(&self, bytes: usize, reps: usize) -> Result<(f64, f64)> {
        if bytes < 8 {
            let (value, max) = (bytes as u64, usize::MAX as u64);
            return Err(Error::ArgumentOutOfRange { what: "bytes", value, min: 8, max });
        }
        let words = bytes / 8;
        let mut dev: DeviceVec<u64> = self.zeros(words)?;
        // `zeros` bound the context (`cuMemAllocHost` needs it).
        let mut host = cust::memory::LockedBuffer::new(&0u64, words)
            .map_err(Error::cuda("allocating pinned host memory", words * 8))?;
        let up = self.time(2, reps, || {
            // SAFETY: `async_copy_from` needs `host` to stay allocated and
            // unwritten until the copy has run: it is a live pinned buffer of
            // `words` words, the length of `dev`, and both outlive `self.time`,
            // which waits for every run before it returns `Ok` (and `host` is
            // not written meanwhile). The stream is this GPU's, of the context
            // `Gpu::time` binds first.
            unsafe { dev.buf.async_copy_from(&*host, self.stream()) }.map_err(Error::cuda("uploading", bytes))
        })?;
        let down = self.time(2, reps, || {
            // SAFETY: as above, the other way: `host` is written by the copies
            // and read by no one until `self.time` has waited for all of them.
            unsafe { dev.buf.async_copy_to(&mut *host, self.stream()) }
                .map_err(Error::cuda("downloading", bytes))
        })?;
        let gbs = |t: Timing| (words * 8) as f64 / (t.median_us * 1e3);
        Ok((gbs(up), gbs(down)))
    }

    fn peer_copy_gbs(&self, to: &Gpu, bytes: usize, reps: usize) -> Result<(f64, bool)> {
        if bytes < 8 {
            let (value, max) = (bytes as u64, usize::MAX as u64);
            return Err(Error::ArgumentOutOfRange { what: "bytes", value, min: 8, max });
        }
        super::peer::peer_copy_gbs(self, to, bytes / 8, reps)
    }

    fn device_memory(&self) -> Result<(usize, usize)> {
        self.bind()?;
        cust::memory::mem_get_info().map_err(Error::cuda("reading free device memory", 0))
    }
}

/// A chain of `launches` empty kernels (`launch_floor`) on the GPU's stream,
/// each launched as the NTT and DGT passes are (a programmatic dependent of
/// the one before where the GPU allows): what an operation of that many
/// launches costs however little its kernels compute. The latency bench
/// times it beside the operations.
///
/// ```no_run
/// use polymul::expert::GpuTiming;
/// let gpu = polymul::Gpu::new()?;
/// let two = polymul::expert::LaunchChain::new(&gpu, 2)?;
/// let t = gpu.time(10, 100, || two.queue())?;
/// println!("two launches: {:.2} µs", t.median_us);
/// # Ok::<(), polymul::Error>(())
/// ```
pub struct LaunchChain {
    gpu: Gpu,
    f: super::kernel::Kernel,
    launches: u32,
}

impl std::fmt::Debug for LaunchChain {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LaunchChain").field("launches", &self.launches).finish_non_exhaustive()
    }
}

impl LaunchChain {
    /// A chain of `launches` empty kernels.
    ///
    /// # Errors
    /// [`Error::ArgumentOutOfRange`] for no launch or more than 1024; a
    /// driver error if the kernel is missing.
    pub fn new(gpu: &Gpu, launches: u32) -> Result<Self> {
        if !(1..=1024).contains(&launches) {
            return Err(Error::ArgumentOutOfRange {
                what: "launches",
                value: launches.into(),
                min: 1,
                max: 1024,
            });
        }
        let f = super::kernel::Kernel::get(gpu, polymul_kernels::names::LAUNCH_FLOOR)?;
        Ok(Self { gpu: gpu.clone(), f, launches })
    }

    /// Queues the chain (one block of 32 threads per launch) and returns.
    pub fn queue(&self) -> Result<()> {
        self.gpu.bind()?;
        let stream = self.gpu.stream();
        for _ in 0..self.launches {
            let mut params: [*mut std::ffi::c_void; 0] = [];
            // SAFETY: `launch_floor` takes no parameters (the empty `params`
            // matches) and touches no memory, so any geometry is in bounds and,
            // as a programmatic dependent (`ClusterLaunch::launch_dependent`'s
            // condition), it has no global access to order; `self.f` is a
            // function of `self.gpu`'s loaded module (`Kernel`, gpu/kernel.rs)
            // and `stream` the GPU's own stream, of the context `Gpu::bind` made
            // current above.
            unsafe {
                if let Some(l) = self.gpu.dependent_launch(stream) {
                    l.launch_dependent(
                        &self.f,
                        ((1, 1), 32, 0),
                        stream,
                        &mut params,
                        "launching the launch floor",
                    )?;
                } else {
                    stream
                        .launch(&self.f, 1, 32, 0, &params)
                        .map_err(Error::cuda("launching the launch floor", 0))?;
                }
            }
        }
        Ok(())
    }

    /// The chain captured as a graph (one driver call per replay).
    ///
    /// # Errors
    /// A [`Error::CudaCode`] if the driver refuses the capture.
    pub fn capture(&self) -> Result<super::Graph<'_, ()>> {
        super::graph::capture(super::launch::Queue::of(&self.gpu), self, (), |c, _| c.queue())
    }
}
