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

    #[test]
    fn pairs_refuse_unreduced_multiplicands() {
        assert_eq!(ShoupPair::new(97u64, 97), None);
        assert_eq!(ShoupPair::new(1u64, 0), None);
        assert_eq!(ShoupPair::new(96u32, 97).map(|p| p.wp), Some(((96u64 << 32) / 97) as u32));
    }
}
