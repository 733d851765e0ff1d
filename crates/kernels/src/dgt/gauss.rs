//! Gaussian integers `re + i·im` over `Z_p`, `p ≡ 3 (mod 4)` (so `i² = −1`
//! has no root in `Z_p` and `Z_p[i]` is the field `GF(p²)`).

use crate::Word;
use crate::arith::{Barrett4, ModMul, add_mod, sub_mod};

/// A Gaussian integer with both parts reduced modulo `p`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Gauss<W> {
    /// Real part.
    pub re: W,
    /// Imaginary part.
    pub im: W,
}

/// A twiddle prepared for the reduction `R` (Shoup: value and companion).
#[derive(Debug, Clone, Copy)]
pub struct GaussOp<O> {
    /// Real part.
    pub re: O,
    /// Imaginary part.
    pub im: O,
}

/// A table of prepared Gaussian values: `len` real main words, then `len`
/// real auxiliary words, `len` imaginary main, `len` imaginary auxiliary.
#[derive(Debug, Clone, Copy)]
pub struct GaussTable<W> {
    /// First word.
    pub base: *const W,
    /// Entries.
    pub len: u32,
}

impl<W: Word> GaussTable<W> {
    /// Entry `idx`, as the reduction's operand.
    ///
    /// # Safety
    /// `idx < len` and the table holds `4·len` words.
    #[inline(always)]
    pub unsafe fn get<R: ModMul<W>>(&self, idx: u32) -> GaussOp<R::Op> {
        let (i, n) = (idx as usize, self.len as usize);
        // SAFETY: inside the table (caller).
        unsafe {
            let aux = |k: usize| if R::NEEDS_AUX { *self.base.add(k) } else { W::zero() };
            GaussOp {
                re: R::op(*self.base.add(i), aux(n + i)),
                im: R::op(*self.base.add(2 * n + i), aux(3 * n + i)),
            }
        }
    }
}

impl<W: Word> Gauss<W> {
    /// `a + b`.
    #[inline(always)]
    pub fn add(self, b: Self, p: W) -> Self {
        Gauss { re: add_mod(self.re, b.re, p), im: add_mod(self.im, b.im, p) }
    }

    /// `a − b`.
    #[inline(always)]
    pub fn sub(self, b: Self, p: W) -> Self {
        Gauss { re: sub_mod(self.re, b.re, p), im: sub_mod(self.im, b.im, p) }
    }

    /// Part `comp` (0 = real, 1 = imaginary) of `self · w`, `w` prepared for
    /// `R`: two products (`re·w.re − im·w.im` or `re·w.im + im·w.re`).
    #[inline(always)]
    pub fn mul_part<R: ModMul<W>>(self, w: GaussOp<R::Op>, comp: u32, red: &R) -> W {
        let p = red.q();
        if comp == 0 {
            sub_mod(red.mul(self.re, w.re), red.mul(self.im, w.im), p)
        } else {
            add_mod(red.mul(self.re, w.im), red.mul(self.im, w.re), p)
        }
    }

    /// `self · w`, `w` prepared for `R`: four products.
    #[inline(always)]
    pub fn mul_op<R: ModMul<W>>(self, w: GaussOp<R::Op>, red: &R) -> Self {
        Gauss { re: self.mul_part(w, 0, red), im: self.mul_part(w, 1, red) }
    }

    /// `self · b` for two data values (Algorithm 4, Karatsuba: three
    /// products `re·b.re`, `im·b.im`, `(re + im)(b.re + b.im)`).
    #[inline(always)]
    pub fn mul(self, b: Self, red: &Barrett4<W>) -> Self {
        let p = red.q;
        let rr = red.mul(self.re, b.re);
        let ii = red.mul(self.im, b.im);
        let s = red.mul(add_mod(self.re, self.im, p), add_mod(b.re, b.im, p));
        Gauss { re: sub_mod(rr, ii, p), im: sub_mod(sub_mod(s, rr, p), ii, p) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::arith::Shoup;

    fn naive(a: (u64, u64), b: (u64, u64), p: u64) -> (u64, u64) {
        let m = |x: u64, y: u64| (x as u128 * y as u128 % p as u128) as u64;
        ((m(a.0, b.0) + p - m(a.1, b.1)) % p, (m(a.0, b.1) + m(a.1, b.0)) % p)
    }

    #[test]
    fn products_match_the_schoolbook_gaussian_product() {
        for p in [1_073_741_567u64 /* 30 bits, 3 mod 4 */, 65_407, 11] {
            let b4 = Barrett4::<u64>::new(p).unwrap();
            let sh = Shoup::<u64>::new(p).unwrap();
            let vals = [0, 1, 2, p / 2, p - 2, p - 1, 12345 % p];
            for &ar in &vals {
                for &ai in &vals {
                    for &(br, bi) in &[(0, 1), (p - 1, p - 1), (7 % p, p / 3), (1, 0)] {
                        let a = Gauss { re: ar, im: ai };
                        let b = Gauss { re: br, im: bi };
                        let want = naive((ar, ai), (br, bi), p);
                        let got = a.mul(b, &b4);
                        assert_eq!((got.re, got.im), want, "p={p}");
                        let op = |w: u64| {
                            let (m, x) = sh.prepare(w);
                            Shoup::<u64>::op(m, x)
                        };
                        let w = GaussOp { re: op(br), im: op(bi) };
                        let got = a.mul_op(w, &sh);
                        assert_eq!((got.re, got.im), want);
                    }
                }
            }
        }
    }
}
