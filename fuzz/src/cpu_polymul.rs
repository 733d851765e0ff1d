//! Target `cpu_polymul`: differential testing of the CPU path (the kernels'
//! own code run on the host) against the schoolbook product.
//!
//! Input layout (zeros past the end):
//!
//! | field | type | use |
//! |---|---|---|
//! | `shape` | u8 | bit 0: word (`u32`/`u64`); bits 1–3: `log2 N − 1` (mod 6: N = 2..=64); bits 4–7: batch − 1 (mod 3) |
//! | `width` | u8 | prime width: 20 + (mod 11) on `u32`, 20 + (mod 43) on `u64` |
//! | `choice` | u8 | bits 0–1: which prime (the 1st to 4th largest of that width); bits 2–7: the reduction (mod 6) |
//! | `tile` | u8 | `TiledConfig`: `log_max_tile` 1 + (mod 7), `log_radix` bits 3–5 (mod 6, so 0 and 5 are refused), `direct` bit 6, `two_d` bit 7 |
//! | `threads` | u8 | emulated threads per block − 1 |
//! | `dgt` | u8 | `DgtConfig`: `stages1` bits 0–2 (0: the default configuration), `log_cluster1` bits 3–4, `log_cluster2` bits 5–6 |
//! | words | u64 × 2·batch·N | `a` then `b`, reduced mod the prime (top bits `111`: q − 1, `110`: 0) |
//!
//! With `q` the chosen NTT prime and `p` the DGT prime of the same rank:
//!
//! * `cpu::negacyclic_naive` and [`oracle::negacyclic`] (u128, independent)
//!   agree, per polynomial;
//! * `emulation::polymul` equals them bit for bit; so do `polymul_with`,
//!   `polymul_fused` and `polymul_fused_tiled` with the chosen reduction, or
//!   they refuse with the typed error the documentation gives (modulus too
//!   wide for the reduction, N < 4 for the fused product, no tile geometry,
//!   bad radix);
//! * `inverse(forward(a)) = a`, `forward_with(r)` equals `forward`, and the
//!   tiled transforms equal the radix-2 ones and invert each other; a
//!   refused call leaves the data untouched; forward, pointwise product and
//!   inverse give the product;
//! * `emulation::dgt::polymul` (N ≥ 4) equals the schoolbook product mod p, and
//!   the DGT round trip is the identity; a configuration that does not fit
//!   is refused with `BadDgtConfig` exactly when `DgtConfig::passes` says so.

use crate::input::Input;
use crate::oracle;
use polymul::cpu;
use polymul::dgt::{DgtConfig, DgtParams, dgt_primes};
use polymul::expert::Reduction;
use polymul::expert::emulation::{self, TiledConfig};
use polymul::params::ntt_primes;
use polymul::{Coeff, Error, NttParams};

/// The decoded input.
#[derive(Debug, Clone)]
struct Case {
    log_n: u32,
    batch: usize,
    bits: u32,
    rank: usize,
    reduction: Reduction,
    tiled: TiledConfig,
    dgt_stages1: u32,
    dgt_clusters: (u32, u32),
    words: Vec<u64>,
}

/// Runs the checks on one input.
pub fn check(data: &[u8]) {
    oracle::self_check();
    let mut i = Input::new(data);
    let shape = i.u8();
    let wide = shape & 1 == 1;
    let log_n = 1 + u32::from(shape >> 1 & 7) % 6;
    let batch = 1 + usize::from(shape >> 4) % 3;
    let width = i.u8();
    let bits = 20 + u32::from(width) % if wide { 43 } else { 11 };
    let choice = i.u8();
    let tile = i.u8();
    let threads = 1 + usize::from(i.u8());
    let dgt = i.u8();
    let words = (0..(2 * batch) << log_n).map(|_| i.u64()).collect();
    let c = Case {
        log_n,
        batch,
        bits,
        rank: usize::from(choice & 3),
        reduction: Reduction::ALL[usize::from(choice >> 2) % Reduction::ALL.len()],
        tiled: TiledConfig {
            log_max_tile: 1 + u32::from(tile) % 7,
            threads,
            log_radix: u32::from(tile >> 3 & 7) % 6,
            direct: tile & 0x40 != 0,
            two_d: tile & 0x80 != 0,
            truncated: false,
        },
        dgt_stages1: u32::from(dgt & 7),
        dgt_clusters: (u32::from(dgt >> 3 & 3), u32::from(dgt >> 5 & 3)),
        words,
    };
    if wide { run::<u64>(&c) } else { run::<u32>(&c) }
}

/// The raw words reduced mod `q`, as `W`.
fn reduce<W: Coeff>(words: &[u64], q: u64) -> Vec<W> {
    words
        .iter()
        .map(|&v| match v >> 61 {
            7 => q - 1,
            6 => 0,
            _ => v % q,
        })
        .map(W::from_u64)
        .collect()
}

fn wide<W: Coeff>(v: &[W]) -> Vec<u64> {
    v.iter().map(|w| w.as_u64()).collect()
}

/// The schoolbook product of each pair of polynomials.
fn schoolbook(a: &[u64], b: &[u64], n: usize, q: u64) -> Vec<u64> {
    let mut out = Vec::with_capacity(a.len());
    for (x, y) in a.chunks(n).zip(b.chunks(n)) {
        let c = oracle::negacyclic(x, y, q);
        assert_eq!(cpu::negacyclic_naive(x, y, q).expect("negacyclic_naive"), c, "negacyclic_naive, q = {q}");
        out.extend(c);
    }
    out
}

fn run<W: Coeff>(c: &Case) {
    let n = 1usize << c.log_n;
    let half = c.words.len() / 2;
    let q = ntt_primes(c.bits, n, c.rank + 1).expect("N ≤ 64 has NTT primes of every width")[c.rank];
    let p = NttParams::<W>::new(n, q).expect("an NTT prime");
    let (a, b) = (reduce::<W>(&c.words[..half], q), reduce::<W>(&c.words[half..], q));
    let want = schoolbook(&wide(&a), &wide(&b), n, q);
    let r = c.reduction;
    let fits = c.bits <= r.max_bits(W::BITS);
    let ctx = format!("N = {n}, batch {}, q = {q}, {} on u{}", c.batch, r.name(), W::BITS);

    assert_eq!(wide(&emulation::polymul(&p, &a, &b).expect("polymul")), want, "polymul, {ctx}");
    let refused = |e: &Error| {
        assert!(matches!(e, Error::ModulusTooWide { .. }) && !fits, "{ctx}: {e:?}");
    };
    match emulation::polymul_with(&p, r, &a, &b) {
        Ok(v) => assert!(fits && wide(&v) == want, "polymul_with, {ctx}"),
        Err(e) => refused(&e),
    }
    match emulation::polymul_fused(&p, r, &a, &b) {
        Ok(v) => assert!(fits && n >= 4 && wide(&v) == want, "polymul_fused, {ctx}"),
        Err(Error::InvalidN { .. }) => assert!(n < 4),
        Err(e) => refused(&e),
    }

    // Transforms: forward ∘ inverse, each reduction against the default.
    let mut fa = a.clone();
    emulation::forward(&p, &mut fa).expect("forward");
    let mut back = fa.clone();
    emulation::inverse(&p, &mut back).expect("inverse");
    assert!(back == a, "inverse(forward(a)) ≠ a, {ctx}");
    let mut fb = b.clone();
    emulation::forward(&p, &mut fb).expect("forward");
    let mut prod = fa.clone();
    emulation::pointwise_mul(&p, &mut prod, &fb).expect("pointwise_mul");
    emulation::inverse(&p, &mut prod).expect("inverse");
    assert_eq!(wide(&prod), want, "forward, pointwise, inverse, {ctx}");
    let mut x = a.clone();
    match emulation::forward_with(&p, r, &mut x) {
        Ok(()) => {
            assert!(fits && x == fa, "forward_with ≠ forward, {ctx}");
            emulation::inverse_with(&p, r, &mut x).expect("inverse_with after forward_with");
            assert!(x == a, "inverse_with(forward_with(a)) ≠ a, {ctx}");
        }
        Err(e) => {
            refused(&e);
            assert!(x == a, "a refused forward_with changed the data");
        }
    }

    // The tiled (shared-memory) kernels' code.
    let cfg = c.tiled;
    let geometry = cfg.geometry(c.log_n).is_ok();
    let radix_ok = (1..=4).contains(&cfg.log_radix);
    let tiled_refused = |e: &Error| match e {
        Error::BadRadix { .. } => assert!(!radix_ok, "{ctx}: {e}"),
        Error::InvalidN { .. } => assert!(radix_ok && !geometry, "{ctx}: {e}"),
        e => refused(e),
    };
    let mut t = a.clone();
    match emulation::forward_tiled(&p, r, &mut t, cfg) {
        Ok(()) => {
            assert!(fits && radix_ok && geometry && t == fa, "forward_tiled ≠ forward, {cfg:?}, {ctx}");
            emulation::inverse_tiled(&p, r, &mut t, cfg).expect("inverse_tiled after forward_tiled");
            assert!(t == a, "inverse_tiled(forward_tiled(a)) ≠ a, {cfg:?}, {ctx}");
        }
        Err(e) => {
            tiled_refused(&e);
            assert!(t == a, "a refused forward_tiled changed the data");
        }
    }
    match emulation::polymul_fused_tiled(&p, r, &a, &b, cfg) {
        Ok(v) => assert!(wide(&v) == want, "polymul_fused_tiled, {cfg:?}, {ctx}"),
        Err(Error::InvalidN { .. }) if n < 4 => {}
        Err(e) => tiled_refused(&e),
    }

    if n >= 4 {
        dgt_case::<W>(c, n);
    }
}

fn dgt_case<W: Coeff>(c: &Case, n: usize) {
    let p = dgt_primes(c.bits, n, c.rank + 1).expect("N ≤ 64 has DGT primes of every width")[c.rank];
    let prm = DgtParams::<W>::new(n, p).expect("a DGT prime");
    let half = c.words.len() / 2;
    let (a, b) = (reduce::<W>(&c.words[..half], p), reduce::<W>(&c.words[half..], p));
    let want = schoolbook(&wide(&a), &wide(&b), n, p);
    let log_m = c.log_n - 1;
    let config = if c.dgt_stages1 == 0 {
        DgtConfig::default_for(log_m)
    } else {
        DgtConfig {
            stages1: c.dgt_stages1,
            log_cluster1: c.dgt_clusters.0,
            log_cluster2: c.dgt_clusters.1,
            log_unit: 0,
        }
    };
    let fits = config.passes(log_m).is_ok();
    let ctx = format!("DGT N = {n}, batch {}, p = {p}, {config} on u{}", c.batch, W::BITS);
    match emulation::dgt::polymul(&prm, &config, &a, &b) {
        Ok(v) => assert!(fits && wide(&v) == want, "emulation::dgt::polymul, {ctx}"),
        Err(e) => assert!(!fits && matches!(e, Error::BadDgtConfig { .. }), "{ctx}: {e:?}"),
    }
    let mut x = a.clone();
    match emulation::dgt::forward(&prm, &config, &mut x) {
        Ok(()) => {
            emulation::dgt::inverse(&prm, &config, &mut x).expect("DGT inverse after forward");
            assert!(x == a, "DGT inverse(forward(a)) ≠ a, {ctx}");
        }
        Err(e) => assert!(!fits && matches!(e, Error::BadDgtConfig { .. }) && x == a, "{ctx}: {e:?}"),
    }
}
