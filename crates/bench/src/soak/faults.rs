//! Fault injection: a memory hog that takes most of the free device memory
//! at random moments and holds it a short while (a thread of this process,
//! through the soak's `Gpu`), or a second process that does (`polymul-bench
//! hog`). While a fault is active, calls may fail with `OutOfMemory`, and
//! must fail with nothing else. The two hogs take turns ([`FaultState::turn`]):
//! while one holds memory the other waits, so that the hog process is not
//! left without the memory to create its context.

use super::{HOG_KEY, HOG_PROCESS_KEY, Shared};
use polymul::Gpu;
use polymul::expert::{GpuTiming, SplitMix64};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// Whether a fault is active, and a counter of starts and ends.
#[derive(Debug, Default)]
pub struct FaultState {
    active: AtomicUsize,
    epoch: AtomicU64,
    /// Faults injected (in-process hogs that held memory).
    pub injected: AtomicU64,
    /// Hog processes that held memory.
    pub process_runs: AtomicU64,
    /// Hog attempts that could not allocate (memory already short).
    pub missed: AtomicU64,
    /// Held by a hog from before it reads the free memory until its memory
    /// is freed: the in-process hog and the hog process never overlap.
    turn: Mutex<()>,
}

/// A fault state seen at one moment ([`FaultState::snapshot`]).
#[derive(Debug, Clone, Copy)]
pub struct Snapshot {
    active: bool,
    epoch: u64,
}

impl Snapshot {
    /// Whether a fault was active at that moment.
    pub fn is_active(&self) -> bool {
        self.active
    }
}

impl FaultState {
    /// Marks a fault as starting (before its allocation, so that calls
    /// failing while it allocates count as under a fault).
    pub fn begin(&self) {
        self.active.fetch_add(1, Ordering::SeqCst);
        self.epoch.fetch_add(1, Ordering::SeqCst);
    }

    /// Marks a fault as over (after its memory is freed).
    pub fn end(&self) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
        self.active.fetch_sub(1, Ordering::SeqCst);
    }

    /// Waits for the hogs' turn (see `turn`); a poisoned lock (a hog thread
    /// that panicked) still serializes, so it is taken as is.
    pub fn turn(&self) -> MutexGuard<'_, ()> {
        self.turn.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The state now.
    pub fn snapshot(&self) -> Snapshot {
        let epoch = self.epoch.load(Ordering::SeqCst);
        Snapshot { active: self.active.load(Ordering::SeqCst) > 0, epoch }
    }

    /// Whether a fault was active at any time since `before`.
    pub fn overlapped(&self, before: Snapshot) -> bool {
        let now = self.snapshot();
        before.active || now.active || now.epoch != before.epoch
    }

    /// Waits until no fault is active (at most `limit`); whether none is.
    pub fn wait_clear(&self, limit: Duration) -> bool {
        let t0 = Instant::now();
        while self.active.load(Ordering::SeqCst) > 0 {
            if t0.elapsed() > limit {
                return false;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        true
    }
}

/// Sleeps `d` in short steps; false once the run is stopping.
fn nap(shared: &Shared, d: Duration) -> bool {
    let t0 = Instant::now();
    while t0.elapsed() < d {
        if shared.stopping() {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20).min(d));
    }
    !shared.stopping()
}

/// Milliseconds uniform in `lo..hi`.
fn ms(rng: &mut SplitMix64, lo: u64, hi: u64) -> Duration {
    Duration::from_millis(lo + rng.below(hi - lo))
}

/// The in-process hog: until the run stops, pauses 0.5 to 4 s, then takes
/// the free memory less the margin (in a few buffers, smaller ones where
/// the large ones no longer fit) and holds it 0.1 to 1.5 s.
pub(crate) fn hog_thread(shared: &Shared, seed: u64) {
    let mut rng = SplitMix64::new(seed ^ 0x4806_0000_0000_0001);
    let margin = shared.opts.hog_margin_mib << 20;
    loop {
        if !nap(shared, ms(&mut rng, 500, 4000)) {
            return;
        }
        let hold = ms(&mut rng, 100, 1500);
        shared.mark(HOG_KEY, "waiting for its turn".into());
        let _turn = shared.faults.turn();
        shared.faults.begin();
        shared.mark(HOG_KEY, "taking the free memory".into());
        let held = {
            let _g = shared.read_gate();
            grab(&shared.gpu, margin)
        };
        match held {
            Ok(bufs) if !bufs.is_empty() => {
                shared.faults.injected.fetch_add(1, Ordering::Relaxed);
                shared
                    .mark(HOG_KEY, format!("holding {} buffers for {:.3} s", bufs.len(), hold.as_secs_f64()));
                nap(shared, hold);
                shared.mark(HOG_KEY, "freeing".into());
                let _g = shared.read_gate();
                drop(bufs);
            }
            Ok(_) => {
                shared.faults.missed.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                shared.faults.missed.fetch_add(1, Ordering::Relaxed);
                eprintln!("soak: the memory hog could not read the free memory: {e}");
            }
        }
        shared.faults.end();
        shared.unmark(HOG_KEY);
    }
}

/// Takes `free − margin` bytes in buffers of at most 1 GiB (1 GiB buffers
/// first, then halving down to 1 MiB where the next no longer fits).
fn grab(gpu: &Gpu, margin: usize) -> polymul::Result<Vec<polymul::DeviceVec<u64>>> {
    let (free, _) = gpu.device_memory()?;
    let mut left = free.saturating_sub(margin);
    let mut bufs = Vec::new();
    let mut chunk = 1usize << 30;
    while left >= 1 << 20 && chunk >= 1 << 20 {
        let bytes = chunk.min(left);
        match gpu.zeros::<u64>(bytes / 8) {
            Ok(v) => {
                bufs.push(v);
                left -= bytes;
            }
            Err(e) if e.kind() == polymul::ErrorKind::OutOfMemory => chunk /= 2,
            Err(e) => {
                drop(bufs);
                return Err(e);
            }
        }
    }
    Ok(bufs)
}

/// The hog process: until the run stops, pauses 2 to 8 s, then starts
/// `current_exe() hog --bytes B --seconds S` taking the free memory less
/// the margin and the child's own context (512 MiB), for 0.3 to 2 s, and
/// waits for it to exit. The fault counts from the start of the process to
/// its exit.
pub(crate) fn hog_process_thread(shared: &Shared, seed: u64) {
    let mut rng = SplitMix64::new(seed ^ 0x4806_0000_0000_0002);
    let margin = shared.opts.hog_margin_mib << 20;
    let exe = match std::env::current_exe() {
        Ok(e) => e,
        Err(e) => {
            eprintln!("soak: --hog-process on, but the binary's path is unknown ({e}): no hog process");
            return;
        }
    };
    loop {
        if !nap(shared, ms(&mut rng, 2000, 8000)) {
            return;
        }
        shared.mark(HOG_PROCESS_KEY, "waiting for its turn".into());
        let _turn = shared.faults.turn();
        shared.mark(HOG_PROCESS_KEY, "reading the free memory".into());
        let free = {
            let _g = shared.read_gate();
            shared.gpu.device_memory().map(|m| m.0)
        };
        let Ok(free) = free else {
            shared.unmark(HOG_PROCESS_KEY);
            continue;
        };
        let bytes = free.saturating_sub(margin + (512 << 20));
        let secs = 0.3 + rng.below(1700) as f64 / 1000.0;
        shared.faults.begin();
        shared.mark(HOG_PROCESS_KEY, format!("a hog process of {bytes} bytes for {secs:.3} s"));
        let out = std::process::Command::new(&exe)
            .args(["hog", "--bytes", &bytes.to_string(), "--seconds", &format!("{secs:.3}")])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .output();
        shared.faults.end();
        shared.unmark(HOG_PROCESS_KEY);
        match out {
            Ok(o) if o.status.success() => {
                shared.faults.process_runs.fetch_add(1, Ordering::Relaxed);
            }
            Ok(o) => {
                shared.faults.missed.fetch_add(1, Ordering::Relaxed);
                let err = String::from_utf8_lossy(&o.stderr);
                eprintln!("soak: hog process exited with {}: {}", o.status, err.trim());
            }
            Err(e) => {
                shared.faults.missed.fetch_add(1, Ordering::Relaxed);
                eprintln!("soak: could not start the hog process: {e}");
            }
        }
    }
}

/// `polymul-bench hog --bytes B --seconds S`: holds B bytes of device
/// memory (less, in 256 MiB steps, where B does not fit) for S seconds.
/// Exit code 0 held, 2 no GPU, 3 nothing could be allocated.
pub fn hog_main(args: &[String]) -> i32 {
    let mut bytes = 0usize;
    let mut secs = 1.0f64;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match (a.as_str(), it.next().map(|v| v.as_str())) {
            ("--bytes", Some(v)) => bytes = v.parse().unwrap_or(0),
            ("--seconds", Some(v)) => secs = v.parse().unwrap_or(1.0),
            _ => {
                eprintln!("usage: polymul-bench hog --bytes B --seconds S");
                return 2;
            }
        }
    }
    let gpu = match Gpu::new() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("hog: {e}");
            return 2;
        }
    };
    let mut want = bytes;
    let held = loop {
        if want < 1 << 20 {
            eprintln!("hog: could not allocate even 1 MiB (asked {bytes} bytes)");
            return 3;
        }
        match gpu.zeros::<u64>(want / 8) {
            Ok(v) => break v,
            Err(e) if e.kind() == polymul::ErrorKind::OutOfMemory => want = want.saturating_sub(256 << 20),
            Err(e) => {
                eprintln!("hog: {e}");
                return 3;
            }
        }
    };
    println!("hog: holding {} MiB for {secs:.3} s", (held.len() * 8) >> 20);
    std::thread::sleep(Duration::from_secs_f64(secs.clamp(0.0, 600.0)));
    drop(held);
    0
}
