//! `polymul-bench soak`: a long, reproducible, randomized run with fault
//! injection (issue 33).
//!
//! ```text
//! polymul-bench soak [--minutes M] [--threads T] [--seed S] [--faults on|off] [--hog-process on|off]
//!                    [--hog-margin-mib M] [--max-operand-mib M] [--mem-tolerance-mib M] [--big on|off] [--warm-up on|off]
//!                    [--stall-seconds S] [--replay SEED:THREAD:CALL]
//! ```
//!
//! `T` threads share one `Gpu`; thread `i` draws its calls from a generator
//! seeded by `(S, i)` ([`cases`]): the word, N (2 to 2^20, mostly small),
//! the plan kind (NTT, RNS of 1 to 40 towers, DGT, conversions, the
//! planner's choice), the kernel configuration, the batch, the entry points
//! and buffers (host slices, `DeviceVec`s, foreign device pointers, explicit
//! graphs, the plans' graph cache), the stream, whether the plan is shared
//! through a cache (and dropped after). Every result is compared with the
//! CPU ([`mod@reference`]); a mismatch or an unexpected error prints the case
//! and how to replay it (`--replay SEED:THREAD:CALL`).
//!
//! With `--faults on` (the default) a memory hog takes all but
//! `--hog-margin-mib` of the free device memory at random moments
//! ([`faults`]), and `--hog-process on` does the same from a second process
//! (`polymul-bench hog`). A call that fails must fail with `OutOfMemory`
//! while a fault is active, leave what the library promises (`exec.rs`), and
//! the next call on the same plan must succeed and be right.
//!
//! **Threads and graph captures.** A capture must not overlap another
//! host thread's allocations, frees or synchronous copies on the same
//! device (`Gpu`'s docs). Every GPU section of the soak (a call with its
//! allocations, downloads and drops; the hog's allocation and free) holds a
//! read lock of one gate; explicit captures and the graph-cache calls of
//! thread 0 (on a `Gpu` of its own, the only one whose plans capture on
//! their own) hold its write lock.
//!
//! At the end every plan and buffer is dropped and the device's free
//! memory (`cuMemGetInfo`) must be back at its baseline, measured after a
//! warm-up that ran every kernel configuration once (so the driver's
//! per-context allocations that grow on first use, such as local memory,
//! are in the baseline), within `--mem-tolerance-mib`.

pub mod cases;
mod exec;
pub mod faults;
pub mod reference;
pub mod report;

use cases::{Api, Case, Kind, Limits, Op, Word};
use exec::{Fail, PlanCache};
use faults::FaultState;
use polymul::expert::GpuTiming;
use polymul::{Gpu, GpuStream};
use report::{Counters, mib};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, RwLock, RwLockReadGuard};
use std::time::{Duration, Instant};

/// The soak's options.
#[derive(Debug, Clone)]
pub struct SoakOptions {
    /// Minutes to run (fractional allowed).
    pub minutes: f64,
    /// Host threads making calls.
    pub threads: usize,
    /// The run's seed.
    pub seed: u64,
    /// The in-process memory hog.
    pub faults: bool,
    /// The hog process.
    pub hog_process: bool,
    /// Bytes the hogs leave free, in MiB.
    pub hog_margin_mib: usize,
    /// Most bytes of one operand of a call, in MiB (less where the device
    /// is small: see [`run`]).
    pub max_operand_mib: usize,
    /// How far below the baseline the free memory may end, in MiB.
    pub mem_tolerance_mib: usize,
    /// Batches above one launch's limit (16 GiB operands), now and then.
    pub big: bool,
    /// Run every kernel configuration once before the baseline is read
    /// (`--warm-up off`: under compute-sanitizer, where the warm-up's
    /// N = 2^20 calls take minutes and the memory baseline means little;
    /// the baseline is then the start's).
    pub warm_up: bool,
    /// Run one case only: `(seed, thread, call)`.
    pub replay: Option<(u64, u64, u64)>,
    /// A run in which no call finishes for this many seconds has stalled:
    /// the calls in flight (and what the hogs are doing) are printed, and
    /// after as long again the run fails (exit code 1). 0: never.
    pub stall_seconds: u64,
}

impl Default for SoakOptions {
    fn default() -> Self {
        Self {
            minutes: 5.0,
            threads: 4,
            seed: 1,
            faults: true,
            hog_process: false,
            hog_margin_mib: 64,
            max_operand_mib: 256,
            mem_tolerance_mib: 64,
            big: true,
            warm_up: true,
            replay: None,
            stall_seconds: 180,
        }
    }
}

/// Parses the soak's arguments (after `soak`).
pub fn parse(args: &[String]) -> Result<SoakOptions, String> {
    let mut o = SoakOptions::default();
    let mut it = args.iter();
    let on = |v: Option<&String>| match v.map(String::as_str) {
        Some("on") => Ok(true),
        Some("off") => Ok(false),
        other => Err(format!("expected on or off, got {other:?}")),
    };
    fn num<T: std::str::FromStr>(v: Option<&String>, what: &str) -> Result<T, String> {
        v.and_then(|s| s.parse().ok()).ok_or_else(|| format!("{what} needs a number"))
    }
    while let Some(a) = it.next() {
        match a.as_str() {
            "--minutes" => o.minutes = num(it.next(), "--minutes")?,
            "--threads" => o.threads = num(it.next(), "--threads")?,
            "--seed" => o.seed = num(it.next(), "--seed")?,
            "--faults" => o.faults = on(it.next())?,
            "--hog-process" => o.hog_process = on(it.next())?,
            "--big" => o.big = on(it.next())?,
            "--warm-up" => o.warm_up = on(it.next())?,
            "--hog-margin-mib" => o.hog_margin_mib = num(it.next(), "--hog-margin-mib")?,
            "--max-operand-mib" => o.max_operand_mib = num(it.next(), "--max-operand-mib")?,
            "--mem-tolerance-mib" => o.mem_tolerance_mib = num(it.next(), "--mem-tolerance-mib")?,
            "--stall-seconds" => o.stall_seconds = num(it.next(), "--stall-seconds")?,
            "--replay" => {
                let v = it.next().ok_or("--replay needs SEED:THREAD:CALL")?;
                let p: Vec<u64> = v.split(':').filter_map(|x| x.parse().ok()).collect();
                let [s, t, i] = p[..] else { return Err("--replay needs SEED:THREAD:CALL".into()) };
                o.replay = Some((s, t, i));
            }
            other => return Err(format!("unknown soak option {other}")),
        }
    }
    if !(o.minutes.is_finite() && o.minutes >= 0.0) {
        return Err("--minutes must be a non-negative number".into());
    }
    if !(1..=256).contains(&o.threads) {
        return Err("--threads must be 1 to 256".into());
    }
    if o.max_operand_mib == 0 {
        return Err("--max-operand-mib must be at least 1".into());
    }
    Ok(o)
}

/// What the threads share.
pub(crate) struct Shared {
    pub(crate) gpu: Gpu,
    pub(crate) opts: SoakOptions,
    /// Read: any GPU section; write: a section that captures graphs.
    gate: RwLock<()>,
    pub(crate) faults: FaultState,
    pub(crate) counters: Counters,
    pub(crate) cache32: PlanCache<u32>,
    pub(crate) cache64: PlanCache<u64>,
    stop: AtomicBool,
    /// The last batch above the launch limit (at most one at a time, one
    /// per [`BIG_INTERVAL`]).
    big_last: Mutex<Option<Instant>>,
    start: Instant,
    /// Operand cap of the run's cases.
    max_operand_bytes: usize,
    /// Whether the device and host are large enough for the big cases.
    big_fits: bool,
    /// When the run's calls stop (set once the warm-up is over).
    deadline: Mutex<Option<Instant>>,
    /// Each thread's call in flight, and what each hog is doing: since
    /// when, and what (printed for the calls still running past the
    /// deadline, and when the run stalls). Workers by thread number, the
    /// hogs by [`HOG_KEY`] and [`HOG_PROCESS_KEY`].
    in_flight: Mutex<BTreeMap<u64, (Instant, String)>>,
    /// Each worker's phase within its call ([`ThreadCtx::phase`]): since
    /// when, and which (printed beside [`Shared::in_flight`]).
    phases: Mutex<BTreeMap<u64, (Instant, &'static str)>>,
}

/// The warm-up's and a replay's [`ThreadCtx`] key.
pub(crate) const SOLO_KEY: u64 = (1 << 32) + 2;

/// The in-process hog's entry in [`Shared::mark`].
pub(crate) const HOG_KEY: u64 = 1 << 32;
/// The hog process thread's entry in [`Shared::mark`].
pub(crate) const HOG_PROCESS_KEY: u64 = (1 << 32) + 1;

/// No batch above the launch limit starts closer than this to the
/// deadline: one takes about a minute (seed 1's 8-thread run went 54 s
/// past its deadline, most likely on one).
const BIG_BEFORE_DEADLINE: Duration = Duration::from_secs(120);

/// Time between two batches above the launch limit (each moves 48 GiB
/// through the host).
const BIG_INTERVAL: Duration = Duration::from_secs(180);

impl Shared {
    pub(crate) fn stopping(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }

    /// Marks what `key` (a worker's thread number, or a hog's key) is doing
    /// from now on.
    pub(crate) fn mark(&self, key: u64, what: String) {
        self.in_flight.lock().unwrap_or_else(|e| e.into_inner()).insert(key, (Instant::now(), what));
    }

    /// `key` is doing nothing worth reporting.
    pub(crate) fn unmark(&self, key: u64) {
        self.in_flight.lock().unwrap_or_else(|e| e.into_inner()).remove(&key);
    }

    /// Prints every entry of [`Shared::mark`], each line starting `prefix`.
    fn print_in_flight(&self, prefix: &str) {
        for (k, (since, what)) in self.in_flight.lock().unwrap_or_else(|e| e.into_inner()).iter() {
            let who = match *k {
                HOG_KEY => "the in-process hog".to_string(),
                HOG_PROCESS_KEY => "the hog process thread".to_string(),
                t => format!("thread {t}"),
            };
            let phase = match self.phases.lock().unwrap_or_else(|e| e.into_inner()).get(k) {
                Some((at, p)) => format!(" [{p} for {:.0} s]", at.elapsed().as_secs_f64()),
                None => String::new(),
            };
            println!("soak: {prefix}: {who} for {:.0} s: {what}{phase}", since.elapsed().as_secs_f64());
        }
    }

    pub(crate) fn read_gate(&self) -> RwLockReadGuard<'_, ()> {
        self.gate.read().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether a big case may start now (and then it is marked started).
    fn take_big(&self) -> bool {
        if !self.big_fits || self.start.elapsed() < Duration::from_secs(60) {
            return false;
        }
        let near_end = self
            .deadline
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .is_some_and(|d| d.saturating_duration_since(Instant::now()) < BIG_BEFORE_DEADLINE);
        if near_end {
            return false;
        }
        let Ok(mut last) = self.big_last.try_lock() else { return false };
        if last.is_some_and(|t| t.elapsed() < BIG_INTERVAL) {
            return false;
        }
        *last = Some(Instant::now());
        true
    }

    fn limits(&self, thread: u64) -> Limits {
        Limits { max_operand_bytes: self.max_operand_bytes, private_gpu: thread == 0, big: self.opts.big }
    }
}

/// One soak thread's context.
pub(crate) struct ThreadCtx<'a> {
    pub(crate) shared: &'a Shared,
    /// The worker's number (its key in [`Shared::mark`]; [`SOLO_KEY`] for
    /// the warm-up and replays).
    thread: u64,
    /// The thread's own stream (cases with `own_stream`).
    pub(crate) stream: Option<GpuStream>,
    /// Thread 0's own `Gpu` (the graph-cache cases), made on first use.
    private: Mutex<Option<Gpu>>,
}

impl ThreadCtx<'_> {
    /// Runs `f` holding the gate: shared, or `exclusive` for a section
    /// that captures graphs.
    pub(crate) fn section<R>(&self, exclusive: bool, f: impl FnOnce() -> R) -> R {
        self.phase("waiting for the gate");
        let r = if exclusive {
            let _g = self.shared.gate.write().unwrap_or_else(|e| e.into_inner());
            self.phase("in an exclusive GPU section");
            f()
        } else {
            let _g = self.shared.read_gate();
            self.phase("in a GPU section");
            f()
        };
        self.phase("between GPU sections");
        r
    }

    /// Records what this thread is doing within its call (printed with the
    /// calls in flight when the run stalls or overruns).
    pub(crate) fn phase(&self, p: &'static str) {
        self.shared.phases.lock().unwrap_or_else(|e| e.into_inner()).insert(self.thread, (Instant::now(), p));
    }

    /// Thread 0's own `Gpu` (inside an exclusive section).
    pub(crate) fn private_gpu(&self) -> Result<Gpu, Fail> {
        let mut p = self.private.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(g) = p.as_ref() {
            return Ok(g.clone());
        }
        let g = crate::env_options::gpu()?;
        *p = Some(g.clone());
        Ok(g)
    }

    /// The device's free memory now, for a report.
    pub(crate) fn free_memory(&self) -> String {
        match self.shared.gpu.device_memory() {
            Ok((free, total)) => format!("{} of {}", mib(free), mib(total)),
            Err(e) => format!("unknown ({e})"),
        }
    }

    /// Prints a finding with the case and how to replay it.
    pub(crate) fn report(&self, what: &str, c: &Case, detail: &str) {
        println!(
            "soak: {what}: {detail}\n      case: {}\n      replay: polymul-bench soak --replay {}:{}:{} --max-operand-mib {} ({})",
            c.describe(),
            c.seed,
            c.thread,
            c.index,
            self.shared.max_operand_bytes >> 20,
            c.replay()
        );
    }
}

/// Runs one case, a panic counted as an unexpected error.
fn run_one(ctx: &ThreadCtx<'_>, c: &Case) {
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if c.big && ctx.shared.take_big() {
            exec::big_case(ctx, c)
        } else {
            match c.word {
                Word::U32 => exec::run_case::<u32>(ctx, c),
                Word::U64 => exec::run_case::<u64>(ctx, c),
            }
        }
    }));
    if r.is_err() {
        ctx.shared.counters.unexpected("panic".into());
        ctx.report("UNEXPECTED panic", c, "the call panicked (message above)");
    }
    ctx.shared.counters.calls.fetch_add(1, Ordering::Relaxed);
}

/// A soak thread: cases until the run stops.
fn worker(shared: &Shared, thread: u64) {
    let stream = {
        let _g = shared.read_gate();
        shared.gpu.create_stream()
    };
    let stream = match stream {
        Ok(s) => Some(s),
        Err(e) => {
            shared.counters.unexpected("creating a stream".into());
            println!("soak: thread {thread}: creating a stream: {e}");
            None
        }
    };
    let ctx = ThreadCtx { shared, thread, stream, private: Mutex::new(None) };
    let limits = shared.limits(thread);
    let mut index = 0u64;
    while !shared.stopping() {
        let c = cases::draw(shared.opts.seed, thread, index, &limits);
        shared.mark(thread, format!("{} ({})", c.describe(), c.replay()));
        run_one(&ctx, &c);
        shared.unmark(thread);
        index += 1;
    }
    // The private Gpu (and its module) and the stream go inside the gate.
    let _g = shared.gate.write().unwrap_or_else(|e| e.into_inner());
    drop(ctx);
}

/// Watches the calls counter: no call finished for `--stall-seconds` is a
/// stall (reported with what is in flight, an unexpected error); as long
/// again, and the run ends with exit code 1 (its GPU work cannot be
/// abandoned cleanly).
struct StallWatch {
    calls: u64,
    since: Instant,
    reported: bool,
}

impl StallWatch {
    fn new(shared: &Shared) -> Self {
        Self { calls: shared.counters.calls.load(Ordering::Relaxed), since: Instant::now(), reported: false }
    }

    fn check(&mut self, shared: &Shared) {
        let limit = shared.opts.stall_seconds;
        let calls = shared.counters.calls.load(Ordering::Relaxed);
        if calls != self.calls {
            if self.reported {
                println!("soak: the stall ended after {:.0} s", self.since.elapsed().as_secs_f64());
            }
            *self = Self { calls, since: Instant::now(), reported: false };
            return;
        }
        if limit == 0 {
            return;
        }
        let idle = self.since.elapsed().as_secs();
        if idle >= limit && !self.reported {
            self.reported = true;
            shared.counters.unexpected("stall (no call finished)".into());
            println!(
                "soak: UNEXPECTED STALL: no call finished in {idle} s ({calls} calls so far; faults active: {})",
                shared.faults.snapshot().is_active()
            );
            shared.print_in_flight("stalled");
        }
        if idle >= 2 * limit {
            println!("{}", shared.counters.progress(shared.start.elapsed().as_secs_f64()));
            shared.print_in_flight("stalled");
            println!("soak: FAIL: stalled for {idle} s; exiting without the summary");
            std::process::exit(1);
        }
    }
}

/// The warm-up: every kernel configuration of the check suite on both
/// words at N = 2^3, 2^12 (one and 64 polynomials) and 2^20, the DGT on both pipelines, an RNS plan and a conversion,
/// one thread, no faults. Their calls are checked like every other.
fn warm_up(ctx: &ThreadCtx<'_>) {
    let base = cases::draw(ctx.shared.opts.seed, u64::MAX, 0, &ctx.shared.limits(u64::MAX));
    let plain = |word, kind, log_n: u32, batch, towers| Case {
        word,
        kind,
        log_n,
        batch,
        towers,
        bits: match word {
            Word::U32 => 30,
            Word::U64 => 62,
        },
        op: Op::Polymul,
        api: Api::HostVec,
        variant: None,
        reduction: None,
        fused: false,
        graph_cache: true,
        dgt: None,
        coala: false,
        own_stream: false,
        shared_plan: false,
        big: false,
        log_q: 0,
        inputs: 2,
        ..base.clone()
    };
    let n_variants = crate::check::variants().len();
    let mut list = Vec::new();
    for word in [Word::U32, Word::U64] {
        for (log_n, batch) in [(3u32, 1usize), (12, 1), (12, 64), (20, 1)] {
            for v in 0..n_variants {
                let mut c = plain(word, Kind::Ntt, log_n, batch, 1);
                c.variant = Some(v);
                if cases::variant_fits(&c.plan_options(), log_n) {
                    c.op = Op::RoundTrip;
                    c.api = Api::DeviceInPlace;
                    list.push(c.clone());
                    c.op = Op::Polymul;
                    c.api = Api::HostVec;
                    list.push(c);
                }
            }
        }
        for (log_n, coala) in [(4u32, false), (12, false), (12, true), (17, false), (20, false)] {
            let mut c = plain(word, Kind::Dgt, log_n, 1, 1);
            c.coala = coala;
            list.push(c);
        }
        list.push(plain(word, Kind::Rns, 12, 2, 3));
        let mut c = plain(word, Kind::Convert, 10, 1, 1);
        c.log_q = 1240;
        c.api = Api::DeviceInto;
        list.push(c);
    }
    for (i, mut c) in list.into_iter().enumerate() {
        c.index = i as u64;
        c.input_seed ^= i as u64;
        run_one(ctx, &c);
    }
}

/// A CPU-only look at the case generator, where there is no GPU: draws
/// cases of a few threads and builds their parameters.
fn self_check(o: &SoakOptions) -> usize {
    let limits = Limits { max_operand_bytes: o.max_operand_mib << 20, private_gpu: true, big: o.big };
    let mut bad = 0;
    for t in 0..o.threads.min(4) as u64 {
        for i in 0..50 {
            let c = cases::draw(o.seed, t, i, &limits);
            let r = match c.word {
                Word::U32 => reference::Setup::<u32>::new(&c).map(|_| ()),
                Word::U64 => reference::Setup::<u64>::new(&c).map(|_| ()),
            };
            if let Err(e) = r {
                bad += 1;
                println!("soak self-check: {}: {e}", c.describe());
            }
        }
    }
    bad
}

/// Runs the soak; returns the process exit code.
pub fn run(o: &SoakOptions) -> i32 {
    let t0 = Instant::now();
    let gpu = match crate::env_options::gpu() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("polymul-bench soak needs a GPU: {e}");
            let bad = self_check(o);
            eprintln!(
                "soak: CPU-only self-check of the case generator: {} cases drawn, {bad} without parameters",
                50 * o.threads.min(4)
            );
            return 2;
        }
    };
    let i = gpu.info();
    println!(
        "soak: device {} (sm_{}{}, {} SMs, {}), kernels: {}",
        i.name,
        i.compute_capability.0,
        i.compute_capability.1,
        i.multiprocessors,
        mib(i.total_memory),
        i.kernel_image
    );
    let total = i.total_memory;
    let host_avail = host_available_bytes();
    // Big cases: 32 GiB of device memory and 48 GiB of host memory.
    let big_fits = o.big && total >= 64 << 30 && host_avail.is_none_or(|h| h >= 72 << 30);
    // Operands: room for every thread's call (about 8 operand-sized
    // buffers: operands, result, scratch, split pieces) beside a big case
    // and a 4 GiB reserve, so that the threads alone never run out.
    let reserve = (4usize << 30) + if big_fits { 34 << 30 } else { 0 };
    let per_thread = total.saturating_sub(reserve) / (8 * o.threads);
    let max_operand_bytes = (o.max_operand_mib << 20).min(per_thread).max(1 << 20);
    if let Some((seed, thread, index)) = o.replay {
        // A replay is one call on this thread: no workers, no faults.
        println!(
            "soak: replay of seed {seed} thread {thread} call {index}: one call, no faults, operands up to {}, \
             batches above the launch limit {}",
            mib(max_operand_bytes),
            if big_fits { "on" } else { "off" }
        );
    } else {
        println!(
            "soak: seed {}, {} thread(s), {} minute(s), faults {}, hog process {}, hog margin {} MiB, operands up to {}, \
         batches above the launch limit {}",
            o.seed,
            o.threads,
            o.minutes,
            if o.faults { "on" } else { "off" },
            if o.hog_process { "on" } else { "off" },
            o.hog_margin_mib,
            mib(max_operand_bytes),
            if big_fits { "on (one per 3 minutes, from the first minute)" } else { "off" }
        );
    }
    let shared = Shared {
        gpu,
        opts: o.clone(),
        gate: RwLock::new(()),
        faults: FaultState::default(),
        counters: Counters::default(),
        cache32: Default::default(),
        cache64: Default::default(),
        stop: AtomicBool::new(false),
        big_last: Mutex::new(None),
        start: Instant::now(),
        max_operand_bytes,
        big_fits,
        deadline: Mutex::new(None),
        in_flight: Mutex::new(BTreeMap::new()),
        phases: Mutex::new(BTreeMap::new()),
    };
    if let Some((seed, thread, index)) = o.replay {
        let ctx = ThreadCtx {
            shared: &shared,
            thread: SOLO_KEY,
            stream: shared.gpu.create_stream().ok(),
            private: Mutex::new(None),
        };
        let mut c = cases::draw(seed, thread, index, &shared.limits(thread));
        c.big = c.big && big_fits;
        println!("soak: replaying {}", c.describe());
        if c.big {
            exec::big_case(&ctx, &c);
        } else {
            run_one(&ctx, &c);
        }
        drop(ctx);
        let k = &shared.counters;
        let (m, u) = (k.mismatches.load(Ordering::Relaxed), k.unexpected_total());
        println!(
            "soak: replay: {m} mismatches, {u} unexpected errors, {} coefficients",
            k.coeffs.load(Ordering::Relaxed)
        );
        return if m + u == 0 { 0 } else { 1 };
    }
    let mem = |what: &str| -> Option<usize> {
        let _g = shared.read_gate();
        let r = shared.gpu.synchronize().and_then(|()| shared.gpu.device_memory());
        match r {
            Ok((free, _)) => Some(free),
            Err(e) => {
                println!("soak: reading the free memory {what}: {e}");
                None
            }
        }
    };
    let m_start = mem("at the start");
    {
        let ctx = ThreadCtx { shared: &shared, thread: SOLO_KEY, stream: None, private: Mutex::new(None) };
        let tw = Instant::now();
        if o.warm_up {
            warm_up(&ctx);
        }
        println!(
            "soak: warm-up: {} calls in {:.1} s",
            shared.counters.calls.load(Ordering::Relaxed),
            tw.elapsed().as_secs_f64()
        );
    }
    clear_caches(&shared);
    let m_base = mem("after the warm-up");
    let deadline = Instant::now() + Duration::from_secs_f64(o.minutes * 60.0);
    *shared.deadline.lock().unwrap_or_else(|e| e.into_inner()) = Some(deadline);
    std::thread::scope(|sc| {
        let mut hogs = Vec::new();
        if o.faults {
            hogs.push(sc.spawn(|| faults::hog_thread(&shared, o.seed)));
        }
        if o.hog_process {
            hogs.push(sc.spawn(|| faults::hog_process_thread(&shared, o.seed)));
        }
        let workers: Vec<_> = (0..o.threads as u64)
            .map(|t| {
                let sh = &shared;
                sc.spawn(move || worker(sh, t))
            })
            .collect();
        let mut next = Instant::now() + Duration::from_secs(30);
        let mut stall = StallWatch::new(&shared);
        while Instant::now() < deadline {
            std::thread::sleep(
                Duration::from_millis(200).min(deadline.saturating_duration_since(Instant::now())),
            );
            if Instant::now() >= next {
                println!("{}", shared.counters.progress(t0.elapsed().as_secs_f64()));
                next += Duration::from_secs(30);
            }
            stall.check(&shared);
        }
        shared.stop.store(true, Ordering::SeqCst);
        // The calls still in flight, every 15 s until they end (a run that
        // overruns its deadline says on what).
        let mut report_at = Instant::now() + Duration::from_secs(15);
        while workers.iter().any(|w| !w.is_finished()) {
            std::thread::sleep(Duration::from_millis(100));
            if Instant::now() >= report_at {
                shared.print_in_flight("past the deadline");
                report_at += Duration::from_secs(15);
            }
            stall.check(&shared);
        }
        for w in workers.into_iter().chain(hogs) {
            if w.join().is_err() {
                shared.counters.unexpected("panic".into());
                println!("soak: UNEXPECTED: a thread panicked");
            }
        }
    });
    clear_caches(&shared);
    let m_end = mem("at the end");
    summary(&shared, t0, m_start, m_base, m_end)
}

/// Drops every shared plan (inside an exclusive section).
fn clear_caches(shared: &Shared) {
    let _g = shared.gate.write().unwrap_or_else(|e| e.into_inner());
    let a: Vec<_> = shared.cache32.lock().unwrap_or_else(|e| e.into_inner()).drain().collect();
    let b: Vec<_> = shared.cache64.lock().unwrap_or_else(|e| e.into_inner()).drain().collect();
    drop((a, b));
}

/// The host's available memory (`MemAvailable` of /proc/meminfo), where
/// known.
fn host_available_bytes() -> Option<usize> {
    let s = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = s.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib << 10)
}

/// Prints the summary; the exit code.
fn summary(
    sh: &Shared,
    t0: Instant,
    m_start: Option<usize>,
    m_base: Option<usize>,
    m_end: Option<usize>,
) -> i32 {
    let k = &sh.counters;
    let f = &sh.faults;
    let ld = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed);
    println!("{}", k.progress(t0.elapsed().as_secs_f64()));
    println!("soak: summary");
    println!("  duration:            {:.1} s", t0.elapsed().as_secs_f64());
    println!("  calls:               {} ({} above the launch limit)", ld(&k.calls), ld(&k.big));
    println!("  coefficients checked: {}", ld(&k.coeffs));
    println!("  mismatches:          {}", ld(&k.mismatches));
    println!(
        "  errors, expected:    {} (OutOfMemory under a fault; {} post-error checks passed, {} calls recovered on retry, {} not verified)",
        ld(&k.oom_expected),
        ld(&k.post_error_checks),
        ld(&k.recovered),
        ld(&k.unverified)
    );
    println!("  errors, unexpected:  {} ({})", k.unexpected_total(), k.unexpected_line());
    println!(
        "  faults injected:     {} in-process hogs, {} hog processes ({} attempts found no memory to take)",
        ld(&f.injected),
        ld(&f.process_runs),
        ld(&f.missed)
    );
    let tol = sh.opts.mem_tolerance_mib << 20;
    let mem_ok = match (m_base, m_end) {
        (Some(b), Some(e)) => {
            let lost = b.saturating_sub(e);
            println!(
                "  device free memory:  {} at the start, {} after the warm-up (baseline), {} at the end: {} below the baseline (tolerance {})",
                m_start.map_or("unknown".into(), mib),
                mib(b),
                mib(e),
                mib(lost),
                mib(tol)
            );
            lost <= tol
        }
        _ => {
            println!("  device free memory:  could not be read");
            false
        }
    };
    let ok = ld(&k.mismatches) == 0 && k.unexpected_total() == 0 && mem_ok;
    println!("soak: {}", if ok { "PASS" } else { "FAIL" });
    if ok { 0 } else { 1 }
}

#[cfg(test)]
mod tests {
    use super::parse;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn stall_seconds_parse_and_default() {
        assert_eq!(parse(&args("--minutes 1")).map(|o| o.stall_seconds), Ok(180));
        assert_eq!(parse(&args("--stall-seconds 0")).map(|o| o.stall_seconds), Ok(0));
        assert_eq!(
            parse(&args("--stall-seconds 45 --threads 2")).map(|o| (o.stall_seconds, o.threads)),
            Ok((45, 2))
        );
        assert!(parse(&args("--stall-seconds")).is_err());
        assert!(parse(&args("--stall-seconds -3")).is_err());
    }
}
