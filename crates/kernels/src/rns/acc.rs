//! The column sums of both conversions: a 192-bit accumulator of products
//! `x · y` (`x < 2^64`, `y < 2^64`), added without any reduction, and
//! [`Acc96`], a 64-bit accumulator of 32 × 32-bit products that counts its
//! carries (the column CRT's default arithmetic).
//!
//! On the GPU every product-and-add is one inline-PTX carry chain
//! (`mad.lo.cc` / `madc.hi.cc` / `addc`), so the carries travel in the
//! condition code instead of through the comparisons `u128::overflowing_add`
//! lowers to (about 15 instructions per product there, 4–5 here). When one
//! factor is known to be below `2^32` ([`Acc192::mac_narrow`]: the `u32`
//! towers' table entries and residues) the product is two 32 × 32-bit
//! partial products instead of four. On the host the same sums are computed
//! with `u128` arithmetic; both give the same words.

/// `lo + mid · 2^64 + top · 2^128`: a sum of up to `2^32` products of two
/// 64-bit words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Acc192 {
    /// Bits 0–63.
    pub lo: u64,
    /// Bits 64–127.
    pub mid: u64,
    /// Bits 128 and up.
    pub top: u32,
}

impl Acc192 {
    /// The sum `v` (below `2^128`).
    #[inline(always)]
    pub fn new(v: u128) -> Self {
        Self { lo: v as u64, mid: (v >> 64) as u64, top: 0 }
    }

    /// `self += x · y`.
    #[inline(always)]
    pub fn mac(&mut self, x: u64, y: u64) {
        #[cfg(target_arch = "nvptx64")]
        // SAFETY: register arithmetic only; the carry flag lives inside the
        // one asm block.
        unsafe {
            core::arch::asm!(
                "mad.lo.cc.u64 {lo}, {x}, {y}, {lo};",
                "madc.hi.cc.u64 {mid}, {x}, {y}, {mid};",
                "addc.u32 {top}, {top}, 0;",
                lo = inout(reg64) self.lo,
                mid = inout(reg64) self.mid,
                top = inout(reg32) self.top,
                x = in(reg64) x,
                y = in(reg64) y,
                options(pure, nomem, nostack),
            );
        }
        #[cfg(not(target_arch = "nvptx64"))]
        self.add_wide(x as u128 * y as u128);
    }

    /// `self += x · y` for `y < 2^32` (only the low word of `y` is read).
    #[inline(always)]
    pub fn mac_narrow(&mut self, x: u64, y: u32) {
        #[cfg(target_arch = "nvptx64")]
        // SAFETY: as for `mac`.
        unsafe {
            core::arch::asm!(
                "{{",
                ".reg .u32 x0, x1, a0, a1, a2, a3;",
                "mov.b64 {{x0, x1}}, {x};",
                "mov.b64 {{a0, a1}}, {lo};",
                "mov.b64 {{a2, a3}}, {mid};",
                "mad.lo.cc.u32 a0, x0, {y}, a0;",
                "madc.hi.cc.u32 a1, x0, {y}, a1;",
                "addc.cc.u32 a2, a2, 0;",
                "addc.cc.u32 a3, a3, 0;",
                "addc.u32 {top}, {top}, 0;",
                "mad.lo.cc.u32 a1, x1, {y}, a1;",
                "madc.hi.cc.u32 a2, x1, {y}, a2;",
                "addc.cc.u32 a3, a3, 0;",
                "addc.u32 {top}, {top}, 0;",
                "mov.b64 {lo}, {{a0, a1}};",
                "mov.b64 {mid}, {{a2, a3}};",
                "}}",
                lo = inout(reg64) self.lo,
                mid = inout(reg64) self.mid,
                top = inout(reg32) self.top,
                x = in(reg64) x,
                y = in(reg32) y,
                options(pure, nomem, nostack),
            );
        }
        #[cfg(not(target_arch = "nvptx64"))]
        self.add_wide(x as u128 * y as u128);
    }

    /// Host path: `self += p`.
    #[cfg(not(target_arch = "nvptx64"))]
    #[inline(always)]
    fn add_wide(&mut self, p: u128) {
        self.add(p);
    }

    /// `self += v` (both targets; the column kernels' carries).
    #[inline(always)]
    pub fn add(&mut self, v: u128) {
        let (low, over) = self.low().overflowing_add(v);
        self.lo = low as u64;
        self.mid = (low >> 64) as u64;
        self.top = self.top.wrapping_add(over as u32);
    }

    /// Bits 0–127.
    #[inline(always)]
    pub fn low(&self) -> u128 {
        self.lo as u128 | (self.mid as u128) << 64
    }

    /// Bits 64 and up: the carry into the next column.
    #[inline(always)]
    pub fn carry(&self) -> u128 {
        self.mid as u128 | (self.top as u128) << 64
    }
}

/// `lo + c · 2^64`: a sum of up to `2^32` products of two 32-bit words,
/// the column kernel's split accumulators (`super::crt_cols`,
/// [`super::crt_cols::CrtColsVariant::Split`]).
///
/// On the GPU each product-and-add is `mad.lo.cc.u32` / `madc.hi.cc.u32` /
/// `addc.u32`, which ptxas 13 (sm_90) turns into one
/// `IMAD.WIDE.U32` with a carry-out predicate and half of an `IADD3.X`
/// (one `IADD3.X` takes the carries of two products): a 64 × 64-bit product
/// is four of them, against about 18 instructions for [`Acc192::mac`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Acc96 {
    /// Bits 0–63.
    pub lo: u64,
    /// Bits 64 and up: the carries out of `lo`.
    pub c: u32,
}

impl Acc96 {
    /// Zero.
    pub const ZERO: Self = Self { lo: 0, c: 0 };

    /// `self += x · y`.
    #[inline(always)]
    pub fn mac(&mut self, x: u32, y: u32) {
        #[cfg(target_arch = "nvptx64")]
        // SAFETY: register arithmetic only; the carry flag lives inside the
        // one asm block.
        unsafe {
            core::arch::asm!(
                "{{",
                ".reg .u32 a0, a1;",
                "mov.b64 {{a0, a1}}, {lo};",
                "mad.lo.cc.u32 a0, {x}, {y}, a0;",
                "madc.hi.cc.u32 a1, {x}, {y}, a1;",
                "addc.u32 {c}, {c}, 0;",
                "mov.b64 {lo}, {{a0, a1}};",
                "}}",
                lo = inout(reg64) self.lo,
                c = inout(reg32) self.c,
                x = in(reg32) x,
                y = in(reg32) y,
                options(pure, nomem, nostack),
            );
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            let (v, o) = self.lo.overflowing_add(x as u64 * y as u64);
            self.lo = v;
            self.c = self.c.wrapping_add(o as u32);
        }
    }

    /// The sum, `lo + c · 2^64` (below `2^96`).
    #[inline(always)]
    pub fn value(&self) -> u128 {
        self.lo as u128 | (self.c as u128) << 64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sums_of_the_largest_products_carry_into_the_top_word() {
        let mut a = Acc192::new(u128::MAX);
        let mut b = Acc192::new(u128::MAX);
        let mut want = (u128::MAX, 0u64); // (low 128 bits, top)
        for i in 0..1000u64 {
            let x = u64::MAX - i * 0x1234_5678_9abc;
            let y = u64::MAX - i;
            a.mac(x, y);
            let y32 = u32::MAX - i as u32;
            b.mac_narrow(x, y32);
            let (s, o) = want.0.overflowing_add(x as u128 * y as u128);
            want = (s, want.1 + o as u64);
        }
        assert_eq!((a.low(), a.top as u64), want);
        // b against its own u128 model.
        let mut m = (u128::MAX, 0u64);
        for i in 0..1000u64 {
            let x = u64::MAX - i * 0x1234_5678_9abc;
            let (s, o) = m.0.overflowing_add(x as u128 * (u32::MAX - i as u32) as u128);
            m = (s, m.1 + o as u64);
        }
        assert_eq!((b.low(), b.top as u64), m);
        assert_eq!(b.carry(), (m.0 >> 64) | (m.1 as u128) << 64);
    }

    #[test]
    fn split_sums_of_the_largest_products_count_their_carries() {
        let mut a = Acc96::ZERO;
        let mut want = 0u128;
        for i in 0..5000u32 {
            let (x, y) = (u32::MAX - i, u32::MAX - i * 7);
            a.mac(x, y);
            want += x as u128 * y as u128;
        }
        assert_eq!(a.value(), want);
        assert!(a.c > 4000, "most products carried out of the low word");
    }
}
