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

    /// `log2` of the polynomials per block of a row pass over `batch`
    /// (`lazy::row_polys_log`: rows of several polynomials share their
    /// twiddles); `0` for a column pass.
    pub fn log_polys(&self, log_n: u32, batch: usize) -> u32 {
        if self.shape.strided { 0 } else { lazy::row_polys_log(self.shape, log_n, batch) }
    }

    /// Blocks that cover them: `⌈subs / S⌉` (a row pass: `lazy::row_blocks`,
    /// the same count whenever its polynomials per block divide the batch).
    pub fn blocks(&self, log_n: u32, batch: usize) -> u32 {
        if self.shape.strided {
            self.subs(log_n, batch).div_ceil(1 << self.shape.log_s)
        } else {
            lazy::row_blocks(self.shape, log_n, self.log_polys(log_n, batch), batch)
        }
    }

    /// Execution steps (block barriers + 1) of one block on `W` words
    /// (a staged row end included: `lazy::staged_last_end`).
    pub fn steps<W>(&self) -> u32 {
        lazy::exec_steps(self.shape, self.kernel.mode, std::mem::size_of::<W>())
    }

    /// Dynamic shared memory of one block, bytes.
    pub fn smem_bytes<W>(&self) -> u32 {
        let w = std::mem::size_of::<W>();
        lazy::pass_smem_words(self.shape, self.kernel.mode, w) * w as u32
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
    /// The product row pass of a polymul (the second operand's forward row
    /// steps, the first's, the pointwise product and the inverse row steps
    /// in one kernel).
    pub product: LazyPass,
    /// The row passes compute their twiddles past the first step from two
    /// small tables per direction (`lazy::computed_row_pairs`) instead of
    /// reading the thread-ordered region: the tables then depend on
    /// `log_n` only (the same for every radix and shape). Decided at plan
    /// creation ([`LazySchedule::with_computed_rows`]).
    pub computed_rows: bool,
}

impl LazySchedule {
    /// The schedule for `2^log_n` words of `W` at radix `2^log_r` (`None`:
    /// the default of `lazy::log_radix`); `None` where no lazy kernel covers
    /// `log_n` (below 2^3 or above 2^21) or the radix is not 8 or 16.
    pub fn new<W: Coeff>(log_n: u32, log_r: Option<u32>) -> Option<Self> {
        let w = std::mem::size_of::<W>();
        // The wide one-pass rows exist at radix 16 only.
        let one_pass_max = lazy::one_pass_max(w, log_r.unwrap_or(4));
        Self::with_split::<W>(log_n, log_r, lazy::split(log_n, one_pass_max)?, false)
    }

    /// The latency schedule of `2^log_n` words (`lazy::latency_split`: two
    /// passes of `lazy::Shape::latency` blocks, two sub-transforms each), for
    /// launches of so few polynomials that full tiles would leave SMs idle;
    /// `None` outside N = 2^10 to 2^16.
    /// `log_r`: the passes' radix (`None`: `lazy::LATENCY_LOG_R`), one of
    /// `names::LATENCY_LOG_RADIX`.
    pub fn latency<W: Coeff>(log_n: u32, log_r: Option<u32>) -> Option<Self> {
        let log_r = log_r.unwrap_or(lazy::LATENCY_LOG_R);
        Self::with_split::<W>(log_n, Some(log_r), lazy::latency_split(log_n)?, true)
    }

    fn with_split<W: Coeff>(
        log_n: u32,
        log_r: Option<u32>,
        (l1, l2): (u32, u32),
        latency: bool,
    ) -> Option<Self> {
        let w = std::mem::size_of::<W>();
        let radix_of = |l: u32, strided: bool, mode: u8| {
            log_r.map_or_else(|| lazy::log_radix(w, l, strided, mode), |r| r.min(l))
        };
        let radices: &[u32] = if latency {
            &polymul_kernels::names::LATENCY_LOG_RADIX
        } else {
            &polymul_kernels::names::LAZY_LOG_RADIX
        };
        if log_r.is_some_and(|r| !radices.contains(&r)) {
            return None;
        }
        let pass = |mode: u8, strided: bool, l: u32| {
            let kernel = LazyKernel {
                mode,
                strided,
                l,
                log_r: radix_of(l, strided, mode),
                latency,
                computed: false,
                tensor: false,
            };
            LazyPass { kernel, shape: kernel.shape(w) }
        };
        // The forward and inverse row passes share one radix (and so one
        // layout of the thread-ordered twiddle region); the product pass may
        // have its own, with its own tables then (`product_tables`).
        let row = |mode: u8| {
            let lr = radix_of(l2, false, lazy::FORWARD);
            let kernel = LazyKernel {
                mode,
                strided: false,
                l: l2,
                log_r: lr,
                latency,
                computed: false,
                tensor: false,
            };
            LazyPass { kernel, shape: kernel.shape(w) }
        };
        let (mut forward, mut inverse) = (Vec::new(), Vec::new());
        if l1 > 0 {
            forward.push(pass(lazy::FORWARD, true, l1));
        }
        forward.push(row(lazy::FORWARD));
        inverse.push(row(lazy::INVERSE));
        if l1 > 0 {
            inverse.push(pass(lazy::INVERSE, true, l1));
        }
        let product = pass(lazy::PRODUCT, false, l2);
        Some(Self {
            log_n,
            log_r: radix_of(l2, false, lazy::FORWARD),
            forward,
            inverse,
            product,
            computed_rows: false,
        })
    }

    /// This schedule with the row twiddles computed (`want`) or read from
    /// the thread-ordered region (how [`LazySchedule::new`] and
    /// [`LazySchedule::latency`] make it), for `W` words. The computed ones
    /// are kernels of their own (`LazyKernel::computed`), compiled only for
    /// the full-tile row passes of `lazy::has_computed_rows`: a schedule
    /// with a row pass outside them (a latency schedule, a radix other than
    /// the default, N outside 2^10..2^17 or so) keeps its tables.
    pub fn with_computed_rows<W: Coeff>(mut self, want: bool) -> Self {
        let w = std::mem::size_of::<W>();
        let has = |p: &LazyPass| {
            let k = p.kernel;
            !k.strided && !k.latency && lazy::has_computed_rows(w, k.mode, k.l, k.log_r)
        };
        let rows = [self.forward.last(), self.inverse.first(), Some(&self.product)];
        let computed = want && rows.iter().all(|p| p.is_some_and(has));
        for p in self.forward.iter_mut().chain(self.inverse.iter_mut()).chain([&mut self.product]) {
            p.kernel.computed = computed && !p.kernel.strided;
        }
        self.computed_rows = computed;
        self
    }

    /// The passes of one direction.
    pub fn passes(&self, inverse: bool) -> &[LazyPass] {
        if inverse { &self.inverse } else { &self.forward }
    }

    /// The most dynamic shared memory one of its pass kernels needs, bytes
    /// (the product pass's, where it keeps `b` in a second tile:
    /// `lazy::held_in_tile`).
    pub fn max_smem_bytes<W>(&self) -> u32 {
        self.forward
            .iter()
            .chain(&self.inverse)
            .chain([&self.product])
            .map(|p| p.smem_bytes::<W>())
            .max()
            .unwrap_or(0)
    }
}

/// The forward and the inverse table of one modulus.
pub(crate) type TablePair<W> = (Vec<ShoupPair<W>>, Vec<ShoupPair<W>>);

impl LazySchedule {
    /// The row pass (the same shape in both directions).
    pub fn row_shape(&self) -> Shape {
        self.forward[self.forward.len() - 1].shape
    }

    /// Pairs of one direction's table per tower.
    pub fn table_pairs(&self) -> usize {
        if self.computed_rows {
            lazy::computed_table_pairs(self.log_n)
        } else {
            lazy::table_pairs(self.row_shape(), self.log_n)
        }
    }

    /// Whether the product pass's radix differs from the row passes', so
    /// that it needs tables of its own ([`product_tables`]); never with
    /// computed row twiddles (their tables fit every shape).
    pub fn product_has_own_tables(&self) -> bool {
        !self.computed_rows && self.product.shape != self.row_shape()
    }

    /// Whether `other`'s tables ([`tables`], [`product_tables`]) are this
    /// schedule's: the same row-pass steps (the thread-ordered region
    /// follows them; the sub-transforms per block do not matter), for the
    /// transforms and for the product pass.
    pub fn same_tables(&self, other: &LazySchedule) -> bool {
        let steps = |s: Shape| (s.l, s.log_r);
        self.log_n == other.log_n
            && self.computed_rows == other.computed_rows
            && (self.computed_rows
                || (steps(self.row_shape()) == steps(other.row_shape())
                    && steps(self.product.shape) == steps(other.product.shape)))
    }

    /// Whether this schedule's polymul tables ([`product_tables`]) are
    /// `other`'s transform tables ([`tables`]): the same row-region steps.
    pub fn product_reads_tables_of(&self, other: &LazySchedule) -> bool {
        let steps = |s: Shape| (s.l, s.log_r);
        self.log_n == other.log_n
            && !self.computed_rows
            && !other.computed_rows
            && steps(self.product.shape) == steps(other.row_shape())
    }

    /// Pairs of one direction's product table per tower.
    pub fn product_table_pairs(&self) -> usize {
        if self.computed_rows {
            lazy::computed_table_pairs(self.log_n)
        } else {
            lazy::table_pairs(self.product.shape, self.log_n)
        }
    }
}

/// The forward and inverse tables of one modulus for `sched`: the plain
/// `N + 1` pairs — `Ψ_br[i]` / `Ψ⁻¹_br[i]` with their Shoup companions, the
/// inverse table holding `N⁻¹` in pair 0 and `Ψ⁻¹_br[1] · N⁻¹` in pair `N`
/// — then the thread-ordered copy of the row pass's later-step twiddles
/// (`lazy::row_twiddle_index`), or for a schedule with
/// [`LazySchedule::computed_rows`] the two small tables they are computed
/// from ([`with_computed_rows`]).
pub(crate) fn tables<W: Coeff>(p: &NttParams<W>, sched: &LazySchedule) -> Result<TablePair<W>> {
    let (fwd, inv) = plain_tables(p)?;
    if sched.computed_rows {
        return Ok((
            with_computed_rows(fwd, p.psi(), p.q(), sched.log_n)?,
            with_computed_rows(inv, p.psi_inv(), p.q(), sched.log_n)?,
        ));
    }
    let shape = sched.row_shape();
    Ok((with_row_region(fwd, shape, sched.log_n), with_row_region(inv, shape, sched.log_n)))
}

/// The tables of a polymul: [`tables`], or where the product pass has a
/// radix of its own, the plain pairs with the product pass's region (the
/// column passes read only the plain pairs, so a polymul runs every pass
/// on these).
pub(crate) fn product_tables<W: Coeff>(p: &NttParams<W>, sched: &LazySchedule) -> Result<TablePair<W>> {
    if !sched.product_has_own_tables() {
        return tables(p, sched);
    }
    let (fwd, inv) = plain_tables(p)?;
    let shape = sched.product.shape;
    Ok((with_row_region(fwd, shape, sched.log_n), with_row_region(inv, shape, sched.log_n)))
}

/// Appends the computed row twiddles' tables (`lazy::computed_row_pairs`)
/// to a plain table whose pair `i` is `root^e` (`e` = `i` bit-reversed,
/// `lazy::twiddle_exponent`; `root` = ψ or ψ⁻¹): the low table `root^e`
/// for `e < 2^m` as Shoup pairs, then the high table `root^(2^m · e)` for
/// `e < 2^(log_n − m)` as `PairFactor`s (`m = lazy::row_lo_log`). The row
/// pass's twiddle of exponent `e` is then `pair_times(lo[e mod 2^m],
/// hi[e >> m])` (`lazy::computed_row_index`), the plain pair bit for bit.
fn with_computed_rows<W: Coeff>(
    mut t: Vec<ShoupPair<W>>,
    root: W,
    q: W,
    log_n: u32,
) -> Result<Vec<ShoupPair<W>>> {
    use crate::params::arith::{mul, pow};
    use polymul_kernels::arith::harvey::PairFactor;
    let (q64, m) = (q.as_u64(), lazy::row_lo_log(log_n));
    let refused = |w: u64| Error::CoefficientOutOfRange { what: "twiddle", index: 0, value: w, q: q64 };
    let mut w = 1u64;
    for _ in 0..1u64 << m {
        t.push(ShoupPair::new(W::from_u64(w), q).ok_or(refused(w))?);
        w = mul(w, root.as_u64(), q64);
    }
    let step = pow(root.as_u64(), 1 << m, q64);
    let mut w = 1u64;
    for _ in 0..1u64 << (log_n - m) {
        let f = PairFactor::new(W::from_u64(w), q).ok_or(refused(w))?;
        t.extend(f.to_pairs());
        w = mul(w, step, q64);
    }
    debug_assert_eq!(t.len(), lazy::computed_table_pairs(log_n));
    Ok(t)
}

/// Appends the thread-ordered region of a row pass of `shape` to a plain table.
fn with_row_region<W: Coeff>(mut t: Vec<ShoupPair<W>>, shape: Shape, log_n: u32) -> Vec<ShoupPair<W>> {
    let l1 = log_n - shape.l;
    let total = lazy::table_pairs(shape, log_n);
    let plain = t.len();
    t.resize(total, ShoupPair::default());
    for j in 1..shape.steps() {
        let (g, k) = shape.step(j);
        for rr in 0..1u32 << l1 {
            for d in 0..k {
                for b in 0..1u32 << d {
                    for i in 0..1u32 << g {
                        let at = lazy::row_twiddle_index(shape, log_n, g, k, rr, (1 << d) - 1 + b, i);
                        let from = ((((1u32 << l1) + rr) << (g + d)) + (i << d) + b) as usize;
                        debug_assert!(at >= plain && at < total && from < plain);
                        t[at] = t[from];
                    }
                }
            }
        }
    }
    t
}

/// The plain `N + 1` pairs of each direction.
fn plain_tables<W: Coeff>(p: &NttParams<W>) -> Result<TablePair<W>> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_u32_product_pass_needs_twice_its_tile_and_more_than_turing_has() {
        // `u32`: `b` waits in a second tile (lazy::held_in_tile), so the
        // product pass is the plan's largest, past Turing's 64 KiB, which
        // the engine checks against the GPU's limit.
        let s = LazySchedule::new::<u32>(16, None).unwrap();
        let row = s.product.shape.smem_words(4) * 4;
        assert_eq!(s.product.smem_bytes::<u32>(), 2 * row);
        assert_eq!(s.max_smem_bytes::<u32>(), 2 * row);
        assert!(s.max_smem_bytes::<u32>() > 64 * 1024);
        // `u64` keeps `b` in registers: every pass one tile.
        let s = LazySchedule::new::<u64>(16, None).unwrap();
        assert_eq!(s.product.smem_bytes::<u64>(), s.product.shape.smem_words(8) * 8);
        assert!(s.max_smem_bytes::<u64>() <= 48 * 1024);
    }

    #[test]
    fn the_u64_product_pass_has_its_own_radix_and_tables() {
        let s = LazySchedule::new::<u64>(16, None).unwrap();
        assert_eq!((s.row_shape().log_r, s.product.shape.log_r), (3, 4));
        assert!(s.product_has_own_tables());
        assert_ne!(s.product_table_pairs(), s.table_pairs());
        let p = NttParams::<u64>::with_prime_bits(1 << 16, 62).unwrap();
        let ((f, i), (pf, pi)) = (tables(&p, &s).unwrap(), product_tables(&p, &s).unwrap());
        // The plain pairs are shared; the regions follow each pass's steps.
        assert_eq!(f[..(1 << 16) + 1], pf[..(1 << 16) + 1]);
        assert_eq!(i[..(1 << 16) + 1], pi[..(1 << 16) + 1]);
        assert_eq!((pf.len(), pi.len()), (s.product_table_pairs(), s.product_table_pairs()));
        // A forced radix, and the u32 plans, keep one radix and one table.
        assert!(!LazySchedule::new::<u64>(16, Some(3)).unwrap().product_has_own_tables());
        assert!(!LazySchedule::new::<u32>(16, None).unwrap().product_has_own_tables());
    }

    #[test]
    fn computed_row_tables_replace_the_region_and_fit_every_shape() {
        // u64 N = 2^16: the row passes (radix 8) and the product pass
        // (radix 16) share one computed table; the small tables replace
        // the regions (~63 k and ~61 k pairs per direction) with 768 pairs.
        let s = LazySchedule::new::<u64>(16, None).unwrap();
        let c = s.clone().with_computed_rows::<u64>(true);
        assert!(c.computed_rows && !s.computed_rows);
        assert!(!c.product_has_own_tables());
        assert_eq!(c.table_pairs(), (1 << 16) + 1 + 768);
        assert_eq!(c.product_table_pairs(), c.table_pairs());
        assert!(s.table_pairs() - c.table_pairs() > 60_000);
        // The row passes run the computed kernels, the column passes not.
        assert!(c.product.kernel.computed && c.forward[1].kernel.computed && c.inverse[0].kernel.computed);
        assert!(!c.forward[0].kernel.computed && !c.inverse[1].kernel.computed);
        assert!(!s.clone().with_computed_rows::<u64>(false).product.kernel.computed);
        // A row radix without computed kernels (radix 16 rows of 2^8 `u64`
        // points) and the latency schedule keep their tables.
        let other = LazySchedule::new::<u64>(16, Some(4)).unwrap().with_computed_rows::<u64>(true);
        assert!(!other.computed_rows && !other.product.kernel.computed);
        let ls = LazySchedule::latency::<u64>(16, None).unwrap().with_computed_rows::<u64>(true);
        assert!(!ls.computed_rows && !c.same_tables(&ls));
        // N = 2^16 computes on both words (the only size with computed
        // kernels); a one-pass N = 2^10 (no such kernel) keeps its tables.
        assert!(LazySchedule::new::<u32>(16, None).unwrap().with_computed_rows::<u32>(true).computed_rows);
        assert!(LazySchedule::new::<u64>(16, None).unwrap().with_computed_rows::<u64>(true).computed_rows);
        assert!(!LazySchedule::new::<u32>(10, None).unwrap().with_computed_rows::<u32>(true).computed_rows);
        assert!(!LazySchedule::new::<u64>(10, None).unwrap().with_computed_rows::<u64>(true).computed_rows);
        assert!(!c.same_tables(&s) && !s.same_tables(&c));
        let p = NttParams::<u64>::with_prime_bits(1 << 16, 62).unwrap();
        let ((f, i), (pf, pi)) = (tables(&p, &c).unwrap(), product_tables(&p, &c).unwrap());
        assert_eq!((f.len(), i.len()), (c.table_pairs(), c.table_pairs()));
        assert_eq!((&f, &i), (&pf, &pi));
        // The plain pairs are the region tables' plain pairs.
        let (rf, ri) = tables(&p, &s).unwrap();
        assert_eq!(f[..(1 << 16) + 1], rf[..(1 << 16) + 1]);
        assert_eq!(i[..(1 << 16) + 1], ri[..(1 << 16) + 1]);
    }
}
