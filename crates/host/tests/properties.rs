//! Property tests of the CPU path (proptest): random sizes, words, prime
//! widths, reductions, tile configurations, RNS bases and operands (edge
//! operands mixed in), each checked against an independent reference or an
//! algebraic law, and random bad input checked for its documented typed error.
//!
//! Run with `cargo test -p polymul --test properties`. proptest prints the
//! failing input (shrunk) and its seed, and records it under
//! `proptest-regressions/` so the next run tries it first. Case counts are set
//! per test below; `docs/testing.md` lists the properties.

use num_bigint::BigUint;
use polymul::cpu;
use polymul::expert::Reduction;
use polymul::expert::emulation::{self, TiledConfig};
use polymul::params::{MAX_N, MIN_N, MIN_PRIME_BITS, NttParams, ntt_primes};
use polymul::rns::RnsBasis;
use polymul::{Coeff, Error};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::sample::select;
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestRunner};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

// ---------------------------------------------------------------------------
// Configuration and shared strategies
// ---------------------------------------------------------------------------

/// A configuration with `cases` cases. A failing case is recorded in
/// `crates/host/proptest-regressions/properties.txt` (tests run in the
/// package's folder; proptest's default, a file beside the source, looks for
/// a `lib.rs` that `tests/` does not have) and tried first on the next run.
fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/properties.txt",
        ))),
        ..Config::default()
    }
}

/// Runs `test` on `cases` values of `strategy` outside the `proptest!` macro
/// (for the tests that count what their cases did), with the macro's failure
/// persistence and report.
fn run_cases<S: Strategy>(
    name: &'static str,
    cases: u32,
    strategy: S,
    test: impl Fn(S::Value) -> Result<(), TestCaseError>,
) {
    let mut runner =
        TestRunner::new(Config { source_file: Some(file!()), test_name: Some(name), ..config(cases) });
    if let Err(e) = runner.run(&strategy, test) {
        panic!("{name}: {e}");
    }
}

/// The widest modulus `NttParams::new` accepts on `W`: Algorithm 4's bound
/// (`Reduction::Barrett4`), 62 bits on `u64`, 30 on `u32`.
fn word_max_bits<W: Coeff>() -> u32 {
    Reduction::Barrett4.max_bits(W::BITS)
}

fn reduction() -> impl Strategy<Value = Reduction> {
    select(Reduction::ALL.to_vec())
}

/// Which prime width a case uses.
#[derive(Clone, Copy, Debug)]
enum Width {
    /// The widest the case's reduction accepts (capped at [`word_max_bits`]).
    ReductionMax,
    /// The widest `NttParams` accepts on the word (above some reductions'
    /// limit: those must refuse it with `ModulusTooWide`).
    WordMax,
    /// Any width from the smallest supported to [`word_max_bits`].
    Bits(u32),
}

impl Width {
    fn bits<W: Coeff>(self, r: Reduction) -> u32 {
        match self {
            Width::ReductionMax => r.max_bits(W::BITS).min(word_max_bits::<W>()),
            Width::WordMax => word_max_bits::<W>(),
            Width::Bits(b) => b,
        }
    }
}

fn width<W: Coeff>() -> impl Strategy<Value = Width> {
    prop_oneof![
        1 => Just(Width::ReductionMax),
        1 => Just(Width::WordMax),
        3 => (MIN_PRIME_BITS..=word_max_bits::<W>()).prop_map(Width::Bits),
    ]
}

/// Parameters for `N = 2^log_n` with the `pick`-th largest `bits`-bit
/// NTT-friendly prime (the smallest one found if there are fewer).
fn params<W: Coeff>(log_n: u32, bits: u32, pick: usize) -> Result<NttParams<W>, TestCaseError> {
    let n = 1usize << log_n;
    let primes = match ntt_primes(bits, n, pick + 1) {
        Ok(v) => v,
        Err(Error::NotEnoughPrimes { found, .. }) if found > 0 => {
            ntt_primes(bits, n, found).map_err(|e| TestCaseError::fail(e.to_string()))?
        }
        Err(e) => return Err(TestCaseError::fail(format!("no {bits}-bit prime for N = {n}: {e}"))),
    };
    let q = *primes.last().expect("at least one prime");
    prop_assert_eq!(64 - q.leading_zeros(), bits);
    prop_assert_eq!(q % (2 * n as u64), 1);
    NttParams::new(n, q).map_err(|e| TestCaseError::fail(format!("NttParams::new({n}, {q}): {e}")))
}

/// A raw coefficient: reduced modulo q by [`coeff`], with the edges 0, 1 and
/// `q − 1` (`u64::MAX`) drawn often.
fn raw_coeff() -> impl Strategy<Value = u64> {
    prop_oneof![6 => any::<u64>(), 1 => Just(0), 1 => Just(1), 1 => Just(u64::MAX)]
}

/// The coefficient `raw` stands for modulo `q` (`u64::MAX` is `q − 1`).
fn coeff(raw: u64, q: u64) -> u64 {
    if raw == u64::MAX { q - 1 } else { raw % q }
}

/// One polynomial operand of `N` coefficients.
#[derive(Clone, Debug)]
enum Operand {
    /// Random coefficients (edges mixed in by [`raw_coeff`]).
    Random(Vec<u64>),
    /// All zero.
    Zero,
    /// All `q − 1`.
    AllMax,
    /// `c · X^at`.
    Monomial { at: usize, c: u64 },
}

fn operand(n: usize) -> impl Strategy<Value = Operand> {
    prop_oneof![
        6 => vec(raw_coeff(), n).prop_map(Operand::Random),
        1 => Just(Operand::Zero),
        1 => Just(Operand::AllMax),
        2 => (0..n, raw_coeff()).prop_map(|(at, c)| Operand::Monomial { at, c }),
    ]
}

/// A batch of `batch` operands of `N = n`.
fn operands(n: usize, batch: usize) -> impl Strategy<Value = Vec<Operand>> {
    vec(operand(n), batch)
}

impl Operand {
    fn coeffs<W: Coeff>(&self, n: usize, q: W) -> Vec<W> {
        let q = q.as_u64();
        let v: Vec<u64> = match self {
            Operand::Random(raw) => raw.iter().map(|&r| coeff(r, q)).collect(),
            Operand::Zero => vec![0; n],
            Operand::AllMax => vec![q - 1; n],
            Operand::Monomial { at, c } => {
                let mut v = vec![0; n];
                v[*at] = coeff(*c, q);
                v
            }
        };
        assert_eq!(v.len(), n);
        v.into_iter().map(W::from_u64).collect()
    }
}

/// The coefficients of a batch of operands, back to back.
fn batch_coeffs<W: Coeff>(ops: &[Operand], n: usize, q: W) -> Vec<W> {
    ops.iter().flat_map(|o| o.coeffs(n, q)).collect()
}

fn to_u64<W: Coeff>(v: &[W]) -> Vec<u64> {
    v.iter().map(|x| x.as_u64()).collect()
}

/// Asserts that `res` is the refusal of a `bits`-bit modulus by `r`.
fn assert_too_wide<T: std::fmt::Debug, W: Coeff>(
    res: polymul::Result<T>,
    r: Reduction,
    bits: u32,
) -> Result<(), TestCaseError> {
    match res {
        Err(Error::ModulusTooWide { bits: got, max_bits, word, .. }) => {
            prop_assert_eq!(got, bits);
            prop_assert_eq!(max_bits, r.max_bits(W::BITS));
            prop_assert_eq!(word, W::BITS);
            Ok(())
        }
        other => Err(TestCaseError::fail(format!(
            "{r} on u{} with a {bits}-bit modulus (it accepts {}): expected ModulusTooWide, got {other:?}",
            W::BITS,
            r.max_bits(W::BITS)
        ))),
    }
}

// ---------------------------------------------------------------------------
// 1. polymul_with == the u128 schoolbook product
// ---------------------------------------------------------------------------

type PolymulCase = (u32, Reduction, Width, usize, Operand, Operand);

fn polymul_case<W: Coeff>(log_n: std::ops::RangeInclusive<u32>) -> impl Strategy<Value = PolymulCase> {
    (log_n, reduction(), width::<W>(), 0usize..4).prop_flat_map(|(log_n, r, w, pick)| {
        let n = 1usize << log_n;
        (Just(log_n), Just(r), Just(w), Just(pick), operand(n), operand(n))
    })
}

fn polymul_equals_naive<W: Coeff>((log_n, r, w, pick, a, b): PolymulCase) -> Result<(), TestCaseError> {
    let bits = w.bits::<W>(r);
    let p = params::<W>(log_n, bits, pick)?;
    let (n, q) = (p.n(), p.q());
    let (a, b) = (a.coeffs(n, q), b.coeffs(n, q));
    let res = emulation::polymul_with(&p, r, &a, &b);
    if bits > r.max_bits(W::BITS) {
        return assert_too_wide::<_, W>(res, r, bits);
    }
    let got = res.map_err(|e| TestCaseError::fail(format!("{r}: {e}")))?;
    let want = cpu::negacyclic_naive(&to_u64(&a), &to_u64(&b), q.as_u64()).unwrap();
    prop_assert_eq!(to_u64(&got), want, "u{} N={} q={} {}", W::BITS, n, q, r);
    Ok(())
}

proptest! {
    #![proptest_config(config(384))]

    /// `emulation::polymul_with` equals the schoolbook product (u32 words).
    #[test]
    fn polymul_equals_naive_u32(c in polymul_case::<u32>(1..=10)) {
        polymul_equals_naive::<u32>(c)?;
    }

    /// `emulation::polymul_with` equals the schoolbook product (u64 words).
    #[test]
    fn polymul_equals_naive_u64(c in polymul_case::<u64>(1..=10)) {
        polymul_equals_naive::<u64>(c)?;
    }
}

// ---------------------------------------------------------------------------
// 2. inverse ∘ forward = identity, for every reduction
// ---------------------------------------------------------------------------

type BatchCase = (u32, Reduction, Width, usize, Vec<Operand>);

fn batch_case<W: Coeff>(
    log_n: std::ops::RangeInclusive<u32>,
    batch: std::ops::RangeInclusive<usize>,
) -> impl Strategy<Value = BatchCase> {
    (log_n, batch, reduction(), width::<W>(), 0usize..4).prop_flat_map(|(log_n, batch, r, w, pick)| {
        (Just(log_n), Just(r), Just(w), Just(pick), operands(1 << log_n, batch))
    })
}

fn round_trip<W: Coeff>((log_n, r, w, pick, ops): BatchCase) -> Result<(), TestCaseError> {
    let bits = w.bits::<W>(r);
    let p = params::<W>(log_n, bits, pick)?;
    let a = batch_coeffs(&ops, p.n(), p.q());
    let mut f = a.clone();
    let res = emulation::forward_with(&p, r, &mut f);
    if bits > r.max_bits(W::BITS) {
        assert_too_wide::<_, W>(res, r, bits)?;
        prop_assert_eq!(&f, &a, "a refused transform changed its input");
        return assert_too_wide::<_, W>(emulation::inverse_with(&p, r, &mut f), r, bits);
    }
    res.map_err(|e| TestCaseError::fail(e.to_string()))?;
    // Every reduction gives the canonical transform: the default's (Shoup).
    let mut g = a.clone();
    emulation::forward(&p, &mut g).unwrap();
    prop_assert_eq!(&f, &g, "forward with {} differs from the default reduction's", r);
    emulation::inverse_with(&p, r, &mut f).unwrap();
    prop_assert_eq!(&f, &a, "inverse(forward(a)) != a: u{} N={} q={} {}", W::BITS, p.n(), p.q(), r);
    Ok(())
}

proptest! {
    #![proptest_config(config(256))]

    /// `inverse_with(forward_with(a)) == a`, batches of 1..=3, N up to 2^13 (u32).
    #[test]
    fn forward_inverse_round_trip_u32(c in batch_case::<u32>(1..=13, 1..=3)) {
        round_trip::<u32>(c)?;
    }

    /// `inverse_with(forward_with(a)) == a`, batches of 1..=3, N up to 2^13 (u64).
    #[test]
    fn forward_inverse_round_trip_u64(c in batch_case::<u64>(1..=13, 1..=3)) {
        round_trip::<u64>(c)?;
    }
}

// ---------------------------------------------------------------------------
// 3. Linearity of the transforms
// ---------------------------------------------------------------------------

type LinearCase = (u32, Reduction, Width, usize, Operand, Operand, u64);

fn linear_case<W: Coeff>() -> impl Strategy<Value = LinearCase> {
    (1u32..=13, reduction(), width::<W>(), 0usize..4, raw_coeff()).prop_flat_map(|(log_n, r, w, pick, c)| {
        let n = 1usize << log_n;
        (Just(log_n), Just(r), Just(w), Just(pick), operand(n), operand(n), Just(c))
    })
}

fn linearity<W: Coeff>((log_n, r, w, pick, a, b, c): LinearCase) -> Result<(), TestCaseError> {
    // Only where the reduction takes the modulus (the refusal is property 1's).
    let bits = w.bits::<W>(r).min(r.max_bits(W::BITS));
    let p = params::<W>(log_n, bits, pick)?;
    let (n, q) = (p.n(), p.q());
    let q64 = q.as_u64() as u128;
    let c = coeff(c, q.as_u64()) as u128;
    let (a, b) = (a.coeffs(n, q), b.coeffs(n, q));
    // Sums and scalings in u128, independently of the library's arithmetic.
    let add = |x: &[W], y: &[W]| -> Vec<W> {
        x.iter()
            .zip(y)
            .map(|(x, y)| W::from_u64(((x.as_u64() as u128 + y.as_u64() as u128) % q64) as u64))
            .collect()
    };
    let scale = |x: &[W]| -> Vec<W> {
        x.iter().map(|x| W::from_u64((x.as_u64() as u128 * c % q64) as u64)).collect()
    };
    for inverse in [false, true] {
        let t = |x: &[W]| -> Vec<W> {
            let mut v = x.to_vec();
            let res = if inverse {
                emulation::inverse_with(&p, r, &mut v)
            } else {
                emulation::forward_with(&p, r, &mut v)
            };
            res.unwrap();
            v
        };
        let (ta, tb) = (t(&a), t(&b));
        let what = if inverse { "inverse" } else { "forward" };
        prop_assert_eq!(
            t(&add(&a, &b)),
            add(&ta, &tb),
            "{}(a + b) != {}(a) + {}(b), {}",
            what,
            what,
            what,
            r
        );
        prop_assert_eq!(t(&scale(&a)), scale(&ta), "{}(c·a) != c·{}(a), c = {}, {}", what, what, c, r);
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(256))]

    /// NTT(a + b) = NTT(a) + NTT(b) and NTT(c·a) = c·NTT(a), forward and inverse (u32).
    #[test]
    fn ntt_is_linear_u32(c in linear_case::<u32>()) {
        linearity::<u32>(c)?;
    }

    /// NTT(a + b) = NTT(a) + NTT(b) and NTT(c·a) = c·NTT(a), forward and inverse (u64).
    #[test]
    fn ntt_is_linear_u64(c in linear_case::<u64>()) {
        linearity::<u64>(c)?;
    }
}

// ---------------------------------------------------------------------------
// 4. The tiled / 2D kernels' code == the radix-2 transform
// ---------------------------------------------------------------------------

/// A random tiled configuration: tile `2^1..2^14` words (some too small for
/// N: refused), 1..=300 emulated threads, radix 2..16, direct I/O, 2D split.
fn tiled_config() -> impl Strategy<Value = TiledConfig> {
    (1u32..=14, 1usize..=300, 1u32..=4, any::<bool>(), any::<bool>()).prop_map(
        |(log_max_tile, threads, log_radix, direct, two_d)| TiledConfig {
            log_max_tile,
            threads,
            log_radix,
            direct,
            two_d,
            truncated: false,
        },
    )
}

/// Whether the kernels have a geometry for `cfg` at `N = 2^log_n`, from the
/// documented constraints: at most two passes, so the tile must hold at
/// least `2^⌈log_n/2⌉` words; the 2D split needs `N ≥ 4`.
fn geometry_exists(cfg: &TiledConfig, log_n: u32) -> bool {
    cfg.log_max_tile >= log_n.div_ceil(2).max(1) && (!cfg.two_d || log_n >= 2)
}

type TiledCase = (u32, Reduction, Width, usize, TiledConfig, Vec<Operand>);

fn tiled_case<W: Coeff>() -> impl Strategy<Value = TiledCase> {
    (1u32..=13, 1usize..=2, reduction(), width::<W>(), 0usize..4, tiled_config()).prop_flat_map(
        |(log_n, batch, r, w, pick, cfg)| {
            (Just(log_n), Just(r), Just(w), Just(pick), Just(cfg), operands(1 << log_n, batch))
        },
    )
}

/// Counts of what the tiled cases did.
#[derive(Default)]
struct TiledCounts {
    ran: AtomicUsize,
    no_geometry: AtomicUsize,
    too_wide: AtomicUsize,
}

fn tiled_equals_radix2<W: Coeff>(
    (log_n, r, w, pick, cfg, ops): TiledCase,
    counts: &TiledCounts,
) -> Result<(), TestCaseError> {
    let bits = w.bits::<W>(r);
    let p = params::<W>(log_n, bits, pick)?;
    let a = batch_coeffs(&ops, p.n(), p.q());
    let mut got = a.clone();
    let res = emulation::forward_tiled(&p, r, &mut got, cfg);
    if !geometry_exists(&cfg, log_n) {
        // Refused with a typed error, the data untouched: skipped.
        prop_assert!(
            matches!(res, Err(Error::InvalidN { n, .. }) if n == p.n()),
            "{:?} at N = 2^{}: expected InvalidN, got {:?}",
            cfg,
            log_n,
            res
        );
        prop_assert!(cfg.geometry(log_n).is_err());
        prop_assert_eq!(&got, &a);
        counts.no_geometry.fetch_add(1, Relaxed);
        return Ok(());
    }
    if bits > r.max_bits(W::BITS) {
        counts.too_wide.fetch_add(1, Relaxed);
        return assert_too_wide::<_, W>(res, r, bits);
    }
    res.map_err(|e| TestCaseError::fail(format!("{cfg:?} N = 2^{log_n}: {e}")))?;
    let mut want = a.clone();
    emulation::forward(&p, &mut want).unwrap();
    prop_assert_eq!(&got, &want, "forward_tiled != forward: u{} N=2^{} {:?} {}", W::BITS, log_n, cfg, r);
    // The inverse, on random data and on the transform (the round trip).
    let mut inv_got = a.clone();
    emulation::inverse_tiled(&p, r, &mut inv_got, cfg).unwrap();
    let mut inv_want = a.clone();
    emulation::inverse(&p, &mut inv_want).unwrap();
    prop_assert_eq!(
        &inv_got,
        &inv_want,
        "inverse_tiled != inverse: u{} N=2^{} {:?} {}",
        W::BITS,
        log_n,
        cfg,
        r
    );
    emulation::inverse_tiled(&p, r, &mut got, cfg).unwrap();
    prop_assert_eq!(&got, &a, "inverse_tiled(forward_tiled(a)) != a");
    counts.ran.fetch_add(1, Relaxed);
    Ok(())
}

fn tiled_property<W: Coeff>(name: &'static str, cases: u32) {
    let counts = TiledCounts::default();
    run_cases(name, cases, tiled_case::<W>(), |c| tiled_equals_radix2::<W>(c, &counts));
    let (ran, skipped, wide) =
        (counts.ran.into_inner(), counts.no_geometry.into_inner(), counts.too_wide.into_inner());
    println!("{name}: {ran} compared, {skipped} refused (no geometry), {wide} refused (modulus too wide)");
    assert!(ran >= cases as usize / 2, "{name}: only {ran} of {cases} cases compared anything");
    assert!(skipped > 0, "{name}: no configuration without a geometry was tried");
}

/// `forward_tiled`/`inverse_tiled` with random `TiledConfig`s equal
/// `forward`/`inverse` bit for bit (u32).
#[test]
fn tiled_equals_radix2_u32() {
    tiled_property::<u32>("tiled_equals_radix2_u32", 256);
}

/// `forward_tiled`/`inverse_tiled` with random `TiledConfig`s equal
/// `forward`/`inverse` bit for bit (u64).
#[test]
fn tiled_equals_radix2_u64() {
    tiled_property::<u64>("tiled_equals_radix2_u64", 256);
}

// ---------------------------------------------------------------------------
// 5. Fused polymul == polymul
// ---------------------------------------------------------------------------

type FusedCase = (u32, Reduction, Width, usize, TiledConfig, Vec<Operand>, Vec<Operand>);

fn fused_case<W: Coeff>() -> impl Strategy<Value = FusedCase> {
    (2u32..=12, 1usize..=2, reduction(), width::<W>(), 0usize..4, tiled_config()).prop_flat_map(
        |(log_n, batch, r, w, pick, cfg)| {
            let n = 1usize << log_n;
            (Just(log_n), Just(r), Just(w), Just(pick), Just(cfg), operands(n, batch), operands(n, batch))
        },
    )
}

fn fused_equals_polymul<W: Coeff>((log_n, r, w, pick, cfg, a, b): FusedCase) -> Result<(), TestCaseError> {
    let bits = w.bits::<W>(r);
    let p = params::<W>(log_n, bits, pick)?;
    let (n, q) = (p.n(), p.q());
    let (a, b) = (batch_coeffs(&a, n, q), batch_coeffs(&b, n, q));
    let res = emulation::polymul_fused(&p, r, &a, &b);
    if bits > r.max_bits(W::BITS) {
        return assert_too_wide::<_, W>(res, r, bits);
    }
    let got = res.map_err(|e| TestCaseError::fail(e.to_string()))?;
    let want = emulation::polymul(&p, &a, &b).unwrap();
    prop_assert_eq!(&got, &want, "polymul_fused != polymul: u{} N=2^{} q={} {}", W::BITS, log_n, q, r);
    if log_n <= 8 && a.len() == n {
        let naive = cpu::negacyclic_naive(&to_u64(&a), &to_u64(&b), q.as_u64()).unwrap();
        prop_assert_eq!(to_u64(&got), naive);
    }
    // Through the tiled/2D kernels' code (truncated transforms), where the
    // configuration has a geometry.
    let tiled = emulation::polymul_fused_tiled(&p, r, &a, &b, cfg);
    if geometry_exists(&cfg, log_n) {
        let tiled = tiled.map_err(|e| TestCaseError::fail(format!("{cfg:?}: {e}")))?;
        prop_assert_eq!(&tiled, &want, "polymul_fused_tiled != polymul: N=2^{} {:?} {}", log_n, cfg, r);
    } else {
        prop_assert!(matches!(tiled, Err(Error::InvalidN { .. })), "{:?}: {:?}", cfg, tiled);
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(256))]

    /// `polymul_fused` (and `polymul_fused_tiled`) == `polymul`, N = 4..2^12 (u32).
    #[test]
    fn fused_polymul_equals_polymul_u32(c in fused_case::<u32>()) {
        fused_equals_polymul::<u32>(c)?;
    }

    /// `polymul_fused` (and `polymul_fused_tiled`) == `polymul`, N = 4..2^12 (u64).
    #[test]
    fn fused_polymul_equals_polymul_u64(c in fused_case::<u64>()) {
        fused_equals_polymul::<u64>(c)?;
    }
}

// ---------------------------------------------------------------------------
// 6. RNS
// ---------------------------------------------------------------------------

/// `(log_n, bits, towers, batch, raw residues of a, of b, limbs of big
/// coefficients)`.
type RnsCase = (u32, u32, usize, usize, Vec<u64>, Vec<u64>, Vec<[u64; 4]>);

fn rns_case<W: Coeff>() -> impl Strategy<Value = RnsCase> {
    (1u32..=10, MIN_PRIME_BITS..=word_max_bits::<W>(), 1usize..=4, 1usize..=2).prop_flat_map(
        |(log_n, bits, k, batch)| {
            let len = (k * batch) << log_n;
            (
                Just(log_n),
                Just(bits),
                Just(k),
                Just(batch),
                vec(raw_coeff(), len),
                vec(raw_coeff(), len),
                vec(any::<[u64; 4]>(), batch << log_n),
            )
        },
    )
}

/// Residues from raw words: tower `i`'s slice reduced modulo `q_i`.
fn residues<W: Coeff>(basis: &RnsBasis<W>, raw: &[u64]) -> Vec<W> {
    let len = raw.len() / basis.len();
    let primes = basis.primes();
    raw.iter().enumerate().map(|(j, &r)| W::from_u64(coeff(r, primes[j / len]))).collect()
}

fn rns_properties<W: Coeff>((log_n, bits, k, batch, ra, rb, limbs): RnsCase) -> Result<(), TestCaseError> {
    let n = 1usize << log_n;
    let basis = RnsBasis::<W>::new(n, bits, k).map_err(|e| TestCaseError::fail(e.to_string()))?;
    prop_assert_eq!(basis.len(), k);
    let big_q = basis.modulus().clone();
    let (a, b) = (residues(&basis, &ra), residues(&basis, &rb));
    let len = batch * n;

    // Tower i of the RNS product is the product modulo q_i.
    let c = emulation::rns_polymul(&basis, &a, &b).unwrap();
    prop_assert_eq!(c.len(), k * len);
    for (i, t) in basis.towers().iter().enumerate() {
        let s = i * len..(i + 1) * len;
        let want = emulation::polymul(t, &a[s.clone()], &b[s.clone()]).unwrap();
        prop_assert_eq!(&c[s], &want[..], "tower {} (q = {})", i, t.q());
    }

    // Residues → CRT → residues is the identity, and the CRT value has
    // those residues.
    let big_a = basis.from_residues(&a).unwrap();
    prop_assert_eq!(big_a.len(), len);
    prop_assert!(big_a.iter().all(|x| x < &big_q));
    prop_assert_eq!(basis.to_residues(&big_a).unwrap(), a.clone());

    // Big coefficients below Q (edges 0 and Q − 1 mixed in) → residues → CRT
    // is the identity; each residue is the coefficient mod q_i.
    let mut big_x: Vec<BigUint> = limbs
        .iter()
        .map(|l| l.iter().fold(BigUint::from(0u32), |acc, &w| (acc << 64u32) + w) % &big_q)
        .collect();
    if let Some(first) = limbs.first() {
        let last = big_x.len() - 1;
        big_x[last] = &big_q - 1u32;
        if first[0].is_multiple_of(2) {
            big_x[0] = BigUint::from(0u32);
        }
    }
    let rx = basis.to_residues(&big_x).unwrap();
    for (i, &q) in basis.primes().iter().enumerate() {
        for (j, x) in big_x.iter().enumerate() {
            prop_assert_eq!(BigUint::from(rx[i * len + j].as_u64()), x % q);
        }
    }
    prop_assert_eq!(basis.from_residues(&rx).unwrap(), big_x);

    // For small N: CRT of the product == the big-integer schoolbook product
    // of the CRT'd inputs modulo Q.
    if log_n <= 5 {
        let big_b = basis.from_residues(&b).unwrap();
        let big_c = basis.from_residues(&c).unwrap();
        for j in 0..batch {
            let s = j * n..(j + 1) * n;
            let want = cpu::negacyclic_naive_big(&big_a[s.clone()], &big_b[s.clone()], &big_q).unwrap();
            prop_assert_eq!(&big_c[s], &want[..], "polynomial {} of the batch", j);
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(192))]

    /// RNS (1..=4 towers): `rns_polymul` per tower, residue/CRT round trips,
    /// and the big-integer naive product for N ≤ 32 (u32).
    #[test]
    fn rns_polymul_and_crt_u32(c in rns_case::<u32>()) {
        rns_properties::<u32>(c)?;
    }

    /// RNS (1..=4 towers): `rns_polymul` per tower, residue/CRT round trips,
    /// and the big-integer naive product for N ≤ 32 (u64).
    #[test]
    fn rns_polymul_and_crt_u64(c in rns_case::<u64>()) {
        rns_properties::<u64>(c)?;
    }
}

// ---------------------------------------------------------------------------
// 7. Bad input: the documented typed error, never a panic
// ---------------------------------------------------------------------------

/// A length that is not a positive multiple of `n` (0 included).
fn bad_len(n: usize) -> impl Strategy<Value = usize> {
    prop_oneof![1 => Just(0usize), 6 => (0usize..4, 1..n).prop_map(move |(k, r)| k * n + r)]
}

fn expect_not_multiple<T: std::fmt::Debug>(
    res: polymul::Result<T>,
    what: &str,
    len: usize,
    n: usize,
) -> Result<(), TestCaseError> {
    match res {
        Err(Error::NotAMultipleOfN { what: w, got, n: en }) if w == what && got == len && en == n => Ok(()),
        other => Err(TestCaseError::fail(format!(
            "expected NotAMultipleOfN {{ what: {what}, got: {len}, n: {n} }}, got {other:?}"
        ))),
    }
}

fn wrong_lengths<W: Coeff>((log_n, r, len, raw): (u32, Reduction, usize, u64)) -> Result<(), TestCaseError> {
    let p = params::<W>(log_n, word_max_bits::<W>().min(r.max_bits(W::BITS)), 0)?;
    let (n, q) = (p.n(), p.q());
    let bad: Vec<W> = (0..len as u64).map(|i| W::from_u64(coeff(raw.wrapping_add(i), q.as_u64()))).collect();
    let good = vec![W::zero(); n];
    let mut data = bad.clone();
    expect_not_multiple(emulation::forward(&p, &mut data), "data", len, n)?;
    expect_not_multiple(emulation::inverse(&p, &mut data), "data", len, n)?;
    expect_not_multiple(emulation::forward_with(&p, r, &mut data), "data", len, n)?;
    expect_not_multiple(emulation::inverse_with(&p, r, &mut data), "data", len, n)?;
    let cfg = TiledConfig {
        log_max_tile: 12,
        threads: 4,
        log_radix: 2,
        direct: false,
        two_d: false,
        truncated: false,
    };
    expect_not_multiple(emulation::forward_tiled(&p, r, &mut data, cfg), "data", len, n)?;
    expect_not_multiple(emulation::inverse_tiled(&p, r, &mut data, cfg), "data", len, n)?;
    prop_assert_eq!(&data, &bad, "a refused transform changed its input");
    expect_not_multiple(emulation::polymul(&p, &bad, &good), "a", len, n)?;
    expect_not_multiple(emulation::polymul_with(&p, r, &good, &bad), "b", len, n)?;
    expect_not_multiple(emulation::polymul_fused(&p, r, &bad, &good), "a", len, n)?;
    expect_not_multiple(emulation::polymul_fused(&p, r, &good, &bad), "b", len, n)?;
    expect_not_multiple(emulation::pointwise_mul(&p, &mut data, &good), "acc", len, n)?;
    let mut acc = good.clone();
    expect_not_multiple(emulation::pointwise_mul(&p, &mut acc, &bad), "other", len, n)?;
    Ok(())
}

/// `(log_n, batch, reduction, index of the bad coefficient, raw bad value,
/// optional second bad index after it, raw good coefficients)`.
type RangeCase = (u32, usize, Reduction, usize, u64, Option<usize>, Vec<u64>);

fn out_of_range_case() -> impl Strategy<Value = RangeCase> {
    (1u32..=10, 1usize..=3, reduction()).prop_flat_map(|(log_n, batch, r)| {
        let len = batch << log_n;
        (
            Just(log_n),
            Just(batch),
            Just(r),
            0..len,
            prop_oneof![Just(0u64), Just(u64::MAX), any::<u64>()],
            proptest::option::of(0..len),
            vec(raw_coeff(), len),
        )
    })
}

fn out_of_range<W: Coeff>(
    (log_n, _batch, r, index, raw, second, good): RangeCase,
) -> Result<(), TestCaseError> {
    let p = params::<W>(log_n, word_max_bits::<W>().min(r.max_bits(W::BITS)), 0)?;
    let q = p.q().as_u64();
    let good: Vec<W> = good.iter().map(|&g| W::from_u64(coeff(g, q))).collect();
    // A value in [q, W::MAX]: q itself (raw 0), W::MAX (raw u64::MAX), or any.
    let w_max = W::max_value().as_u64();
    let value = match raw {
        u64::MAX => w_max,
        raw => q + raw % (w_max - q + 1),
    };
    let mut bad = good.clone();
    bad[index] = W::from_u64(value);
    // A second bad coefficient after the first: the first is reported.
    if let Some(j) = second.filter(|&j| j > index) {
        bad[j] = W::from_u64(w_max);
    }
    let expect = |res: polymul::Result<_>, what: &str| -> Result<(), TestCaseError> {
        match res {
            Err(Error::CoefficientOutOfRange { what: w, index: i, value: v, q: eq })
                if w == what && i == index && v == value && eq == q =>
            {
                Ok(())
            }
            other => Err(TestCaseError::fail(format!(
                "expected CoefficientOutOfRange {{ what: {what}, index: {index}, value: {value}, q: {q} }}, \
                 got {other:?}"
            ))),
        }
    };
    let mut data = bad.clone();
    expect(emulation::forward(&p, &mut data).map(|_| Vec::new()), "data")?;
    expect(emulation::inverse_with(&p, r, &mut data).map(|_| Vec::new()), "data")?;
    let cfg = TiledConfig {
        log_max_tile: 10,
        threads: 8,
        log_radix: 4,
        direct: true,
        two_d: false,
        truncated: false,
    };
    expect(emulation::forward_tiled(&p, r, &mut data, cfg).map(|_| Vec::new()), "data")?;
    prop_assert_eq!(&data, &bad, "a refused transform changed its input");
    expect(emulation::polymul(&p, &bad, &good), "a")?;
    expect(emulation::polymul_with(&p, r, &good, &bad), "b")?;
    expect(emulation::polymul_fused(&p, r, &bad, &good), "a")?;
    let mut acc = good.clone();
    expect(emulation::pointwise_mul(&p, &mut acc, &bad).map(|_| Vec::new()), "other")?;
    Ok(())
}

proptest! {
    #![proptest_config(config(512))]

    /// Lengths that are not a positive multiple of N: `NotAMultipleOfN`
    /// with the buffer's name, length and N, input untouched (u32).
    #[test]
    fn wrong_lengths_are_typed_errors_u32(
        c in (1u32..=10, reduction()).prop_flat_map(|(l, r)| (Just(l), Just(r), bad_len(1 << l), any::<u64>()))
    ) {
        wrong_lengths::<u32>(c)?;
    }

    /// Lengths that are not a positive multiple of N: `NotAMultipleOfN`
    /// with the buffer's name, length and N, input untouched (u64).
    #[test]
    fn wrong_lengths_are_typed_errors_u64(
        c in (1u32..=10, reduction()).prop_flat_map(|(l, r)| (Just(l), Just(r), bad_len(1 << l), any::<u64>()))
    ) {
        wrong_lengths::<u64>(c)?;
    }

    /// A coefficient ≥ q at a random index: `CoefficientOutOfRange` with the
    /// first bad index and its value (u32).
    #[test]
    fn unreduced_coefficients_are_typed_errors_u32(c in out_of_range_case()) {
        out_of_range::<u32>(c)?;
    }

    /// A coefficient ≥ q at a random index: `CoefficientOutOfRange` with the
    /// first bad index and its value (u64).
    #[test]
    fn unreduced_coefficients_are_typed_errors_u64(c in out_of_range_case()) {
        out_of_range::<u64>(c)?;
    }
}

/// Deterministic Miller–Rabin for `u64` (the first 12 primes as bases), in
/// `u128` arithmetic: the test's own primality oracle.
fn is_prime(n: u64) -> bool {
    if n < 2 {
        return false;
    }
    const BASES: [u64; 12] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
    for p in BASES {
        if n.is_multiple_of(p) {
            return n == p;
        }
    }
    let mul = |a: u64, b: u64| (a as u128 * b as u128 % n as u128) as u64;
    let pow = |mut b: u64, mut e: u64| {
        let mut r = 1u64;
        while e > 0 {
            if e & 1 == 1 {
                r = mul(r, b);
            }
            b = mul(b, b);
            e >>= 1;
        }
        r
    };
    let s = (n - 1).trailing_zeros();
    let d = (n - 1) >> s;
    'bases: for a in BASES {
        let mut x = pow(a, d);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mul(x, x);
            if x == n - 1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

/// What `NttParams::<W>::new(n, q)` must answer, from its documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Expect {
    InvalidN,
    ModulusTooWide,
    BadModulus,
    NotPrime,
    NotNttFriendly,
    Ok,
}

fn expected<W: Coeff>(n: usize, q: u64) -> Expect {
    if !(n.is_power_of_two() && (MIN_N..=MAX_N).contains(&n)) {
        Expect::InvalidN
    } else if 64 - q.leading_zeros() > word_max_bits::<W>() {
        Expect::ModulusTooWide
    } else if q.is_multiple_of(2) || q < 5 {
        Expect::BadModulus
    } else if !is_prime(q) {
        Expect::NotPrime
    } else if !(q - 1).is_multiple_of(2 * n as u64) {
        Expect::NotNttFriendly
    } else {
        Expect::Ok
    }
}

/// A transform size: a valid power of two, a power of two out of range, or
/// not a power of two.
#[derive(Clone, Debug)]
enum NChoice {
    Pow2(u32),
    OutOfRange(u32),
    Any(usize),
}

/// A modulus: composite (odd factors), a prime ≢ 1 (mod 2N) found downward
/// from a start, a true NTT prime, even, tiny, wider than the word, or any.
#[derive(Clone, Debug)]
enum QChoice {
    Composite(u64, u64),
    PrimeNotFriendly(u64),
    NttPrime(u32, usize),
    Even(u64),
    Tiny(u64),
    Wide(u32, u64),
    Any(u64),
}

fn n_choice() -> impl Strategy<Value = NChoice> {
    prop_oneof![
        6 => (1u32..=24).prop_map(NChoice::Pow2),
        1 => prop_oneof![Just(0u32), 25u32..=40].prop_map(NChoice::OutOfRange),
        2 => any::<usize>().prop_map(NChoice::Any),
    ]
}

fn q_choice() -> impl Strategy<Value = QChoice> {
    prop_oneof![
        2 => (3u64..(1 << 31), 3u64..(1 << 31)).prop_map(|(a, b)| QChoice::Composite(a | 1, b | 1)),
        2 => (7u64..(1 << 62)).prop_map(QChoice::PrimeNotFriendly),
        2 => (MIN_PRIME_BITS..=62, 0usize..3).prop_map(|(b, i)| QChoice::NttPrime(b, i)),
        1 => any::<u64>().prop_map(QChoice::Even),
        1 => (0u64..5).prop_map(QChoice::Tiny),
        1 => (31u32..=64, any::<u64>()).prop_map(|(b, x)| QChoice::Wide(b, x)),
        1 => any::<u64>().prop_map(QChoice::Any),
    ]
}

fn resolve_n(c: &NChoice) -> usize {
    match *c {
        NChoice::Pow2(l) => 1 << l,
        NChoice::OutOfRange(l) => 1usize.checked_shl(l).unwrap_or(0),
        NChoice::Any(x) => x,
    }
}

fn resolve_q<W: Coeff>(c: &QChoice, n: usize) -> u64 {
    let word_max = word_max_bits::<W>();
    match *c {
        QChoice::Composite(a, b) => {
            // Odd factors of about half the word's width each.
            let half = 1u64 << word_max.div_ceil(2);
            ((3 + a % half) | 1) * ((3 + b % half) | 1)
        }
        QChoice::PrimeNotFriendly(start) => {
            let start = start % (1u64 << word_max).max(8);
            let two_n = 2 * n.clamp(2, 1 << 40) as u64;
            (5..=start.max(7)).rev().find(|&p| is_prime(p) && !(p - 1).is_multiple_of(two_n)).unwrap_or(7)
        }
        QChoice::NttPrime(bits, i) => {
            let bits = bits.min(word_max);
            // Only for small N; else any prime is tried.
            let small = n.clamp(2, 1 << 12);
            ntt_primes(bits, small, i + 1).map_or(5, |v| v[i])
        }
        QChoice::Even(x) => x & !1,
        QChoice::Tiny(x) => x,
        QChoice::Wide(bits, x) => {
            let bits = bits.max(word_max + 1);
            let top = 1u64 << (bits - 1);
            top | (x & (top - 1))
        }
        QChoice::Any(x) => x,
    }
}

fn ntt_params_validation<W: Coeff>(
    (nc, qc): (NChoice, QChoice),
    counts: &[AtomicUsize; 6],
) -> Result<(), TestCaseError> {
    let n = resolve_n(&nc);
    let q = resolve_q::<W>(&qc, n);
    let want = expected::<W>(n, q);
    if want == Expect::Ok && n > 1 << 14 {
        // Valid, but the tables would be large: not the point here.
        return Ok(());
    }
    let res = NttParams::<W>::new(n, q);
    let bits = 64 - q.leading_zeros();
    let two_n = (n as u64).wrapping_mul(2);
    let ok = match (&res, want) {
        (Err(Error::InvalidN { n: en, min, max }), Expect::InvalidN) => {
            *en == n && *min == MIN_N && *max == MAX_N
        }
        (Err(Error::ModulusTooWide { q: eq, bits: eb, max_bits, word }), Expect::ModulusTooWide) => {
            *eq == q && *eb == bits && *max_bits == word_max_bits::<W>() && *word == W::BITS
        }
        (Err(Error::BadModulus { q: eq, .. }), Expect::BadModulus) => *eq == q,
        (Err(Error::NotPrime { q: eq }), Expect::NotPrime) => *eq == q,
        (Err(Error::NotNttFriendly { q: eq, n: en, two_n: et }), Expect::NotNttFriendly) => {
            *eq == q && *en == n && *et == two_n
        }
        (Ok(p), Expect::Ok) => p.n() == n && p.q().as_u64() == q,
        _ => false,
    };
    prop_assert!(ok, "NttParams::<u{}>::new({}, {}): expected {:?}, got {:?}", W::BITS, n, q, want, res);
    counts[want as usize].fetch_add(1, Relaxed);
    Ok(())
}

fn ntt_params_property<W: Coeff>(name: &'static str, cases: u32) {
    let counts: [AtomicUsize; 6] = Default::default();
    run_cases(name, cases, (n_choice(), q_choice()), |c| ntt_params_validation::<W>(c, &counts));
    let counts = counts.map(AtomicUsize::into_inner);
    println!(
        "{name}: InvalidN {}, ModulusTooWide {}, BadModulus {}, NotPrime {}, NotNttFriendly {}, Ok {}",
        counts[0], counts[1], counts[2], counts[3], counts[4], counts[5]
    );
    assert!(counts.iter().all(|&c| c > 0), "{name}: some outcome was never exercised: {counts:?}");
}

/// `NttParams::new(n, q)` for random n (powers of two in and out of range,
/// anything) and q (composite, prime ≢ 1 mod 2N, NTT prime, even, tiny, too
/// wide, anything) answers exactly what its documentation says (u32).
#[test]
fn ntt_params_new_validates_u32() {
    ntt_params_property::<u32>("ntt_params_new_validates_u32", 1024);
}

/// As [`ntt_params_new_validates_u32`], on u64 words.
#[test]
fn ntt_params_new_validates_u64() {
    ntt_params_property::<u64>("ntt_params_new_validates_u64", 1024);
}

/// The test's primality oracle itself, against trial division.
#[test]
fn miller_rabin_oracle_agrees_with_trial_division() {
    let trial = |n: u64| n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| !n.is_multiple_of(d));
    for n in 0..20_000u64 {
        assert_eq!(is_prime(n), trial(n), "{n}");
    }
    // Strong pseudoprimes to small bases, and known primes.
    for (n, p) in
        [(3_215_031_751u64, false), (2_152_302_898_747, false), ((1 << 61) - 1, true), (1 << 62 | 1, false)]
    {
        assert_eq!(is_prime(n), p, "{n}");
    }
}
