//! The ciphertext tensor product's rules and steps ([`crate::Tensor`]
//! has the layout): the shape rule of its operands, the CPU backend's
//! steps, and the composition through products that any plan can run
//! ([`crate::tensor_by_products`]). Generic over the plan's operations
//! (closures), so this module uses no plan trait.

use crate::layout::Layout;
use crate::{Coeff, Error, Result};

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
/// [`crate::CpuRnsPlan`]): copies of `a` and `b` transformed forward by
/// `forward` (which checks their words), the tensor kernel's own per-position code
/// ([`polymul_kernels::tensor::tensor_one`]) tower by tower, `out`
/// transformed back by `inverse`. `n` and `moduli` are the plan's.
pub(crate) fn cpu_steps<W: Coeff>(
    (n, moduli): (usize, &[u64]),
    (a, b, out): (&[W], &[W], &mut [W]),
    forward: impl Fn(&mut [W]) -> Result<()>,
    inverse: impl FnOnce(&mut [W]) -> Result<()>,
) -> Result<()> {
    use polymul_kernels::arith::{Barrett4, ModMul};
    use rayon::prelude::*;
    let shape = TensorShape::check(n, moduli.len(), a.len(), b.len(), out.len())?;
    let reds = moduli
        .iter()
        .map(|&q| Barrett4::<W>::new(W::from_u64(q)).map_err(|e| Error::from_modulus(q, W::BITS, e)))
        .collect::<Result<Vec<_>>>()?;
    // `forward` checks the words (whole-buffer indices, as `check_reduced`
    // gives): only the operand's name changes.
    let named = |what| {
        move |e| match e {
            Error::CoefficientOutOfRange { index, value, q, .. } => {
                Error::CoefficientOutOfRange { what, index, value, q }
            }
            e => e,
        }
    };
    let (mut fa, mut fb) = (a.to_vec(), b.to_vec());
    forward(&mut fa).map_err(named("a"))?;
    forward(&mut fb).map_err(named("b"))?;
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
    inverse(out)
}

/// The tensor product through a plan's host product `polymul` (`n` and
/// `moduli` the plan's): one call on `4m` pairs per tower (`a0·b0`,
/// `a0·b1`, `a1·b0`, `a1·b1` for every ciphertext), then the cross terms
/// summed modulo each tower's prime ([`crate::tensor_by_products`]).
pub(crate) fn by_products<W: Coeff>(
    (n, moduli): (usize, &[u64]),
    (a, b): (&[W], &[W]),
    polymul: impl FnOnce(&[W], &[W]) -> Result<Vec<W>>,
) -> Result<Vec<W>> {
    let towers = moduli.len();
    let shape = TensorShape::check(n, towers, a.len(), b.len(), a.len() / 2 * 3)?;
    check_reduced("a", a, moduli)?;
    check_reduced("b", b, moduli)?;
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
    let p = polymul(&x, &y)?;
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
