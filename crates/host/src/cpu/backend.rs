//! The CPU backend: plans that compute what [`crate::expert::emulation::forward`],
//! [`crate::expert::emulation::inverse`] and [`crate::expert::emulation::polymul`] compute, bit for bit, at the
//! speed of a vectorised CPU NTT, with batches and RNS towers spread over
//! all cores.
//!
//! [`CpuPlan`]'s documentation says how it works and when to use it.

use super::ntt::{forward as ref_forward, inverse as ref_inverse, polymul as ref_polymul};
use crate::params::NttParams;
use crate::rns::RnsBasis;
use crate::{Coeff, Error, Result};
use polymul_concrete_ntt::{prime32, prime64};
use rayon::prelude::*;
use std::any::TypeId;

/// Words per rayon task at least: polynomials smaller than this are grouped
/// so that scheduling costs stay small against the work.
pub const GRAIN: usize = 1 << 14;

/// Calls on fewer words than this (`batch · N`, every tower) run on the
/// calling thread, without rayon: handing a short call to the pool costs
/// the wake-up of its threads (tens of µs, issue 19:
/// docs/results/2026-11-26-cpu-scaling), more than a second core gains.
///
/// 2 · [`GRAIN`] = 2^15: below it rayon cannot form two tasks of at least
/// `GRAIN` words, so the pool only adds its hand-off. Measured for issue 32
/// (a throwaway example timing one `CpuPlan::polymul_in_place` call on the
/// batch against the same polynomials one call each, medians of ≥ 21
/// alternated runs, release build) on the 2-vCPU build machine while other
/// builds kept its load average near 8, so the pool's second thread never
/// helped there: serial / rayon 0.97–1.06 from 2^9 to 2^14 words (u32 and
/// u64, N = 2^6 to 2^12), and rayon up to 3× slower from 2^15 words on (its
/// second thread competing with the other builds). On two idle cores (issue
/// 19, the H100 host) batches of 2^16 words gained 1.1–1.9×, so 2^15 is
/// conservative: it never takes a second task away from an idle core.
pub(crate) const SERIAL_WORDS: usize = 2 * GRAIN;

/// `s` as a slice of `T` when `W` is `T` (the same type, so the cast is the
/// identity).
fn cast_mut<W: Coeff, T: 'static>(s: &mut [W]) -> Option<&mut [T]> {
    // SAFETY: `W` and `T` are the same type (equal `TypeId`s, checked before the
    // closure runs), so the pointer, length and lifetime of `s` describe the same
    // valid, uniquely borrowed `[T]`.
    (TypeId::of::<W>() == TypeId::of::<T>())
        .then(|| unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast::<T>(), s.len()) })
}

/// Whether a word of `data` is `≥ q`: a branch-free pass, compiled for AVX2
/// where the CPU has it (the check would otherwise cost up to a fifth of a
/// small `u32` transform).
fn any_unreduced<W: Coeff>(data: &[W], q: W) -> bool {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: `any_unreduced_avx2`'s `# Safety`: the CPU has AVX2
        // (`is_x86_feature_detected!` just above).
        return unsafe { any_unreduced_avx2(data, q) };
    }
    any_unreduced_plain(data, q)
}

/// [`any_unreduced_plain`] compiled for AVX2.
///
/// # Safety
/// The CPU supports AVX2 (the body is compiled with
/// `target_feature(enable = "avx2")`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn any_unreduced_avx2<W: Coeff>(data: &[W], q: W) -> bool {
    any_unreduced_plain(data, q)
}

#[inline(always)]
fn any_unreduced_plain<W: Coeff>(data: &[W], q: W) -> bool {
    data.iter().fold(false, |bad, &v| bad | (v >= q))
}

/// [`cast_mut`] for a shared slice.
fn cast<W: Coeff, T: 'static>(s: &[W]) -> Option<&[T]> {
    // SAFETY: as in `cast_mut`, shared: `W` and `T` are the same type (equal
    // `TypeId`s), so `s`'s pointer, length and lifetime describe the same valid
    // `[T]`.
    (TypeId::of::<W>() == TypeId::of::<T>())
        .then(|| unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<T>(), s.len()) })
}

/// The vectorised transforms of one modulus (`concrete-ntt` on polymul's ψ).
#[derive(Clone, Debug)]
enum Fast {
    U32(prime32::Plan),
    U64(prime64::Plan),
}

impl Fast {
    /// The plan for `p`, if `concrete-ntt` takes its N and q.
    fn new<W: Coeff>(p: &NttParams<W>) -> Option<Self> {
        let (n, q, psi) = (p.n(), p.q().as_u64(), p.psi().as_u64());
        if TypeId::of::<W>() == TypeId::of::<u32>() {
            prime32::Plan::try_new_with_root(n, q as u32, psi as u32).map(Fast::U32)
        } else if TypeId::of::<W>() == TypeId::of::<u64>() {
            prime64::Plan::try_new_with_root(n, q, psi).map(Fast::U64)
        } else {
            None
        }
    }

    /// Forward transform of one polynomial; false if `x`'s word is not the plan's.
    fn fwd<W: Coeff>(&self, x: &mut [W]) -> bool {
        match self {
            Fast::U32(p) => cast_mut::<W, u32>(x).map(|x| p.fwd(x)).is_some(),
            Fast::U64(p) => cast_mut::<W, u64>(x).map(|x| p.fwd(x)).is_some(),
        }
    }

    /// Scaled inverse transform of one polynomial.
    fn inv<W: Coeff>(&self, x: &mut [W]) -> bool {
        match self {
            Fast::U32(p) => cast_mut::<W, u32>(x).map(|x| (p.inv(x), p.normalize(x))).is_some(),
            Fast::U64(p) => cast_mut::<W, u64>(x).map(|x| (p.inv(x), p.normalize(x))).is_some(),
        }
    }

    /// `a ← a ⊗ b` for one polynomial (`b`'s transform goes to a buffer
    /// of this thread, reused from call to call: no allocation, no page
    /// faults); false if the words are not the plan's.
    fn mul<W: Coeff>(&self, a: &mut [W], b: &[W]) -> bool {
        match self {
            Fast::U32(p) => match (cast_mut::<W, u32>(a), cast::<W, u32>(b)) {
                (Some(a), Some(b)) => SCRATCH32.with_borrow_mut(|t| {
                    t.clear();
                    t.extend_from_slice(b);
                    p.fwd(a);
                    p.fwd(t);
                    p.mul_assign_normalize(a, t);
                    p.inv(a);
                    true
                }),
                _ => false,
            },
            Fast::U64(p) => match (cast_mut::<W, u64>(a), cast::<W, u64>(b)) {
                (Some(a), Some(b)) => SCRATCH64.with_borrow_mut(|t| {
                    t.clear();
                    t.extend_from_slice(b);
                    p.fwd(a);
                    p.fwd(t);
                    p.mul_assign_normalize(a, t);
                    p.inv(a);
                    true
                }),
                _ => false,
            },
        }
    }
}

thread_local! {
    /// The second operand's transform, per thread (grows to the largest N used).
    static SCRATCH32: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
    static SCRATCH64: std::cell::RefCell<Vec<u64>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Negacyclic NTTs and products modulo one prime on the CPU, bit for bit
/// those of [`crate::expert::emulation::forward`], [`crate::expert::emulation::inverse`] and [`crate::expert::emulation::polymul`]
/// (the GPU plans' results), vectorised and spread over all cores.
///
/// Data is a batch of polynomials stored back to back (any positive
/// multiple of N words, each below q).
///
/// # How
///
/// The transforms are `concrete-ntt`'s (Zama; AVX2 chosen at run time,
/// scalar elsewhere; its AVX-512 paths need its `nightly` feature, which
/// polymul leaves off), vendored in `third_party/concrete-ntt` with one
/// addition: a plan built on a *given* negacyclic root
/// (`Plan::try_new_with_root`). `concrete-ntt`'s forward NTT is a merged
/// Cooley–Tukey transform with bit-reversed output, exactly polymul's
/// convention (output `i` is `a(ψ^(2·br(i)+1))`); only its root differs (it
/// finds its own). Built on polymul's ψ, its forward output *is* polymul's,
/// word for word, with no permutation. Its inverse leaves the factor `N`,
/// which `normalize` removes (polymul's ½-scaled inverse includes `1/N`).
/// A product is forward, forward, `mul_assign_normalize` (the pointwise
/// product and `1/N` in one pass), inverse: the negacyclic product modulo q,
/// which is unique, so equal to the reference's.
///
/// `concrete-ntt` needs N ≥ 16 (`u64`) or N ≥ 32 (`u32`); below that the
/// backend runs the reference itself ([`crate::expert::emulation::forward`] …), which at such
/// sizes costs well under a microsecond. Every modulus polymul accepts
/// (primes `q ≡ 1 mod 2N` up to 62 bits on `u64`, 30 bits on `u32`) is one
/// `concrete-ntt` takes (it accepts any prime below 2^64 and 2^32 with a
/// primitive 2N-th root, and N up to any power of two); all of them take its
/// Shoup-multiplication paths (`q < 2^62` on `u64`, `q < 2^30` on `u32`),
/// not the slower generic ones it keeps for `q ≥ 2^63` / `2^31`.
///
/// Batches and towers: one polynomial per task on rayon's global pool (small
/// polynomials grouped so a task holds at least [`GRAIN`] words); a single
/// polynomial, and a call on fewer than `SERIAL_WORDS` words in all (see its
/// docs for the measurement), runs on the calling thread.
///
/// # When to use it
///
/// Use the CPU backend when there is no GPU, when the data lives on the host
/// and the work per call is small (one polynomial of N ≤ 2^12 costs a few
/// microseconds here, less than a GPU round trip's copies and launch), or to
/// check GPU results quickly. Use a GPU plan ([`crate::NttPlan`],
/// [`crate::rns::RnsPlan`]) for large batches, large N and data that stays
/// on the device: a GPU is one to three orders of magnitude faster per
/// polynomial there (docs/results). [`crate::planner::Multiplier::auto`]
/// picks the GPU when one is present and this backend otherwise.
///
/// # Example
///
/// ```
/// use polymul::prelude::*;
/// use polymul::{NttParams, cpu::{self, CpuPlan}};
/// let params = NttParams::<u64>::with_prime_bits(1 << 12, 62)?;
/// let plan = CpuPlan::new(params.clone())?;
/// let a: Vec<u64> = (0..4 << 12).map(|i| i % params.q()).collect(); // 4 polynomials
/// let c = plan.polymul(&a, &a)?;
/// for (x, y) in a.chunks(1 << 12).zip(c.chunks(1 << 12)) {
///     assert_eq!(y, cpu::negacyclic_naive(x, x, params.q())?); // the schoolbook product
/// }
/// let mut x = a.clone();
/// plan.forward(&mut x)?;
/// plan.inverse(&mut x)?;
/// assert_eq!(x, a);
/// # Ok::<(), polymul::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CpuPlan<W: Coeff> {
    params: NttParams<W>,
    fast: Option<Fast>,
}

impl<W: Coeff> CpuPlan<W> {
    /// A plan for validated parameters (N, q; see [`NttParams::new`]).
    ///
    /// # Errors
    /// None today: every [`NttParams`] is usable (N below `concrete-ntt`'s
    /// minimum runs the reference). The `Result` leaves room for checks.
    pub fn new(params: NttParams<W>) -> Result<Self> {
        let fast = Fast::new(&params);
        Ok(Self { params, fast })
    }

    /// [`CpuPlan::new`] for `N = n` and the prime `q`, validated by
    /// [`NttParams::new`] (typed errors: N, q not prime or not
    /// `≡ 1 mod 2N`, q too wide for `W`).
    pub fn try_new(n: usize, q: u64) -> Result<Self> {
        Self::new(NttParams::new(n, q)?)
    }

    /// The parameters.
    pub fn params(&self) -> &NttParams<W> {
        &self.params
    }

    /// Whether the vectorised transforms run (false: N below
    /// `concrete-ntt`'s minimum, 16 on `u64` and 32 on `u32`, where the
    /// reference runs).
    pub fn is_vectorised(&self) -> bool {
        self.fast.is_some()
    }

    /// Validates a batch: a positive multiple of N words, each below q.
    /// Returns the number of polynomials.
    fn check(&self, what: &'static str, data: &[W]) -> Result<usize> {
        let n = self.params.n();
        if data.is_empty() || !data.len().is_multiple_of(n) {
            return Err(Error::NotAMultipleOfN { what, got: data.len(), n });
        }
        // One branch-free pass (vectorised); the reference check finds the
        // first bad word for the error.
        if any_unreduced(data, self.params.q()) {
            self.params.check_batch(what, data)?;
        }
        Ok(data.len() / n)
    }

    /// Polynomials per rayon task.
    fn grain(&self) -> usize {
        (GRAIN / self.params.n()).max(1)
    }

    fn forward_one(&self, x: &mut [W]) -> Result<()> {
        match &self.fast {
            Some(f) if f.fwd(x) => Ok(()),
            _ => ref_forward(&self.params, x),
        }
    }

    fn inverse_one(&self, x: &mut [W]) -> Result<()> {
        match &self.fast {
            Some(f) if f.inv(x) => Ok(()),
            _ => ref_inverse(&self.params, x),
        }
    }

    /// `a ← a ⊗ b`, one polynomial.
    fn mul_one(&self, a: &mut [W], b: &[W]) -> Result<()> {
        if let Some(f) = &self.fast
            && f.mul(a, b)
        {
            return Ok(());
        }
        let c = ref_polymul(&self.params, a, b)?;
        a.copy_from_slice(&c);
        Ok(())
    }

    /// Runs `op` on every polynomial of `data`, in parallel when there are
    /// several.
    fn each(&self, data: &mut [W], op: impl Fn(&Self, &mut [W]) -> Result<()> + Sync) -> Result<()> {
        let n = self.params.n();
        if data.len() < SERIAL_WORDS || data.len() == n {
            return data.chunks_mut(n).try_for_each(|x| op(self, x));
        }
        data.par_chunks_mut(n).with_min_len(self.grain()).try_for_each(|x| op(self, x))
    }

    /// `acc ← acc ⊙ other`, one polynomial (both reduced).
    fn pointwise_one(&self, acc: &mut [W], other: &[W]) -> Result<()> {
        let q = self.params.q().as_u64();
        for (x, y) in acc.iter_mut().zip(other) {
            *x = W::from_u64(crate::params::arith::mul(x.as_u64(), y.as_u64(), q));
        }
        Ok(())
    }

    /// `a ← a ⊗ b` (negacyclic, each pair of polynomials); `b` unchanged.
    /// Errors as the trait methods' ([`crate::Transform`]).
    fn mul_all(
        &self,
        a: &mut [W],
        b: &[W],
        op: impl Fn(&Self, &mut [W], &[W]) -> Result<()> + Sync,
    ) -> Result<()> {
        self.check("a", a)?;
        self.check("b", b)?;
        if a.len() != b.len() {
            return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
        }
        let n = self.params.n();
        if a.len() < SERIAL_WORDS || a.len() == n {
            return a.chunks_mut(n).zip(b.chunks(n)).try_for_each(|(x, y)| op(self, x, y));
        }
        a.par_chunks_mut(n)
            .zip(b.par_chunks(n))
            .with_min_len(self.grain())
            .try_for_each(|(x, y)| op(self, x, y))
    }
}

impl<W: Coeff> crate::Plan<W> for CpuPlan<W> {
    fn n(&self) -> usize {
        self.params.n()
    }

    fn moduli(&self) -> Vec<u64> {
        vec![self.params.q().as_u64()]
    }

    fn backend(&self) -> crate::Backend {
        crate::Backend::Cpu { threads: rayon::current_num_threads() }
    }

    /// `a ⊗ b` for each pair of polynomials, as [`crate::expert::emulation::polymul`].
    fn polymul(&self, a: &[W], b: &[W]) -> Result<Vec<W>> {
        let mut c = a.to_vec();
        self.mul_all(&mut c, b, Self::mul_one)?;
        Ok(c)
    }

    fn tensor(&self, a: &[W], b: &[W]) -> Result<Vec<W>> {
        let mut out = vec![W::default(); a.len() / 2 * 3];
        crate::Tensor::<W, [W]>::tensor_into(self, a, b, &mut out)?;
        Ok(out)
    }
}

/// Polynomials of a batch run in parallel on rayon's pool. On an error
/// (`NotAMultipleOfN`, `CoefficientOutOfRange`, `LengthMismatch`) the
/// outputs are left unchanged. `polymul_in_place` leaves `b` unchanged.
impl<W: Coeff> crate::Product<W, [W]> for CpuPlan<W> {
    fn polymul_into(&self, a: &[W], b: &[W], out: &mut [W]) -> Result<()> {
        if out.len() != a.len() {
            return Err(Error::LengthMismatch { what: "out", got: out.len(), expected: a.len() });
        }
        self.check("a", a)?;
        self.check("b", b)?;
        if b.len() != a.len() {
            return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
        }
        out.copy_from_slice(a);
        self.mul_all(out, b, Self::mul_one)
    }

    fn polymul_in_place(&self, a: &mut [W], b: &mut [W]) -> Result<()> {
        self.mul_all(a, b, Self::mul_one)
    }
}

/// The CPU backend's transforms and the tensor kernel's own code
/// (`crate::ciphertext::cpu_steps`).
impl<W: Coeff> crate::Tensor<W, [W]> for CpuPlan<W> {
    fn tensor_into(&self, a: &[W], b: &[W], out: &mut [W]) -> Result<()> {
        let moduli = crate::Plan::moduli(self);
        crate::ciphertext::cpu_steps(
            (self.params.n(), &moduli),
            (a, b, out),
            |d| crate::Transform::<W, [W]>::forward(self, d),
            |d| crate::Transform::<W, [W]>::inverse(self, d),
        )
    }
}

/// The merged-CT NTT (normal order in, bit-reversed out: output `i` is
/// `a(ψ^(2·br(i)+1))`), as [`crate::expert::emulation::forward`] and [`crate::expert::emulation::inverse`].
impl<W: Coeff> crate::Transform<W, [W]> for CpuPlan<W> {
    fn forward(&self, data: &mut [W]) -> Result<()> {
        self.check("data", data)?;
        self.each(data, Self::forward_one)
    }

    fn inverse(&self, data: &mut [W]) -> Result<()> {
        self.check("data", data)?;
        self.each(data, Self::inverse_one)
    }

    fn pointwise_mul(&self, acc: &mut [W], other: &[W]) -> Result<()> {
        self.mul_all(acc, other, Self::pointwise_one)
    }
}

/// [`CpuPlan`] for every tower of an [`RnsBasis`]: tower-major data
/// (tower `i`'s `batch · N` words, then tower `i + 1`'s), every polynomial
/// of every tower one task on rayon's pool. Equal bit for bit to
/// [`crate::expert::emulation::rns_polymul`] and to [`crate::rns::RnsPlan`].
///
/// ```
/// use polymul::prelude::*;
/// use polymul::{cpu::CpuRnsPlan, expert::emulation, rns::RnsBasis};
/// let basis = RnsBasis::<u64>::new(1 << 10, 62, 3)?;
/// let plan = CpuRnsPlan::new(&basis)?;
/// let a = vec![5u64; 3 * 2 << 10]; // 3 towers × 2 polynomials
/// assert_eq!(plan.polymul(&a, &a)?, emulation::rns_polymul(&basis, &a, &a)?);
/// # Ok::<(), polymul::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct CpuRnsPlan<W: Coeff> {
    towers: Vec<CpuPlan<W>>,
}

impl<W: Coeff> CpuRnsPlan<W> {
    /// A plan per tower of `basis`.
    ///
    /// # Errors
    /// As [`CpuPlan::new`] (none today).
    pub fn new(basis: &RnsBasis<W>) -> Result<Self> {
        let towers = basis.towers().iter().cloned().map(CpuPlan::new).collect::<Result<_>>()?;
        Ok(Self { towers })
    }

    /// The towers' plans, in basis order.
    pub fn towers(&self) -> &[CpuPlan<W>] {
        &self.towers
    }

    fn n_words(&self) -> usize {
        self.towers.first().map_or(0, |t| t.params.n())
    }

    /// Validates tower-major data and returns the words per tower.
    fn check(&self, what: &'static str, data: &[W]) -> Result<usize> {
        let whole = self.towers.len() * self.n_words();
        if data.is_empty() || whole == 0 || !data.len().is_multiple_of(whole) {
            return Err(Error::NotAMultipleOfN { what, got: data.len(), n: whole });
        }
        let len = data.len() / self.towers.len();
        for (i, t) in self.towers.iter().enumerate() {
            t.check(what, &data[i * len..(i + 1) * len]).map_err(|e| crate::rns::in_whole(e, i * len))?;
        }
        Ok(len)
    }

    /// Runs `op` with each polynomial's tower plan, in parallel.
    fn each(
        &self,
        data: &mut [W],
        len: usize,
        op: impl Fn(&CpuPlan<W>, &mut [W]) -> Result<()> + Sync,
    ) -> Result<()> {
        let n = self.n_words();
        if data.len() < SERIAL_WORDS {
            return data.chunks_mut(n).enumerate().try_for_each(|(k, x)| op(&self.towers[k * n / len], x));
        }
        let grain = self.towers.first().map_or(1, CpuPlan::grain);
        data.par_chunks_mut(n)
            .enumerate()
            .with_min_len(grain)
            .try_for_each(|(k, x)| op(&self.towers[k * n / len], x))
    }

    /// `a ← op(a, b)` for each pair of polynomials of every tower (with
    /// that tower's plan), after the checks.
    fn mul_all(
        &self,
        a: &mut [W],
        b: &[W],
        op: impl Fn(&CpuPlan<W>, &mut [W], &[W]) -> Result<()> + Sync,
    ) -> Result<()> {
        let len = self.check("a", a)?;
        self.check("b", b)?;
        if a.len() != b.len() {
            return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
        }
        let n = self.n_words();
        if a.len() < SERIAL_WORDS {
            return a
                .chunks_mut(n)
                .zip(b.chunks(n))
                .enumerate()
                .try_for_each(|(k, (x, y))| op(&self.towers[k * n / len], x, y));
        }
        let grain = self.towers.first().map_or(1, CpuPlan::grain);
        a.par_chunks_mut(n)
            .zip(b.par_chunks(n))
            .enumerate()
            .with_min_len(grain)
            .try_for_each(|(k, (x, y))| op(&self.towers[k * n / len], x, y))
    }
}

impl<W: Coeff> crate::Plan<W> for CpuRnsPlan<W> {
    fn n(&self) -> usize {
        self.n_words()
    }

    fn moduli(&self) -> Vec<u64> {
        self.towers.iter().map(|t| t.params.q().as_u64()).collect()
    }

    fn backend(&self) -> crate::Backend {
        crate::Backend::Cpu { threads: rayon::current_num_threads() }
    }

    /// `a ⊗ b` in every tower (tower-major), as [`crate::expert::emulation::rns_polymul`].
    fn polymul(&self, a: &[W], b: &[W]) -> Result<Vec<W>> {
        let mut c = a.to_vec();
        self.mul_all(&mut c, b, CpuPlan::mul_one)?;
        Ok(c)
    }

    fn tensor(&self, a: &[W], b: &[W]) -> Result<Vec<W>> {
        let mut out = vec![W::default(); a.len() / 2 * 3];
        crate::Tensor::<W, [W]>::tensor_into(self, a, b, &mut out)?;
        Ok(out)
    }
}

/// As [`CpuPlan`]'s, per tower. Errors: [`Error::NotAMultipleOfN`] unless
/// the length is a positive multiple of `towers · N`;
/// [`Error::CoefficientOutOfRange`] (index into the whole buffer) for a
/// word not below its tower's prime; [`Error::LengthMismatch`].
impl<W: Coeff> crate::Product<W, [W]> for CpuRnsPlan<W> {
    fn polymul_into(&self, a: &[W], b: &[W], out: &mut [W]) -> Result<()> {
        if out.len() != a.len() {
            return Err(Error::LengthMismatch { what: "out", got: out.len(), expected: a.len() });
        }
        self.check("a", a)?;
        self.check("b", b)?;
        if b.len() != a.len() {
            return Err(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() });
        }
        out.copy_from_slice(a);
        self.mul_all(out, b, CpuPlan::mul_one)
    }

    fn polymul_in_place(&self, a: &mut [W], b: &mut [W]) -> Result<()> {
        self.mul_all(a, b, CpuPlan::mul_one)
    }
}

/// As [`CpuPlan`]'s, every tower.
impl<W: Coeff> crate::Tensor<W, [W]> for CpuRnsPlan<W> {
    fn tensor_into(&self, a: &[W], b: &[W], out: &mut [W]) -> Result<()> {
        let moduli = crate::Plan::moduli(self);
        crate::ciphertext::cpu_steps(
            (self.n_words(), &moduli),
            (a, b, out),
            |d| crate::Transform::<W, [W]>::forward(self, d),
            |d| crate::Transform::<W, [W]>::inverse(self, d),
        )
    }
}

impl<W: Coeff> crate::Transform<W, [W]> for CpuRnsPlan<W> {
    fn forward(&self, data: &mut [W]) -> Result<()> {
        let len = self.check("data", data)?;
        self.each(data, len, CpuPlan::forward_one)
    }

    fn inverse(&self, data: &mut [W]) -> Result<()> {
        let len = self.check("data", data)?;
        self.each(data, len, CpuPlan::inverse_one)
    }

    fn pointwise_mul(&self, acc: &mut [W], other: &[W]) -> Result<()> {
        self.mul_all(acc, other, CpuPlan::pointwise_one)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Plan, Product, Transform};

    /// Batches just below `SERIAL_WORDS` (the calling thread) and just above
    /// (rayon) give each polynomial's own product and transform, for one
    /// modulus and for towers.
    #[test]
    fn serial_and_parallel_batches_agree_with_single_calls() {
        let n = 1usize << 6;
        let plan = CpuPlan::new(NttParams::<u32>::with_prime_bits(n, 30).unwrap()).unwrap();
        let q = plan.params().q();
        for batch in [SERIAL_WORDS / n - 1, SERIAL_WORDS / n + 1] {
            let mut rng = crate::random::SplitMix64::new(batch as u64);
            let (a, b) = (rng.coeffs(batch * n, q), rng.coeffs(batch * n, q));
            let c = plan.polymul(&a, &b).unwrap();
            let mut f = a.clone();
            plan.forward(&mut f[..]).unwrap();
            for i in 0..batch {
                let r = i * n..(i + 1) * n;
                assert_eq!(
                    c[r.clone()],
                    plan.polymul(&a[r.clone()], &b[r.clone()]).unwrap()[..],
                    "{batch}: {i}"
                );
                let mut one = a[r.clone()].to_vec();
                plan.forward(&mut one[..]).unwrap();
                assert_eq!(f[r], one[..], "{batch}: {i}");
            }
        }
        let basis = RnsBasis::<u32>::new(n, 30, 2).unwrap();
        let rns = CpuRnsPlan::new(&basis).unwrap();
        for batch in [SERIAL_WORDS / (2 * n) - 1, SERIAL_WORDS / (2 * n) + 1] {
            let mut a = Vec::new();
            let mut b = Vec::new();
            for (t, tw) in basis.towers().iter().enumerate() {
                let mut rng = crate::random::SplitMix64::new(t as u64);
                a.extend(rng.coeffs(batch * n, tw.q()));
                b.extend(rng.coeffs(batch * n, tw.q()));
            }
            let mut c = a.clone();
            rns.polymul_into(&a, &b, &mut c).unwrap();
            for (t, tower) in rns.towers().iter().enumerate() {
                let r = t * batch * n..(t + 1) * batch * n;
                assert_eq!(
                    c[r.clone()],
                    tower.polymul(&a[r.clone()], &b[r.clone()]).unwrap()[..],
                    "tower {t}"
                );
            }
        }
    }
}
