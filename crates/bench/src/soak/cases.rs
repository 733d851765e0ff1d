//! The soak's random cases: every parameter of one call, drawn from a
//! thread's generator (pure: no GPU, no clock), so that a case is replayed
//! from `(seed, thread, index)` alone ([`case_rng`]).

use polymul::dgt::{DgtConfig, dgt_primes};
use polymul::expert::{NttKernel, PlanOptions, Reduction, SplitMix64};
use polymul::params::ntt_primes;

/// Largest `log2 N` the soak draws (the 2^20).
pub const MAX_LOG_N: u32 = 20;
/// Most RNS towers a case draws.
pub const MAX_TOWERS: usize = 40;
/// Most DGT towers a case draws.
pub const MAX_DGT_TOWERS: usize = 4;
/// Largest `log2 Q` of a conversion case (the convert suite's largest).
pub const MAX_LOG_Q: u64 = 4096;
/// Largest `log2 N` of a conversion case.
pub const MAX_CONVERT_LOG_N: u32 = 16;
/// Largest `log2 N` of a planner (`Multiplier`) case with several towers.
const MAX_PLANNER_TOWERS: usize = 8;

/// The generator of thread `thread`'s calls under `seed`.
pub fn thread_rng(seed: u64, thread: u64) -> SplitMix64 {
    SplitMix64::new(seed ^ thread.wrapping_add(1).wrapping_mul(0xD1B5_4A32_D192_ED03))
}

/// The generator of one call: the `index`-th draw of its thread's
/// generator seeds it, so a case is replayed without the ones before it.
pub fn case_rng(seed: u64, thread: u64, index: u64) -> SplitMix64 {
    let mut t = thread_rng(seed, thread);
    // SplitMix64 steps by a constant: skip to the index-th output in O(1)
    // by seeding a new generator from (thread seed, index).
    let base = t.next_u64();
    SplitMix64::new(base ^ index.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// Coefficient word.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Word {
    /// `u32`, moduli up to 30 bits.
    U32,
    /// `u64`, moduli up to 62 bits.
    U64,
}

impl Word {
    /// Bytes per word.
    pub fn bytes(self) -> usize {
        match self {
            Word::U32 => 4,
            Word::U64 => 8,
        }
    }

    /// Bits per word.
    pub fn bits(self) -> u32 {
        8 * self.bytes() as u32
    }

    /// The widest prime the plans take on this word.
    pub fn max_prime_bits(self) -> u32 {
        match self {
            Word::U32 => 30,
            Word::U64 => 62,
        }
    }
}

/// What a case computes with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `NttPlan`: one modulus.
    Ntt,
    /// `RnsPlan`: 1 to [`MAX_TOWERS`] towers.
    Rns,
    /// `DgtPlan`: 1 to [`MAX_DGT_TOWERS`] towers.
    Dgt,
    /// `RnsPlan`'s big-integer conversions (decompose, reconstruct,
    /// products of limbs and of `BigUint`s).
    Convert,
    /// The planner's `Multiplier` (its own choice of transform and prime).
    Planner,
}

/// The operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Op {
    /// Negacyclic products.
    Polymul,
    /// Forward then inverse transform (NTT or DGT), each checked.
    RoundTrip,
}

/// Which entry points and buffers a call uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Api {
    /// Host slices, the result in a new vector (`Plan::polymul`).
    HostVec,
    /// Host slices, `polymul_into` a caller's output (round trips: in place).
    HostInto,
    /// Host slices, in place.
    HostInPlace,
    /// `DeviceVec`s, `polymul_into` (round trips: in place).
    DeviceInto,
    /// `DeviceVec`s, in place.
    DeviceInPlace,
    /// Foreign device memory (`DeviceView::from_raw_parts`), `polymul_into`.
    ForeignInto,
    /// Foreign device memory, in place.
    ForeignInPlace,
    /// A graph captured explicitly (`capture`) and replayed on new inputs.
    Captured,
    /// Repeated in-place calls on the same buffers through a `Gpu` only
    /// thread 0 uses, so that the plan's graph cache captures and replays.
    Cached,
}

impl Api {
    /// Whether the call's operands are on the device.
    pub fn device(self) -> bool {
        !matches!(self, Api::HostVec | Api::HostInto | Api::HostInPlace)
    }

    /// Whether the device operands are foreign memory.
    pub fn foreign(self) -> bool {
        matches!(self, Api::ForeignInto | Api::ForeignInPlace)
    }
}

/// What a thread's cases may draw (the run's options and the thread).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Most bytes of one operand (every tower of the batch).
    pub max_operand_bytes: usize,
    /// Whether [`Api::Cached`] may be drawn (thread 0, which owns a `Gpu`
    /// of its own).
    pub private_gpu: bool,
    /// Whether a case may ask for a batch above the launch limit.
    pub big: bool,
}

/// One call, every parameter drawn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    /// The run's seed.
    pub seed: u64,
    /// The soak thread.
    pub thread: u64,
    /// The call's index in its thread.
    pub index: u64,
    /// The word.
    pub word: Word,
    /// The plan kind.
    pub kind: Kind,
    /// The operation.
    pub op: Op,
    /// The entry points and buffers.
    pub api: Api,
    /// `log2 N`.
    pub log_n: u32,
    /// Bits per prime.
    pub bits: u32,
    /// Towers (1 for [`Kind::Ntt`]; for [`Kind::Convert`] the basis decides,
    /// from [`Case::log_q`]).
    pub towers: usize,
    /// Polynomials per tower.
    pub batch: usize,
    /// `log2 Q` of a conversion case.
    pub log_q: u64,
    /// Index into `check::variants()`; `None`: the default options (the
    /// planner's rule: the automatic kernel).
    pub variant: Option<usize>,
    /// Index into `Reduction::ALL`; `None`: the default.
    pub reduction: Option<usize>,
    /// A fused-polymul NTT plan.
    pub fused: bool,
    /// The plans' graph cache option.
    pub graph_cache: bool,
    /// DGT: `(stages1, log_cluster1, log_cluster2, log_unit)`.
    pub dgt: Option<(u32, u32, u32, u32)>,
    /// DGT: Coala's pipeline instead of the fused one.
    pub coala: bool,
    /// The plan bound to the thread's own stream (unshared plans only).
    pub own_stream: bool,
    /// The plan taken from (or put into) the cache shared by the threads.
    pub shared_plan: bool,
    /// The shared plan removed from the cache after the call (dropped
    /// once no thread holds it).
    pub drop_shared: bool,
    /// Input kind: 0 all `q − 1`, 1 sparse edge values, else uniform.
    pub inputs: u8,
    /// Seed of the inputs.
    pub input_seed: u64,
    /// A batch above one launch's limit (u32, N = 2^20, 4096
    /// polynomials, device views), where the run allows one now; else the
    /// case runs with its drawn `batch`.
    pub big: bool,
}

fn pick<T: Copy>(rng: &mut SplitMix64, v: &[T]) -> T {
    v[rng.below(v.len() as u64) as usize]
}

/// `log2 N` biased to small and medium sizes: 45% 2^1..2^10, 45%
/// 2^11..2^16, 10% 2^17..2^20; at least `min`, at most `max`.
fn draw_log_n(rng: &mut SplitMix64, min: u32, max: u32) -> u32 {
    let l = match rng.below(100) {
        0..45 => 1 + rng.below(10) as u32,
        45..90 => 11 + rng.below(6) as u32,
        _ => 17 + rng.below(4) as u32,
    };
    l.clamp(min, max)
}

/// The widest width half the time, else uniform in
/// `[max(20, log N + 10), max_bits]` (the props suite's rule: narrower
/// widths hold too few primes `≡ ±1 mod 2N`).
fn draw_bits(rng: &mut SplitMix64, log_n: u32, max_bits: u32) -> u32 {
    let lo = (log_n + 10).clamp(20, max_bits);
    if rng.below(2) == 0 { max_bits } else { lo + rng.below(u64::from(max_bits - lo + 1)) as u32 }
}

/// Towers: mostly few, sometimes many.
fn draw_towers(rng: &mut SplitMix64, max: usize) -> usize {
    match rng.below(10) {
        0..6 => 1 + rng.below(4.min(max) as u64) as usize,
        _ => 1 + rng.below(max as u64) as usize,
    }
}

/// How many `bits`-bit primes of the transform's form exist for N, up to
/// `wanted` (prime searches on the CPU: deterministic).
fn primes_available(dgt: bool, bits: u32, n: usize, wanted: usize) -> usize {
    let r = if dgt { dgt_primes(bits, n, wanted) } else { ntt_primes(bits, n, wanted) };
    match r {
        Ok(v) => v.len(),
        Err(polymul::Error::NotEnoughPrimes { found, .. }) => found,
        Err(_) => 0,
    }
}

/// A batch: one polynomial 30% of the time, 2 to 8 40%, else log-uniform
/// up to what `cap` polynomials allow; at most `cap` (at least 1).
fn draw_batch(rng: &mut SplitMix64, cap: usize) -> usize {
    let cap = cap.max(1);
    let b = match rng.below(10) {
        0..3 => 1,
        3..7 => 2 + rng.below(7) as usize,
        _ => {
            let top = usize::BITS - cap.leading_zeros(); // bits of cap
            let k = rng.below(u64::from(top)) as u32;
            (1usize << k) + rng.below(1u64 << k) as usize
        }
    };
    b.clamp(1, cap)
}

/// Whether kernel variant `opts` takes `N = 2^log_n` (the 2D split needs
/// N ≥ 4, the lazy kernels N ≥ 8; `check::words` skips the same).
pub fn variant_fits(opts: &PlanOptions, log_n: u32) -> bool {
    match opts.kernel {
        NttKernel::Lazy | NttKernel::Cluster => log_n >= 3,
        NttKernel::TwoD | NttKernel::TwoDPipelined => log_n >= 2,
        _ => true,
    }
}

/// Whether a kernel variant is one of the lazy kernels (no fused polymul,
/// always Shoup).
fn lazy(opts: &PlanOptions) -> bool {
    crate::check::lazy_kernel(opts.kernel)
}

/// Draws one case.
pub fn draw(seed: u64, thread: u64, index: u64, limits: &Limits) -> Case {
    let mut rng = case_rng(seed, thread, index);
    let rng = &mut rng;
    let word = if rng.below(2) == 0 { Word::U32 } else { Word::U64 };
    let kind = match rng.below(100) {
        0..35 => Kind::Ntt,
        35..60 => Kind::Rns,
        60..78 => Kind::Dgt,
        78..88 => Kind::Convert,
        _ => Kind::Planner,
    };
    let mut c = Case {
        seed,
        thread,
        index,
        word,
        kind,
        op: Op::Polymul,
        api: Api::HostVec,
        log_n: 1,
        bits: word.max_prime_bits(),
        towers: 1,
        batch: 1,
        log_q: 0,
        variant: None,
        reduction: None,
        fused: false,
        graph_cache: rng.below(4) != 0,
        dgt: None,
        coala: false,
        own_stream: rng.below(3) == 0,
        shared_plan: rng.below(3) == 0,
        drop_shared: rng.below(4) == 0,
        inputs: rng.below(8) as u8,
        input_seed: rng.next_u64(),
        big: false,
    };
    let variants = crate::check::variants();
    let max_bits = word.max_prime_bits();
    match kind {
        Kind::Ntt | Kind::Rns => {
            c.log_n = draw_log_n(rng, 1, MAX_LOG_N);
            if rng.below(4) != 0 {
                let i = rng.below(variants.len() as u64) as usize;
                if variant_fits(&variants[i].1, c.log_n) {
                    c.variant = Some(i);
                }
            }
            let opts = c.variant.map(|i| variants[i].1).unwrap_or_default();
            let mut top = max_bits;
            if !lazy(&opts) && rng.below(3) == 0 {
                let r = rng.below(Reduction::ALL.len() as u64) as usize;
                let rb = Reduction::ALL[r].max_bits(word.bits()).min(max_bits);
                // Only a reduction that takes the widths this N needs.
                if rb >= (c.log_n + 10).clamp(20, max_bits) {
                    c.reduction = Some(r);
                    top = rb;
                }
            }
            c.fused = c.log_n >= 2 && !lazy(&opts) && rng.below(3) == 0;
            c.bits = draw_bits(rng, c.log_n, top);
            c.towers = if kind == Kind::Rns { draw_towers(rng, MAX_TOWERS) } else { 1 };
            c.op = if c.fused || rng.below(3) != 0 { Op::Polymul } else { Op::RoundTrip };
        }
        Kind::Dgt => {
            c.log_n = draw_log_n(rng, 2, MAX_LOG_N);
            c.bits = draw_bits(rng, c.log_n, max_bits);
            c.towers = draw_towers(rng, MAX_DGT_TOWERS);
            let log_m = c.log_n - 1;
            let cfgs = DgtConfig::all(log_m, 5);
            let cfg = if cfgs.is_empty() || rng.below(3) == 0 {
                DgtConfig::default_for(log_m)
            } else {
                pick(rng, &cfgs)
            };
            c.dgt = Some((cfg.stages1, cfg.log_cluster1, cfg.log_cluster2, cfg.log_unit));
            c.coala = rng.below(4) == 0;
            c.op = if rng.below(3) != 0 { Op::Polymul } else { Op::RoundTrip };
        }
        Kind::Convert => {
            c.log_n = draw_log_n(rng, 1, MAX_CONVERT_LOG_N);
            c.bits = max_bits;
            // log2 Q: one tower's width up to 4096 bits, mostly small.
            c.log_q = match rng.below(3) {
                0 => u64::from(max_bits),
                1 => u64::from(max_bits) + rng.below(400),
                _ => u64::from(max_bits) + rng.below(MAX_LOG_Q - u64::from(max_bits) + 1),
            };
            c.towers = (c.log_q as usize).div_ceil(max_bits as usize).max(1);
            c.shared_plan = false;
        }
        Kind::Planner => {
            c.log_n = draw_log_n(rng, 1, MAX_LOG_N);
            c.bits = draw_bits(rng, c.log_n, max_bits);
            c.towers = if rng.below(2) == 0 { 1 } else { draw_towers(rng, MAX_PLANNER_TOWERS) };
        }
    }
    let n = 1usize << c.log_n;
    // Enough primes of the width for every tower (fewer towers where there
    // are not: a case stays inside the library's limits).
    if matches!(kind, Kind::Rns | Kind::Dgt | Kind::Planner | Kind::Ntt) {
        let dgt = kind == Kind::Dgt;
        let mut found = primes_available(dgt, c.bits, n, c.towers);
        if found == 0 && c.bits != max_bits {
            c.bits = max_bits;
            c.reduction = None;
            found = primes_available(dgt, c.bits, n, c.towers);
        }
        c.towers = c.towers.min(found).max(1);
    }
    // The operand cap: fewer towers where one polynomial of every tower
    // is already above it, then the batch.
    let poly_bytes = |towers: usize| towers * n * word.bytes();
    if kind != Kind::Convert {
        while c.towers > 1 && poly_bytes(c.towers) > limits.max_operand_bytes {
            c.towers -= 1;
        }
    }
    let per_poly = if kind == Kind::Convert {
        // Limbs (L words per coefficient) and residues.
        n * (c.log_q as usize).div_ceil(64) * 8 + poly_bytes(c.towers)
    } else {
        poly_bytes(c.towers)
    };
    c.batch = draw_batch(rng, limits.max_operand_bytes / per_poly.max(1));
    // The API: every kind has host and device calls; graphs for the plan
    // types that capture.
    c.api = match (kind, c.op) {
        (Kind::Convert, _) => {
            if rng.below(2) == 0 {
                Api::HostVec
            } else {
                Api::DeviceInto
            }
        }
        (Kind::Planner, _) => pick(rng, &[Api::HostVec, Api::HostInto, Api::HostInPlace, Api::DeviceInto]),
        // The DGT has no host-slice transform (its domain is the device's).
        (Kind::Dgt, Op::RoundTrip) => pick(rng, &[Api::DeviceInPlace, Api::ForeignInPlace]),
        (_, Op::RoundTrip) => pick(rng, &[Api::HostInPlace, Api::DeviceInPlace, Api::ForeignInPlace]),
        (_, Op::Polymul) => {
            let r = rng.below(100);
            match r {
                0..15 => Api::HostVec,
                15..30 => Api::HostInto,
                30..42 => Api::HostInPlace,
                42..57 => Api::DeviceInto,
                57..72 => Api::DeviceInPlace,
                72..80 => Api::ForeignInto,
                80..88 => Api::ForeignInPlace,
                88..96 => Api::Captured,
                _ if limits.private_gpu => Api::Cached,
                _ => Api::DeviceInPlace,
            }
        }
    };
    if matches!(c.api, Api::Captured | Api::Cached) {
        // Graphs replay a few rounds: keep them to a few polynomials.
        c.batch = c.batch.min(4);
    }
    if c.api == Api::Cached {
        // Its plan lives on thread 0's own Gpu.
        c.shared_plan = false;
        c.graph_cache = true;
    }
    if c.shared_plan {
        c.own_stream = false;
    }
    // A batch above the launch limit: u32, N = 2^20, 4096 polynomials
    // (16 GiB per operand), rarely, where the run allows (its own memory
    // check decides again when it comes).
    let big = rng.below(400) == 0;
    if limits.big && big {
        c.big = true;
    }
    c
}

impl Case {
    /// The plan options of an NTT or RNS case.
    pub fn plan_options(&self) -> PlanOptions {
        let base = match self.variant {
            Some(i) => crate::check::variants().get(i).map(|v| v.1).unwrap_or_default(),
            None => crate::env_options::plan_options(),
        };
        PlanOptions {
            reduction: self.reduction.map_or(base.reduction, |r| Reduction::ALL[r]),
            fused_polymul: self.fused,
            graph_cache: self.graph_cache,
            ..base
        }
    }

    /// The DGT configuration of a DGT case.
    pub fn dgt_config(&self) -> DgtConfig {
        match self.dgt {
            Some((stages1, log_cluster1, log_cluster2, log_unit)) => {
                DgtConfig { stages1, log_cluster1, log_cluster2, log_unit }
            }
            None => DgtConfig::default_for(self.log_n.saturating_sub(1)),
        }
    }

    /// The key of the plan in the shared cache: everything the plan is
    /// made from.
    pub fn plan_key(&self) -> String {
        format!(
            "{:?} {:?} N=2^{} {}b x{} v{:?} r{:?} f{} g{} dgt{:?} c{}",
            self.kind,
            self.word,
            self.log_n,
            self.bits,
            self.towers,
            self.variant,
            self.reduction,
            self.fused,
            self.graph_cache,
            self.dgt,
            self.coala
        )
    }

    /// Bytes of one operand (every tower of the batch).
    pub fn operand_bytes(&self) -> usize {
        ((self.towers * self.batch) << self.log_n) * self.word.bytes()
    }

    /// One line: what the call is, and how to replay it.
    pub fn describe(&self) -> String {
        let variant = match self.variant {
            Some(i) => crate::check::variants().get(i).map_or("?".to_string(), |v| v.0.clone()),
            None => "default".into(),
        };
        let mut s = format!(
            "{:?} {:?} {:?} via {:?}, u{} N=2^{} {}-bit x{} tower(s), batch {}",
            self.kind,
            self.op,
            self.word,
            self.api,
            self.word.bits(),
            self.log_n,
            self.bits,
            self.towers,
            self.batch
        );
        match self.kind {
            Kind::Ntt | Kind::Rns => {
                s.push_str(&format!(", kernel {variant}"));
                if let Some(r) = self.reduction {
                    s.push_str(&format!(", reduction {}", Reduction::ALL[r]));
                }
                if self.fused {
                    s.push_str(", fused polymul");
                }
            }
            Kind::Dgt => s.push_str(&format!(
                ", DGT {}{}",
                self.dgt_config(),
                if self.coala { " (Coala's pipeline)" } else { "" }
            )),
            Kind::Convert => s.push_str(&format!(", log2 Q {}", self.log_q)),
            Kind::Planner => s.push_str(", the planner's choice"),
        }
        s.push_str(&format!(
            ", graph cache {}, {} stream, {} plan{}, inputs {}{}",
            if self.graph_cache { "on" } else { "off" },
            if self.own_stream { "own" } else { "the GPU's" },
            if self.shared_plan { "shared" } else { "own" },
            if self.shared_plan && self.drop_shared { " (dropped after)" } else { "" },
            match self.inputs {
                0 => "all q-1",
                1 => "sparse edges",
                _ => "uniform",
            },
            if self.big { ", BIG (above the launch limit, if allowed now)" } else { "" }
        ));
        s
    }

    /// How to replay it.
    pub fn replay(&self) -> String {
        format!("seed {} thread {} call {}", self.seed, self.thread, self.index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use polymul::dgt::DgtParams;
    use polymul::rns::RnsBasis;
    use polymul::{Coeff, NttParams};

    fn limits() -> Limits {
        Limits { max_operand_bytes: 64 << 20, private_gpu: true, big: true }
    }

    /// The same (seed, thread, index) draws the same case; others differ.
    #[test]
    fn cases_are_reproducible_from_the_seed() {
        let l = limits();
        for index in 0..200 {
            let a = draw(7, 3, index, &l);
            assert_eq!(a, draw(7, 3, index, &l), "{}", a.describe());
        }
        let x: Vec<Case> = (0..50).map(|i| draw(7, 0, i, &l)).collect();
        let y: Vec<Case> = (0..50).map(|i| draw(7, 1, i, &l)).collect();
        let z: Vec<Case> = (0..50).map(|i| draw(8, 0, i, &l)).collect();
        assert_ne!(x, y);
        assert_ne!(x, z);
    }

    fn params_exist<W: Coeff>(c: &Case) -> Result<(), String> {
        let n = 1usize << c.log_n;
        let e = |e: polymul::Error| format!("{}: {e}", c.describe());
        match c.kind {
            Kind::Ntt => NttParams::<W>::with_prime_bits(n, c.bits).map(|_| ()).map_err(e),
            Kind::Rns => RnsBasis::<W>::new(n, c.bits, c.towers).map(|_| ()).map_err(e),
            Kind::Planner => ntt_primes(c.bits, n, c.towers).map(|_| ()).map_err(e),
            Kind::Dgt => {
                let ps = dgt_primes(c.bits, n, c.towers).map_err(e)?;
                for p in ps {
                    DgtParams::<W>::new(n, p).map_err(e)?;
                }
                c.dgt_config().passes(c.log_n - 1).map(|_| ()).map_err(e)
            }
            Kind::Convert => RnsBasis::<W>::with_modulus_bits(n, c.bits, c.log_q).map(|_| ()).map_err(e),
        }
    }

    /// Every drawn case is inside the library's limits: N, towers, batch
    /// (below one launch's limit unless `big`), the operand cap, a kernel
    /// that takes N, a reduction that takes the width, primes that exist
    /// for every tower, a DGT configuration that fits.
    #[test]
    fn every_case_is_within_the_limits() {
        let l = limits();
        let mut kinds = std::collections::HashSet::new();
        let mut apis = std::collections::HashSet::new();
        let mut sizes = std::collections::HashSet::new();
        for index in 0..600 {
            let c = draw(11, index % 4, index, &l);
            let d = c.describe();
            kinds.insert(format!("{:?}", c.kind));
            apis.insert(format!("{:?}", c.api));
            sizes.insert(c.log_n);
            assert!((1..=MAX_LOG_N).contains(&c.log_n), "{d}");
            assert!((1..=MAX_TOWERS).contains(&c.towers) || c.kind == Kind::Convert, "{d}");
            assert!(c.batch >= 1 && c.batch <= (u32::MAX as usize) >> c.log_n, "{d}");
            assert!(c.operand_bytes() <= l.max_operand_bytes || c.batch == 1, "{d}");
            assert!(c.bits <= c.word.max_prime_bits(), "{d}");
            if let Some(r) = c.reduction {
                assert!(c.bits <= Reduction::ALL[r].max_bits(c.word.bits()), "{d}");
            }
            if matches!(c.kind, Kind::Ntt | Kind::Rns) {
                let o = c.plan_options();
                assert!(variant_fits(&o, c.log_n), "{d}");
                assert!(!(o.fused_polymul && (lazy(&o) || c.log_n < 2)), "{d}");
                assert!(!(o.fused_polymul && c.op == Op::RoundTrip), "{d}");
            }
            if c.kind == Kind::Dgt {
                assert!(c.log_n >= 2 && c.towers <= MAX_DGT_TOWERS, "{d}");
            }
            if c.kind == Kind::Convert {
                assert!(c.log_n <= MAX_CONVERT_LOG_N && c.log_q <= MAX_LOG_Q, "{d}");
            }
            if c.shared_plan {
                assert!(!c.own_stream && c.api != Api::Cached && c.kind != Kind::Convert, "{d}");
            }
            if matches!(c.api, Api::Captured | Api::Cached) {
                assert!(c.op == Op::Polymul && matches!(c.kind, Kind::Ntt | Kind::Rns | Kind::Dgt), "{d}");
            }
            match c.word {
                Word::U32 => params_exist::<u32>(&c),
                Word::U64 => params_exist::<u64>(&c),
            }
            .unwrap_or_else(|e| panic!("{e}"));
        }
        assert_eq!(kinds.len(), 5, "{kinds:?}");
        assert!(apis.len() >= 9, "{apis:?}");
        assert!(sizes.iter().any(|&l| l >= 17) && sizes.iter().any(|&l| l <= 4), "{sizes:?}");
    }

    /// Without a private GPU no case asks for the graph cache's thread,
    /// and without `big` none for a batch above the limit.
    #[test]
    fn limits_switch_cases_off() {
        let l = Limits { max_operand_bytes: 1 << 20, private_gpu: false, big: false };
        for index in 0..400 {
            let c = draw(5, 1, index, &l);
            assert!(c.api != Api::Cached && !c.big, "{}", c.describe());
            assert!(c.operand_bytes() <= 1 << 20 || c.batch == 1, "{}", c.describe());
        }
    }
}
