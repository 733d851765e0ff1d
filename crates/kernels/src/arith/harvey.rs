//! Harvey's lazy butterflies (D. Harvey, "Faster arithmetic for
//! number-theoretic transforms", J. Symb. Comp. 2014): Shoup products whose
//! result is left in `[0, 2q)`, and butterflies that keep their values in
//! `[0, 4q)` (forward, Cooley–Tukey) or `[0, 2q)` (inverse, Gentleman–Sande)
//! so that a whole transform needs one conditional subtraction per
//! butterfly instead of three, and one final correction per word.
//!
//! Every bound below needs `4q < 2^β` (β = word bits): moduli of up to 62
//! bits on `u64` and 30 bits on `u32` ([`max_bits`]).

use crate::Word;

/// A multiplicand `w < q` with its Shoup companion `⌊w · 2^β / q⌋`, stored
/// side by side so that one vector load fetches both (`#[repr(C)]`, aligned
/// to the pair).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C)]
pub struct ShoupPair<W> {
    /// The multiplicand.
    pub w: W,
    /// `⌊w · 2^β / q⌋`.
    pub wp: W,
}

impl<W: Word> ShoupPair<W> {
    /// Prepares `w < q` for `q` (host side: divides). `None` unless
    /// `0 < q`, `w < q`.
    pub fn new(w: W, q: W) -> Option<Self> {
        let (w64, q64) = (w.as_u64(), q.as_u64());
        if q64 == 0 || w64 >= q64 {
            return None;
        }
        let wp = ((w64 as u128) << W::BITS) / q64 as u128;
        Some(Self { w, wp: W::from_u64(wp as u64) })
    }
}

/// Widest modulus, in bits, the lazy butterflies accept on `word_bits`-bit
/// words (`4q < 2^β`).
pub const fn max_bits(word_bits: u32) -> u32 {
    word_bits - 2
}

/// `x · w mod q` up to one multiple of q: a value `≡ x·w` in `[0, 2q)` for
/// every word `x` (Shoup's bound holds for any `x < 2^β`, not only `x < q`).
#[inline(always)]
pub fn mul_lazy<W: Word>(x: W, t: ShoupPair<W>, q: W) -> W {
    let (_, quot) = x.mul_wide(t.wp);
    x.wrapping_mul(&t.w).wrapping_sub(&quot.wrapping_mul(&q))
}

/// `x ≥ m ? x − m : x` as `min(x, x − m)` (wrapping): no branch, no
/// compare-and-select pair on `u32`.
#[inline(always)]
pub fn csub<W: Word>(x: W, m: W) -> W {
    x.min(x.wrapping_sub(&m))
}

/// Forward (Cooley–Tukey) lazy butterfly: `(x, y) → (x + w·y, x − w·y)` with
/// inputs and outputs in `[0, 4q)`; `q2 = 2q`.
#[inline(always)]
pub fn ct<W: Word>(x: W, y: W, t: ShoupPair<W>, q: W, q2: W) -> (W, W) {
    let x = csub(x, q2);
    let v = mul_lazy(y, t, q);
    (x.wrapping_add(&v), x.wrapping_add(&q2).wrapping_sub(&v))
}

/// Inverse (Gentleman–Sande) lazy butterfly: `(x, y) → (x + y, (x − y)·w)`
/// with inputs and outputs in `[0, 2q)`; `q2 = 2q`.
#[inline(always)]
pub fn gs<W: Word>(x: W, y: W, t: ShoupPair<W>, q: W, q2: W) -> (W, W) {
    let s = csub(x.wrapping_add(&y), q2);
    (s, mul_lazy(x.wrapping_add(&q2).wrapping_sub(&y), t, q))
}

/// The inverse's last butterfly with the `1/N` scaling folded in:
/// `(x, y) → ((x + y)/N, (x − y)·w/N)`, fully reduced to `[0, q)`; `ninv`
/// is `N⁻¹` and `wn` is `w · N⁻¹`, both prepared; inputs in `[0, 2q)`.
#[inline(always)]
pub fn gs_last<W: Word>(x: W, y: W, ninv: ShoupPair<W>, wn: ShoupPair<W>, q: W, q2: W) -> (W, W) {
    let s = mul_lazy(x.wrapping_add(&y), ninv, q);
    let d = mul_lazy(x.wrapping_add(&q2).wrapping_sub(&y), wn, q);
    (csub(s, q), csub(d, q))
}

/// A factor `h < q` prepared so that the Shoup pair of any product `x·h mod
/// q` comes out exactly, with no division ([`pair_times`]): the computed row
/// twiddles (`w = lo · hi`, `crate::ntt::lazy::row_twiddle_exponent`) keep
/// their high factors this way. Stored as two [`ShoupPair`]s, `(hp, r)` and
/// `(rp, h)`, so that the kernels fetch it with two pair loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[repr(C)]
pub struct PairFactor<W> {
    /// `h' = ⌊h · 2^β / q⌋`, `h`'s Shoup companion.
    pub hp: W,
    /// `r = h · 2^β mod q = h·2^β − h'·q`.
    pub r: W,
    /// `r' = ⌊r · 2^β / q⌋`, `r`'s Shoup companion.
    pub rp: W,
    /// `h` itself (not needed by [`pair_times`]; kept for checks).
    pub h: W,
}

impl<W: Word> PairFactor<W> {
    /// Prepares `h < q` for `q` (host side: divides). `None` unless
    /// `0 < q`, `h < q`.
    pub fn new(h: W, q: W) -> Option<Self> {
        let ShoupPair { wp: hp, .. } = ShoupPair::new(h, q)?;
        let r = ((h.as_u64() as u128) << W::BITS) % q.as_u64() as u128;
        let ShoupPair { wp: rp, .. } = ShoupPair::new(W::from_u64(r as u64), q)?;
        Some(Self { hp, r: W::from_u64(r as u64), rp, h })
    }

    /// The two pairs it is stored as: `(h', r)`, `(r', h)`.
    pub fn to_pairs(self) -> [ShoupPair<W>; 2] {
        [ShoupPair { w: self.hp, wp: self.r }, ShoupPair { w: self.rp, wp: self.h }]
    }

    /// The factor stored as [`PairFactor::to_pairs`].
    #[inline(always)]
    pub fn from_pairs(a: ShoupPair<W>, b: ShoupPair<W>) -> Self {
        Self { hp: a.w, r: a.wp, rp: b.w, h: b.wp }
    }
}

/// The Shoup pair `(w, w')` of `w = x · h mod q`, bit for bit what
/// [`ShoupPair::new`] gives, for any word `x` and a factor `f` prepared by
/// [`PairFactor::new`] for `q` with `2q < 2^β`. Six word products, no
/// division, no branch.
///
/// Exactness. Write `h·2^β = h'·q + r` (`0 ≤ r < q`) and
/// `x·h = c·q + w` (`0 ≤ w < q`). Then
/// `w·2^β = x·h·2^β − c·q·2^β = q·(x·h' − c·2^β) + x·r`, so
/// `w' = ⌊w·2^β/q⌋ = x·h' − c·2^β + ⌊x·r/q⌋`, and since `0 ≤ w' < 2^β`,
/// `w' = (x·h' + ⌊x·r/q⌋) mod 2^β`: no `c` needed.
/// `f = ⌊x·r/q⌋` by Shoup's estimate `f̃ = hi(x·r')`: from
/// `r·2^β/q − 1 < r' ≤ r·2^β/q` and `x < 2^β`, `x·r/q − 1 < x·r'/2^β ≤
/// x·r/q`, so `f̃ ∈ {f − 1, f}`; the remainder `x·r − f̃·q` is then in
/// `[0, 2q)`, below `2^β`, so its low word is exact and one comparison with
/// `q` corrects `f̃`.
/// `w` from `w'`: `w'` is `⌊w·2^β/q⌋`, so `w·2^β − q < w'·q ≤ w·2^β`, i.e.
/// `w'·q/2^β ∈ (w − q/2^β, w]` with `q/2^β < 1`: `w = ⌈w'·q / 2^β⌉`, the
/// high word of `w'·q` plus one where its low word is not zero.
#[inline(always)]
pub fn pair_times<W: Word>(x: W, f: PairFactor<W>, q: W) -> ShoupPair<W> {
    let (_, est) = x.mul_wide(f.rp);
    let rem = x.wrapping_mul(&f.r).wrapping_sub(&est.wrapping_mul(&q));
    let fl = if rem >= q { est + W::one() } else { est };
    let wp = x.wrapping_mul(&f.hp).wrapping_add(&fl);
    let (lo, hi) = wp.mul_wide(q);
    let w = if lo != W::zero() { hi + W::one() } else { hi };
    ShoupPair { w, wp }
}

/// A forward output in `[0, 4q)` reduced to `[0, q)`.
#[inline(always)]
pub fn reduce4<W: Word>(x: W, q: W, q2: W) -> W {
    csub(csub(x, q2), q)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mulmod(a: u64, b: u64, q: u64) -> u64 {
        ((a as u128 * b as u128) % q as u128) as u64
    }

    /// The largest u64 moduli the lazy butterflies allow, and some small ones.
    const Q64: [u64; 4] = [(1 << 62) - 57, 4611686018326724609, (1 << 62) - 1, 97];

    #[test]
    fn mul_lazy_is_congruent_and_below_2q_for_any_word() {
        for q in Q64 {
            for (w, x) in [(q - 1, u64::MAX), (1, u64::MAX), (q - 1, 4 * q - 1), (0, 5), (q / 3, 12345)] {
                let t = ShoupPair::new(w, q).unwrap();
                let r = mul_lazy(x, t, q);
                assert!(r < 2 * q, "q={q} w={w} x={x}");
                assert_eq!(r % q, mulmod(x % q, w, q));
            }
        }
        let q = (1u32 << 30) - 35;
        for (w, x) in [(q - 1, u32::MAX), (7, 4 * q - 1)] {
            let t = ShoupPair::new(w, q).unwrap();
            let r = mul_lazy(x, t, q);
            assert!(r < 2 * q);
            assert_eq!(r as u64 % q as u64, mulmod(x as u64 % q as u64, w as u64, q as u64));
        }
    }

    #[test]
    fn butterflies_keep_their_bounds_and_values() {
        for q in Q64 {
            let q2 = 2 * q;
            let w = q - 2;
            let t = ShoupPair::new(w, q).unwrap();
            for (x, y) in [(4 * q - 1, 4 * q - 1), (0, 0), (2 * q, 4 * q - 1), (q - 1, 1)] {
                let (a, b) = ct(x, y, t, q, q2);
                assert!(a < 4 * q && b < 4 * q);
                assert_eq!(a % q, (x % q + mulmod(y % q, w, q)) % q);
                assert_eq!(b % q, (x % q + q - mulmod(y % q, w, q)) % q);
                let (x, y) = (x % q2, y % q2);
                let (a, b) = gs(x, y, t, q, q2);
                assert!(a < q2 && b < q2);
                assert_eq!(a % q, (x % q + y % q) % q);
                assert_eq!(b % q, mulmod((x % q + q - y % q) % q, w, q));
                let (ni, wn) = (ShoupPair::new(3, q).unwrap(), ShoupPair::new(mulmod(w, 3, q), q).unwrap());
                let (a, b) = gs_last(x, y, ni, wn, q, q2);
                assert_eq!(a, mulmod((x % q + y % q) % q, 3, q));
                assert_eq!(b, mulmod((x % q + q - y % q) % q, mulmod(w, 3, q), q));
            }
        }
    }

    /// `pair_times` against `ShoupPair::new` of the product, for `q` and
    /// every operand of `xs` times every factor of `hs` (those `< q`).
    fn check_pair_times<W: Word + core::fmt::Debug>(q: W, xs: &[W], hs: &[W]) {
        for &h in hs.iter().filter(|&&h| h < q) {
            let f = PairFactor::new(h, q).unwrap();
            assert_eq!(PairFactor::from_pairs(f.to_pairs()[0], f.to_pairs()[1]), f);
            for &x in xs {
                let w = W::from_u64(mulmod(x.as_u64() % q.as_u64(), h.as_u64(), q.as_u64()));
                assert_eq!(pair_times(x, f, q), ShoupPair::new(w, q).unwrap(), "q={q:?} x={x:?} h={h:?}");
            }
        }
    }

    /// A small deterministic generator (SplitMix64).
    fn mix(s: &mut u64) -> u64 {
        *s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *s;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    #[test]
    fn pair_times_is_exact_for_every_operand_of_small_moduli() {
        // Exhaustive: every x < q and every h < q, for every q up to 70
        // (primes or not: the argument needs no primality), on both words;
        // and x past q (any word is allowed).
        for q in 2u32..=70 {
            let mut xs = [0u32; 74];
            let mut xs64 = [0u64; 74];
            for (i, (x, x64)) in xs.iter_mut().zip(xs64.iter_mut()).enumerate() {
                let i = i as u32;
                *x = if i < q { i } else { [q, 4 * q - 1, u32::MAX, u32::MAX - 1][(i % 4) as usize] };
                *x64 = if i < q { i as u64 } else { [q as u64, u64::MAX][(i % 2) as usize] };
            }
            check_pair_times(q, &xs, &xs[..q as usize]);
            check_pair_times(q as u64, &xs64, &xs64[..q as usize]);
        }
    }

    #[test]
    fn pair_times_is_exact_for_large_moduli() {
        // The largest moduli each word allows (4q < 2^β: 30 and 62 bits),
        // NTT primes of the RNS bases, and odd values near the top; the
        // operands 0, 1, q − 1, q − 2, q / 2 and random ones (factors
        // below q, operands any word).
        let mut s = 0x5eed_u64;
        for q in [(1u32 << 30) - 1, (1 << 30) - 35, 1_073_479_681, 998_244_353, (1 << 29) + 11] {
            let mut hs = [0u32; 200];
            let mut xs = [0u32; 300];
            for (i, v) in hs.iter_mut().chain(xs.iter_mut()).enumerate() {
                *v = match i {
                    0..5 | 200..205 => [0, 1, q - 1, q - 2, q / 2][i % 5],
                    205..207 => [u32::MAX, 4 * q - 1][i - 205],
                    207..300 => mix(&mut s) as u32,
                    _ => (mix(&mut s) % q as u64) as u32,
                };
            }
            check_pair_times(q, &xs, &hs);
        }
        let extra = [(1u64 << 62) - 1, 4_611_686_018_427_322_369, (1 << 61) - 1, (1 << 40) + 15];
        for q in Q64.into_iter().chain(extra) {
            let mut hs = [0u64; 200];
            let mut xs = [0u64; 300];
            for (i, v) in hs.iter_mut().chain(xs.iter_mut()).enumerate() {
                *v = match i {
                    0..5 | 200..205 => [0, 1, q - 1, q - 2, q / 2][i % 5],
                    205..207 => [u64::MAX, 4 * q - 1][i - 205],
                    207..300 => mix(&mut s),
                    _ => mix(&mut s) % q,
                };
            }
            check_pair_times(q, &xs, &hs);
        }
    }

    #[test]
    fn pairs_refuse_unreduced_multiplicands() {
        assert_eq!(ShoupPair::new(97u64, 97), None);
        assert_eq!(ShoupPair::new(1u64, 0), None);
        assert_eq!(ShoupPair::new(96u32, 97).map(|p| p.wp), Some(((96u64 << 32) / 97) as u32));
    }
}
