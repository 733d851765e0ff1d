//! Every reduction variant against `%` on u128: exhaustive for small moduli,
//! random and edge operands for the widths of the paper, the correction
//! counts each variant promises, and the microbenchmark's chain body.

use polymul_kernels::Word;
use polymul_kernels::arith::{
    Barrett4, BarrettClassic, BuiltinRem, DhemQuisquater, ModMul, ModulusError, Montgomery, Shoup, add_mod,
    csub, half_mod, sub_mod,
};
use polymul_kernels::gmem::Gmem;
use polymul_kernels::microbench::modmul_chains;

fn is_prime(n: u64) -> bool {
    n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| !n.is_multiple_of(d))
}

/// The largest prime of exactly `bits` bits (trial division: bits <= 31).
fn largest_prime_u32(bits: u32) -> u64 {
    let mut q = (1u64 << bits) - 1;
    while !is_prime(q) {
        q -= 2;
    }
    q
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

fn reference(a: u64, b: u64, q: u64) -> u64 {
    (a as u128 * b as u128 % q as u128) as u64
}

/// `x · w mod q` through `R`, and how many corrections its estimate needed.
fn mul_counted<W: Word, R: ModMul<W>>(r: &R, a: u64, b: u64) -> (u64, u32) {
    let (main, aux) = r.prepare(W::from_u64(b));
    let op = R::op(main, aux);
    let est = r.estimate(W::from_u64(a), op).as_u64();
    let q = r.q().as_u64();
    let corrections = (est / q) as u32;
    let got = r.mul(W::from_u64(a), op).as_u64();
    assert_eq!(got, r.mul_with::<true>(W::from_u64(a), op).as_u64(), "if and select forms differ");
    (got, corrections)
}

fn check_pair<W: Word, R: ModMul<W>>(r: &R, a: u64, b: u64) -> u32 {
    let q = r.q().as_u64();
    let (got, c) = mul_counted::<W, R>(r, a, b);
    assert_eq!(got, reference(a, b, q), "{}: {a}·{b} mod {q} on u{}", R::NAME, W::BITS);
    assert!(c <= R::MAX_CORRECTIONS, "{}: {a}·{b} mod {q} needed {c} corrections", R::NAME);
    c
}

fn exhaustive<W: Word, R: ModMul<W>>(q: u64) {
    let r = R::new(W::from_u64(q)).unwrap();
    for a in 0..q {
        for b in 0..q {
            check_pair::<W, R>(&r, a, b);
        }
    }
}

macro_rules! for_all_variants {
    ($w:ty, $f:ident $(, $arg:expr)*) => {{
        $f::<$w, BuiltinRem<$w>>($($arg),*);
        $f::<$w, BarrettClassic<$w>>($($arg),*);
        $f::<$w, DhemQuisquater<$w>>($($arg),*);
        $f::<$w, Barrett4<$w>>($($arg),*);
        $f::<$w, Montgomery<$w>>($($arg),*);
        $f::<$w, Shoup<$w>>($($arg),*);
    }};
}

#[test]
fn exhaustive_small_moduli() {
    for q in (5u64..300).filter(|&q| q % 2 == 1) {
        for_all_variants!(u32, exhaustive, q);
        for_all_variants!(u64, exhaustive, q);
    }
    // Barrett needs no primality: an odd composite.
    for_all_variants!(u64, exhaustive, 1023);
}

fn add_sub_half<W: Word>(q: u64) {
    let qw = W::from_u64(q);
    for a in 0..q {
        for b in 0..q {
            let (aw, bw) = (W::from_u64(a), W::from_u64(b));
            assert_eq!(add_mod(aw, bw, qw).as_u64(), (a + b) % q);
            assert_eq!(sub_mod(aw, bw, qw).as_u64(), (a + q - b) % q);
        }
        assert_eq!(2 * half_mod(W::from_u64(a), qw).as_u64() % q, a, "half of {a} mod {q}");
    }
}

#[test]
fn add_sub_half_exhaustive() {
    for q in (5u64..300).filter(|&q| q % 2 == 1) {
        add_sub_half::<u32>(q);
        add_sub_half::<u64>(q);
    }
}

/// Random products plus the edge operands for one modulus, if `R` accepts
/// it; returns how many products needed each number of corrections.
fn random_products<W: Word, R: ModMul<W>>(q: u64, count: usize, seed: u64) -> Option<[u64; 3]> {
    let r = R::new(W::from_u64(q)).ok()?;
    let mut hist = [0u64; 3];
    let edges = [0, 1, 2, q / 2, q - 2, q - 1];
    for &a in &edges {
        for &b in &edges {
            hist[check_pair::<W, R>(&r, a, b) as usize] += 1;
        }
    }
    let mut rng = Rng(seed);
    for _ in 0..count {
        let (a, b) = (rng.next() % q, rng.next() % q);
        hist[check_pair::<W, R>(&r, a, b) as usize] += 1;
    }
    Some(hist)
}

fn widths_u32<W: Word, R: ModMul<W>>() {
    for bits in [28u32, 29, 30] {
        let q = largest_prime_u32(bits);
        let accepted = random_products::<W, R>(q, 1_000_000, bits as u64).is_some();
        assert_eq!(accepted, bits <= R::MAX_BITS, "{} with a {bits}-bit q", R::NAME);
    }
    // The widest odd modulus the variant accepts.
    let widest = (1u64 << R::MAX_BITS) - 1;
    assert!(random_products::<W, R>(widest, 200_000, 5).is_some());
    assert!(matches!(R::new(W::from_u64((1u64 << R::MAX_BITS) + 1)), Err(ModulusError::TooWide { .. })));
}

#[test]
fn random_and_edge_products_u32() {
    for_all_variants!(u32, widths_u32);
}

fn widths_u64<W: Word, R: ModMul<W>>() {
    // Largest primes of 60, 61 and 62 bits.
    for (bits, q) in [(60u32, (1u64 << 60) - 93), (61, (1u64 << 61) - 1), (62, (1u64 << 62) - 57)] {
        let accepted = random_products::<W, R>(q, 1_000_000, q).is_some();
        assert_eq!(accepted, bits <= R::MAX_BITS, "{} with a {bits}-bit q", R::NAME);
    }
    let widest = if R::MAX_BITS == 64 { u64::MAX } else { (1u64 << R::MAX_BITS) - 1 };
    assert!(random_products::<W, R>(widest, 200_000, 9).is_some());
}

#[test]
fn random_and_edge_products_u64() {
    for_all_variants!(u64, widths_u64);
}

fn paper_example<W: Word, R: ModMul<W>>(out: &mut Vec<String>) {
    let (a, b, q) = (994_674_970u64, 994_705_408u64, 994_705_409u64);
    match R::new(W::from_u64(q)) {
        Ok(r) => {
            let c = check_pair::<W, R>(&r, a, b);
            out.push(format!("{:>10} u{}: {c} correction(s)", R::NAME, W::BITS));
        }
        Err(e) => {
            assert!(R::MAX_BITS < 30);
            out.push(format!("{:>10} u{}: refuses the 30-bit q ({e:?})", R::NAME, W::BITS));
        }
    }
}

/// a = 994674970, b = 994705408, q = 994705409 (Section II-B): the result is
/// right for every variant, within each variant's correction bound; the
/// printed table says which variants needed two.
#[test]
fn paper_example_corrections() {
    let mut lines = Vec::new();
    for_all_variants!(u32, paper_example, &mut lines);
    for_all_variants!(u64, paper_example, &mut lines);
    println!("{}", lines.join("\n"));
}

fn correction_statistics<W: Word, R: ModMul<W>>(q: u64, lines: &mut Vec<String>) {
    let Some(h) = random_products::<W, R>(q, 1_000_000, 42) else { return };
    let total: u64 = h.iter().sum();
    assert!(h[2] == 0 || R::MAX_CORRECTIONS == 2, "{} needed a second correction", R::NAME);
    lines.push(format!(
        "{:>10} u{} q={q}: 0: {:.3}%  1: {:.3}%  2: {:.4}%",
        R::NAME,
        W::BITS,
        100.0 * h[0] as f64 / total as f64,
        100.0 * h[1] as f64 / total as f64,
        100.0 * h[2] as f64 / total as f64
    ));
}

/// How often each variant needs 0, 1 or 2 corrections on uniform operands;
/// asserts the "at most one" claims exactly (Algorithms 3 and 4, Montgomery,
/// Shoup) on a million products per modulus.
#[test]
fn correction_statistics_on_uniform_operands() {
    let mut lines = Vec::new();
    for q in [largest_prime_u32(28), largest_prime_u32(30)] {
        for_all_variants!(u32, correction_statistics, q, &mut lines);
    }
    for q in [(1u64 << 60) - 93, (1u64 << 62) - 57] {
        for_all_variants!(u64, correction_statistics, q, &mut lines);
    }
    println!("{}", lines.join("\n"));
    // Classical Barrett's second correction is rare on uniform operands
    // (none above in 10^6 products per modulus) but real: it shows up for
    // products near q², as in the paper's example modulus.
    let q = 994_705_409u64;
    let r = BarrettClassic::<u32>::new(q as u32).unwrap();
    let mut rng = Rng(1);
    let top = |rng: &mut Rng| q - 1 - rng.next() % (q / 64);
    let n = 200_000;
    let seconds = (0..n).filter(|_| mul_counted::<u32, _>(&r, top(&mut rng), top(&mut rng)).1 == 2).count();
    println!("barrett2 u32 q={q}, operands in the top 1/64: second correction in {seconds} of {n}");
    assert!(seconds > 0, "no second correction in {n} classical Barrett products near q²");
}

#[test]
fn constructors_reject_bad_moduli() {
    assert_eq!(Barrett4::new(0u64), Err(ModulusError::Even));
    assert_eq!(Barrett4::new(1024u32), Err(ModulusError::Even));
    assert_eq!(Montgomery::new(1u64), Err(ModulusError::TooSmall { min: 5 }));
    assert_eq!(Shoup::new(3u32), Err(ModulusError::TooSmall { min: 5 }));
    assert_eq!(Barrett4::new((1u32 << 30) + 1), Err(ModulusError::TooWide { bits: 31, max_bits: 30 }));
    assert_eq!(BarrettClassic::new((1u64 << 62) + 1), Err(ModulusError::TooWide { bits: 63, max_bits: 62 }));
    assert_eq!(DhemQuisquater::new((1u64 << 62) - 57), Err(ModulusError::TooWide { bits: 62, max_bits: 60 }));
    assert_eq!(DhemQuisquater::new((1u32 << 29) + 11), Err(ModulusError::TooWide { bits: 30, max_bits: 28 }));
    assert_eq!(BuiltinRem::new(1u64 << 63 | 1), Err(ModulusError::TooWide { bits: 64, max_bits: 63 }));
    assert!(Montgomery::new(u32::MAX >> 1).is_ok());
}

#[test]
fn montgomery_inverse_and_form() {
    for q in [5u64, 12289, (1 << 62) - 57, (1 << 63) - 25] {
        let m = Montgomery::<u64>::new(q).unwrap();
        let (_, qinv, _) = m.parts();
        assert_eq!(q.wrapping_mul(qinv), 1, "q·q⁻¹ mod 2^64 for q = {q}");
        assert_eq!(m.to_montgomery(1) as u128, (1u128 << 64) % q as u128);
    }
}

#[test]
fn csub_forms_agree() {
    for q in [5u32, 7, 1 << 29 | 1] {
        for r in [0, 1, q - 1, q, q + 1, 2 * q - 1] {
            assert_eq!(csub::<u32, false>(r, q), csub::<u32, true>(r, q));
            assert_eq!(csub::<u32, false>(r, q), if r >= q { r - q } else { r });
        }
    }
}

fn chains<W: Gmem, R: ModMul<W>>(q: u64) {
    let r = R::new(W::from_u64(q)).unwrap();
    let mut rng = Rng(q);
    let threads = 3;
    let start: Vec<u64> = (0..4 * threads).map(|_| rng.next() % q).collect();
    let ws: Vec<u64> = (0..threads).map(|_| rng.next() % q).collect();
    let (main, aux): (Vec<W>, Vec<W>) = ws.iter().map(|&w| r.prepare(W::from_u64(w))).unzip();
    let mut data: Vec<W> = start.iter().map(|&x| W::from_u64(x)).collect();
    for t in 0..threads {
        // SAFETY: data holds 4·threads words, the tables `threads`.
        unsafe { modmul_chains::<W, R, false>(data.as_mut_ptr(), main.as_ptr(), aux.as_ptr(), t, 37, &r) };
    }
    for (i, &x) in start.iter().enumerate() {
        let w = ws[i / 4];
        let want = (0..37).fold(x, |acc, _| reference(acc, w, q));
        assert_eq!(data[i].as_u64(), want, "{} chain {i}", R::NAME);
    }
}

#[test]
fn microbenchmark_chains_match_the_reference() {
    for_all_variants!(u32, chains, largest_prime_u32(28));
    for_all_variants!(u64, chains, (1u64 << 60) - 93);
}

#[test]
fn wide_helpers() {
    assert_eq!(u64::MAX.mul_wide(u64::MAX), (1, u64::MAX - 1));
    assert_eq!(u32::MAX.mul_wide(2), (u32::MAX - 1, 1));
    assert_eq!(u64::shr_wide(0, 1, 64), 1);
    assert_eq!(u64::shr_wide(0, 1, 1), 1 << 63);
    assert_eq!(u32::shr_wide(0x8000_0000, 0x1, 31), 3);
    assert_eq!(u32::shr_wide(5, 0, 0), 5);
    assert_eq!(7u64.mul_rem(9, 0), 0);
    assert_eq!(u64::MAX.mul_rem(u64::MAX, 1 << 63 | 1), reference(u64::MAX, u64::MAX, 1 << 63 | 1));
}

/// The tiled passes' step plan covers every stage of a pass exactly once,
/// in order (ascending forward, descending inverse), with steps no wider
/// than the radix allows and as even as possible.
#[test]
fn tiled_steps_cover_each_stage_once_in_order() {
    use polymul_kernels::ntt::tiled::steps;
    for lo in 0..4u32 {
        for hi in lo..lo + 14 {
            for inverse in [false, true] {
                for log_radix in 1..=4u32 {
                    let mut order = Vec::new();
                    let all: Vec<(u32, u32)> = steps(lo, hi, inverse, log_radix).collect();
                    assert_eq!(all.len() as u32, (hi - lo).div_ceil(log_radix));
                    for &(log_m, k) in &all {
                        assert!((1..=log_radix).contains(&k), "step of {k} stages, radix 2^{log_radix}");
                        let s: Vec<u32> = (log_m..log_m + k).collect();
                        if inverse {
                            order.extend(s.into_iter().rev());
                        } else {
                            order.extend(s);
                        }
                    }
                    if let (Some(max), Some(min)) =
                        (all.iter().map(|s| s.1).max(), all.iter().map(|s| s.1).min())
                    {
                        assert!(max - min <= 1, "uneven steps {all:?}");
                    }
                    let mut want: Vec<u32> = (lo..hi).collect();
                    if inverse {
                        want.reverse();
                    }
                    assert_eq!(order, want, "lo={lo} hi={hi} inverse={inverse} radix=2^{log_radix}");
                }
            }
        }
    }
}
