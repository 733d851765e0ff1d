//! CUDA-event timing: warm up, then time each repetition with a pair of
//! events on the GPU's stream, and report the median.

use super::{DeviceVec, Gpu};
use crate::{Error, Result};
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

impl Gpu {
    /// Runs `work` `warmup` times, then times `reps` runs with CUDA events.
    ///
    /// `work` must only queue work on this GPU's stream (plans do).
    pub fn time<F: FnMut() -> Result<()>>(&self, warmup: usize, reps: usize, mut work: F) -> Result<Timing> {
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

    /// Device-to-device copy bandwidth in GB/s (bytes read + bytes written),
    /// measured with a `bytes`-sized buffer: the ceiling for memory-bound
    /// kernels that every GPU timing is compared with.
    ///
    /// # Errors
    /// [`Error::ArgumentOutOfRange`] below 8 bytes (one word), then
    /// [`Error::OutOfDeviceMemory`] if two such buffers do not fit.
    pub fn copy_bandwidth_gbs(&self, bytes: usize, reps: usize) -> Result<f64> {
        if bytes < 8 {
            let (value, max) = (bytes as u64, usize::MAX as u64);
            return Err(Error::ArgumentOutOfRange { what: "bytes", value, min: 8, max });
        }
        let words = bytes / 8;
        let src: DeviceVec<u64> = self.zeros(words)?;
        let mut dst: DeviceVec<u64> = self.zeros(words)?;
        let t = self.time(3, reps, || {
            // SAFETY: both buffers live until the closure's work completes
            // (`time` synchronises before returning).
            unsafe { dst.buf.async_copy_from(&src.buf, self.stream()) }.map_err(Error::cuda("copying", bytes))
        })?;
        Ok(2.0 * (words * 8) as f64 / (t.median_us * 1e3))
    }
}
