//! The ciphertext tensor product: the [`Tensor`] trait, the shape rule of
//! its operands and the composition any plan can run
//! ([`tensor_by_products`]).

use crate::layout::Layout;
use crate::{Coeff, Error, Plan, Product, Result, Transform};

/// The ciphertext tensor product: from ciphertexts `a = (a0, a1)` and
/// `b = (b0, b1)`, the three polynomials `(a0·b0, a0·b1 + a1·b0, a1·b1)`,
/// each a negacyclic product modulo every tower's prime. It is the core of
/// BFV, BGV and CKKS multiplication (before relinearisation).
///
/// **Layout.** A ciphertext is two polynomials in the plan's tower-major
/// layout ([`crate::Layout`]): per tower, ciphertext `j`'s `c0` is
/// polynomial `2j` and its `c1` polynomial `2j + 1`. So `m` ciphertexts
/// are a buffer of `2m` polynomials per tower (`towers · 2m · N` words),
/// and their products a buffer of `3m` per tower, ciphertext `j`'s three
/// at `3j`, `3j + 1`, `3j + 2`. One ciphertext on an RNS plan of `L` towers
/// is `[t0: c0, c1][t1: c0, c1]…`, `2 · L · N` words.
///
/// **Where it runs.** [`Tensor::tensor_into`] on host slices and device
/// views, and the host convenience [`crate::Plan::tensor`]:
///
/// - GPU plans ([`crate::NttPlan`], [`crate::RnsPlan`]): both inputs'
///   forward transforms (one call each over their `2m` polynomials per
///   tower), one launch of the tensor kernel (`polymul_kernels::tensor`:
///   four products and a sum per position, every tower), and the inverse of
///   the `3m` outputs in one call. `tensor_into` on device views copies the
///   inputs into the plan's scratch first; `tensor_in_place` (inherent on the
///   GPU plans) transforms them where they are.
/// - CPU plans ([`crate::CpuPlan`], [`crate::CpuRnsPlan`]): the same steps
///   with the CPU backend's transforms, and the tensor kernel's own code
///   looped on the host.
/// - Any other plan ([`crate::DgtPlan`], [`crate::MultiPlan`]):
///   [`crate::Plan::tensor`]'s default, one [`crate::Plan::polymul`] call on
///   `4m` pairs per tower and a modular sum ([`tensor_by_products`]).
///
/// On buffers `B`: host slices `[W]` or device views [`crate::DeviceView`].
///
/// ```no_run
/// use polymul::prelude::*;
/// use polymul::{Gpu, rns::{RnsBasis, RnsPlan}};
/// let gpu = Gpu::new()?;
/// let basis = RnsBasis::<u32>::new(1 << 16, 30, 32)?;
/// let plan = RnsPlan::new(&gpu, &basis)?;
/// let (n, l) = (basis.n(), basis.len());
/// let (a, b) = (plan.zeros(2)?, plan.zeros(2)?); // one ciphertext each
/// let mut out = plan.zeros(3)?;                  // its three products
/// plan.tensor_into(&*a, &*b, &mut *out)?;
/// assert_eq!(out.len(), 3 * l * n);
/// # Ok::<(), polymul::Error>(())
/// ```
pub trait Tensor<W: Coeff, B: ?Sized>: Product<W, B> {
    /// `out ← a ⊗ b`: for every ciphertext `j` and tower, `out`'s
    /// polynomials `3j, 3j + 1, 3j + 2` become `a0·b0`, `a0·b1 + a1·b0` and
    /// `a1·b1` (negacyclic products modulo the tower's prime). `a` and `b`
    /// are left intact.
    ///
    /// # Errors
    /// [`Error::NotAMultipleOfN`] (a length that is not whole polynomials
    /// of every tower), [`Error::NotCiphertexts`] (an odd number per
    /// tower), [`Error::LengthMismatch`] (`b` not `a`'s length, `out` not
    /// 3/2 of it), [`Error::CoefficientOutOfRange`] for unreduced host
    /// words, and the plan's device errors.
    fn tensor_into(&self, a: &B, b: &B, out: &mut B) -> Result<()>;
}

/// The checked shape of one tensor-product call: `m` ciphertexts per
/// tower.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct TensorShape {
    /// The inputs' layout: `2m` polynomials per tower.
    pub(crate) input: Layout,
    /// Ciphertexts per tower.
    pub(crate) m: usize,
}

impl TensorShape {
    /// Checks the lengths of `a`, `b` and `out` (words) against `towers`
    /// towers of `n`-word polynomials: `a` whole polynomials, an even number
    /// per tower; `b` of `a`'s length; `out` of 3/2 of it.
    pub(crate) fn check(n: usize, towers: usize, a: usize, b: usize, out: usize) -> Result<Self> {
        let per = n * towers;
        if a == 0 || !a.is_multiple_of(per) {
            return Err(Error::NotAMultipleOfN { what: "a", got: a, n: per });
        }
        let polys = a / per;
        if !polys.is_multiple_of(2) {
            return Err(Error::NotCiphertexts { what: "a", polys });
        }
        if b != a {
            return Err(Error::LengthMismatch { what: "b", got: b, expected: a });
        }
        let expected = a / 2 * 3;
        if out != expected {
            return Err(Error::LengthMismatch { what: "out", got: out, expected });
        }
        Ok(TensorShape { input: Layout { n, towers, batch: polys }, m: polys / 2 })
    }

    /// The output's words.
    pub(crate) fn out_words(&self) -> usize {
        self.input.words() / 2 * 3
    }
}

/// Every word of tower-major `words` (`towers` towers of equal length)
/// below its tower's modulus, else [`Error::CoefficientOutOfRange`] indexed
/// into the whole buffer.
fn check_reduced<W: Coeff>(what: &'static str, words: &[W], moduli: &[u64]) -> Result<()> {
    let per = words.len() / moduli.len().max(1);
    for (t, (tower, &q)) in words.chunks_exact(per.max(1)).zip(moduli).enumerate() {
        if let Some(j) = tower.iter().position(|v| v.as_u64() >= q) {
            let (index, value) = (t * per + j, tower[j].as_u64());
            return Err(Error::CoefficientOutOfRange { what, index, value, q });
        }
    }
    Ok(())
}

/// The CPU backend's tensor product ([`crate::CpuPlan`],
/// [`crate::CpuRnsPlan`]): copies of `a` and `b` transformed forward, the
/// tensor kernel's own per-position code
/// ([`polymul_kernels::tensor::tensor_one`]) tower by tower, the inverse of
/// `out`.
pub(crate) fn cpu_tensor<W: Coeff, P: Transform<W, [W]>>(
    plan: &P,
    a: &[W],
    b: &[W],
    out: &mut [W],
) -> Result<()> {
    use polymul_kernels::arith::{Barrett4, ModMul};
    use rayon::prelude::*;
    let moduli = plan.moduli();
    let n = plan.n();
    let shape = TensorShape::check(n, moduli.len(), a.len(), b.len(), out.len())?;
    check_reduced("a", a, &moduli)?;
    check_reduced("b", b, &moduli)?;
    let reds = moduli
        .iter()
        .map(|&q| Barrett4::<W>::new(W::from_u64(q)).map_err(|e| Error::from_modulus(q, W::BITS, e)))
        .collect::<Result<Vec<_>>>()?;
    let (mut fa, mut fb) = (a.to_vec(), b.to_vec());
    plan.forward(&mut fa)?;
    plan.forward(&mut fb)?;
    let (per_in, per_out) = (2 * shape.m * n, 3 * shape.m * n);
    out.par_chunks_mut(per_out).zip(fa.par_chunks(per_in).zip(fb.par_chunks(per_in))).zip(&reds).for_each(
        |((o, (x, y)), red)| {
            for j in 0..shape.m {
                let (i2, i3) = (2 * j * n, 3 * j * n);
                for i in 0..n {
                    let c = polymul_kernels::tensor::tensor_one(
                        [x[i2 + i], x[i2 + n + i]],
                        [y[i2 + i], y[i2 + n + i]],
                        red,
                    );
                    (o[i3 + i], o[i3 + n + i], o[i3 + 2 * n + i]) = (c[0], c[1], c[2]);
                }
            }
        },
    );
    plan.inverse(out)
}

/// The tensor product of any plan through its host product: one
/// [`Plan::polymul`] call on `4m` pairs per tower (`a0·b0`, `a0·b1`,
/// `a1·b0`, `a1·b1` for every ciphertext), then the cross terms summed
/// modulo each tower's prime. What [`Plan::tensor`] does by default.
///
/// # Errors
/// As [`Tensor::tensor_into`].
pub fn tensor_by_products<W: Coeff, P: Plan<W> + ?Sized>(plan: &P, a: &[W], b: &[W]) -> Result<Vec<W>> {
    let moduli = plan.moduli();
    let (n, towers) = (plan.n(), moduli.len());
    let shape = TensorShape::check(n, towers, a.len(), b.len(), a.len() / 2 * 3)?;
    check_reduced("a", a, &moduli)?;
    check_reduced("b", b, &moduli)?;
    let (m, per_in) = (shape.m, 2 * shape.m * n);
    // Per tower: the four pairs of ciphertext j at polynomials 4j .. 4j + 3.
    let (mut x, mut y) = (Vec::with_capacity(2 * a.len()), Vec::with_capacity(2 * a.len()));
    for t in 0..towers {
        let (ta, tb) = (&a[t * per_in..(t + 1) * per_in], &b[t * per_in..(t + 1) * per_in]);
        for j in 0..m {
            let poly = |v: &[W], c: usize| v[(2 * j + c) * n..(2 * j + c + 1) * n].to_vec();
            for (ca, cb) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                x.extend(poly(ta, ca));
                y.extend(poly(tb, cb));
            }
        }
    }
    let p = plan.polymul(&x, &y)?;
    let mut out = Vec::with_capacity(shape.out_words());
    for (t, &q) in moduli.iter().enumerate() {
        let tower = &p[t * 4 * m * n..(t + 1) * 4 * m * n];
        for j in 0..m {
            let at = |k: usize| &tower[(4 * j + k) * n..(4 * j + k + 1) * n];
            out.extend_from_slice(at(0));
            out.extend(
                at(1).iter().zip(at(2)).map(|(&u, &v)| {
                    W::from_u64(((u.as_u64() as u128 + v.as_u64() as u128) % q as u128) as u64)
                }),
            );
            out.extend_from_slice(at(3));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_are_checked_in_order() {
        let s = TensorShape::check(4, 2, 16, 16, 24).unwrap();
        assert_eq!((s.m, s.input.batch, s.out_words()), (1, 2, 24));
        assert!(matches!(TensorShape::check(4, 2, 0, 0, 0), Err(Error::NotAMultipleOfN { what: "a", .. })));
        assert!(matches!(TensorShape::check(4, 2, 12, 12, 18), Err(Error::NotAMultipleOfN { .. })));
        assert!(matches!(TensorShape::check(4, 2, 8, 8, 12), Err(Error::NotCiphertexts { polys: 1, .. })));
        assert!(matches!(TensorShape::check(4, 2, 16, 8, 24), Err(Error::LengthMismatch { what: "b", .. })));
        assert!(matches!(
            TensorShape::check(4, 2, 16, 16, 16),
            Err(Error::LengthMismatch { what: "out", expected: 24, .. })
        ));
    }
}
