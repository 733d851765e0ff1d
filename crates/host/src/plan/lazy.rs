//! The lazy NTT's schedule and tables, computed once at plan creation:
//! which pass kernels run in which order with which grid, and the
//! twiddle tables of Shoup pairs (`polymul_kernels::ntt::lazy`).

use crate::params::NttParams;
use crate::{Coeff, Error, Result};
use polymul_kernels::arith::harvey::ShoupPair;
use polymul_kernels::names::LazyKernel;
use polymul_kernels::ntt::lazy::{self, Shape};

/// One pass of a lazy transform: its kernel and compile-time shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LazyPass {
    pub kernel: LazyKernel,
    pub shape: Shape,
}

impl LazyPass {
    /// Sub-transforms (rows or columns) of a batch of `batch` polynomials.
    pub fn subs(&self, log_n: u32, batch: usize) -> u32 {
        (batch << (log_n - self.shape.l)) as u32
    }

    /// Blocks that cover them: `⌈subs / S⌉`.
    pub fn blocks(&self, log_n: u32, batch: usize) -> u32 {
        self.subs(log_n, batch).div_ceil(1 << self.shape.log_s)
    }

    /// Dynamic shared memory of one block, bytes.
    pub fn smem_bytes<W>(&self) -> u32 {
        let w = std::mem::size_of::<W>();
        self.shape.smem_words(w) * w as u32
    }
}

/// The passes of the forward and the inverse transform of one size.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LazySchedule {
    pub log_n: u32,
    /// `log2` of the register radix.
    pub log_r: u32,
    /// Forward passes in the order they run (column pass first).
    pub forward: Vec<LazyPass>,
    /// Inverse passes in the order they run (row pass first).
    pub inverse: Vec<LazyPass>,
}

impl LazySchedule {
    /// The schedule for `2^log_n` words of `W` at radix `2^log_r` (`None`:
    /// the default of `lazy::log_radix`); `None` where no lazy kernel covers
    /// `log_n` (below 2^3 or above 2^21) or the radix is not 8 or 16.
    pub fn new<W: Coeff>(log_n: u32, log_r: Option<u32>) -> Option<Self> {
        let w = std::mem::size_of::<W>();
        let one_pass_max = lazy::tile_words(w).trailing_zeros();
        let (l1, l2) = lazy::split(log_n, one_pass_max)?;
        let radix_of = |l: u32| log_r.unwrap_or_else(|| lazy::log_radix(w, l));
        if log_r.is_some_and(|r| !polymul_kernels::names::LAZY_LOG_RADIX.contains(&r)) {
            return None;
        }
        let pass = |inverse: bool, strided: bool, l: u32| {
            let lr = radix_of(l);
            LazyPass {
                kernel: LazyKernel { inverse, strided, l, log_r: lr },
                shape: Shape::new(l, lr, strided, w),
            }
        };
        let (mut forward, mut inverse) = (Vec::new(), Vec::new());
        if l1 > 0 {
            forward.push(pass(false, true, l1));
        }
        forward.push(pass(false, false, l2));
        inverse.push(pass(true, false, l2));
        if l1 > 0 {
            inverse.push(pass(true, true, l1));
        }
        Some(Self { log_n, log_r: radix_of(l2), forward, inverse })
    }

    /// The passes of one direction.
    pub fn passes(&self, inverse: bool) -> &[LazyPass] {
        if inverse { &self.inverse } else { &self.forward }
    }
}

/// The forward and inverse tables of one modulus, `N + 1` pairs each:
/// `Ψ_br[i]` / `Ψ⁻¹_br[i]` with their Shoup companions; the inverse table
/// holds `N⁻¹` in pair 0 and `Ψ⁻¹_br[1] · N⁻¹` in pair `N`.
pub(crate) fn tables<W: Coeff>(p: &NttParams<W>) -> Result<(Vec<ShoupPair<W>>, Vec<ShoupPair<W>>)> {
    let q = p.q();
    let pair = |w: W| {
        ShoupPair::new(w, q).ok_or(Error::CoefficientOutOfRange {
            what: "twiddle",
            index: 0,
            value: w.as_u64(),
            q: q.as_u64(),
        })
    };
    let mut fwd = p.twiddles().iter().map(|&w| pair(w)).collect::<Result<Vec<_>>>()?;
    fwd.push(ShoupPair::default());
    let mut inv = p.inv_twiddles().iter().map(|&w| pair(w)).collect::<Result<Vec<_>>>()?;
    let ninv = p.n_inv();
    inv[0] = pair(ninv)?;
    let w1 = if p.n() > 1 { p.inv_twiddles()[1] } else { W::one() };
    let w1n = crate::params::arith::mul_mod(w1.as_u64(), ninv.as_u64(), q.as_u64())?;
    inv.push(pair(W::from_u64(w1n))?);
    Ok((fwd, inv))
}
