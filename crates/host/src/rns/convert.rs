//! Big integers in and out of the RNS at memory speed: decomposition of
//! limbs into residues and CRT reconstruction, on the CPU (the kernels'
//! bodies, `polymul_kernels::rns`, run block by block on every core) and on
//! the GPU (the same bodies as kernels, tables uploaded once per plan).
//!
//! # Limb layout
//!
//! A coefficient below `Q` is `L = ⌈log2 Q / 64⌉` ([`RnsBasis::limbs`])
//! little-endian `u64` limbs; a buffer holds `batch · N` coefficients
//! coefficient-major: coefficient `c` (polynomial `c / N`, index `c % N`)
//! at `limbs[c·L .. c·L + L]` — a row-major `(batch, N, L)` array of
//! `uint64`. Residues are tower-major ([`RnsBasis::to_residues`]).
//!
//! The CPU path ([`RnsBasis::decompose`], [`RnsBasis::reconstruct`]) and
//! the GPU path ([`super::RnsPlan::decompose`],
//! [`super::RnsPlan::reconstruct`]) run the same code and agree bit for bit;
//! [`RnsBasis::to_residues`] and [`RnsBasis::from_residues`] stay the
//! independent num-bigint references.

use super::RnsBasis;
use crate::gpu::kernel::TypedKernel;
use crate::gpu::launch::{Queue, buf, check, raise_max_dynamic_smem, refused, view};
use crate::gpu::{DeviceVec, DeviceView, Gpu};
use crate::{Coeff, Error, Result};
use num_bigint::BigUint;
use polymul_kernels::args::{ArgsError, Buf};
use polymul_kernels::rns::crt::{self, CrtArgs};
use polymul_kernels::rns::crt_cols::{self, CrtColsArgs, CrtColsVariant};
use polymul_kernels::rns::decompose::{self, DecomposeArgs};
use polymul_kernels::rns::{block_coeffs, padded_stride};
use polymul_kernels::smem::HostShared;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU32, Ordering};

/// The conversion kernels as a refusal names them.
const DEC: &str = "the RNS decomposition";
const CRT: &str = "the CRT reconstruction";

/// Shared memory one conversion block may use: the default per-block limit
/// (no opt-in), so that the same block size runs on every GPU.
pub(crate) const MAX_SHARED: u32 = 48 * 1024;

/// Shared memory a column-CRT block may use where no block fits
/// [`MAX_SHARED`] (bases of many narrow towers): the most every supported
/// GPU grants a block on opt-in (sm_70: 96 KiB; `DeviceConvert::new`
/// raises the kernels' limit).
pub(crate) const MAX_SHARED_OPT_IN: u32 = 96 * 1024;

/// The fewest limbs for which the CRT runs the column kernel
/// (`rns_crt_cols_<word>`, each coefficient's limbs split over
/// `⌈L / 4⌉` threads: `crt_cols::COL_LIMBS`, 8 when this was measured)
/// instead of the one-thread-per-coefficient kernel (`rns_crt_<word>`).
/// Measured on an H100 (2026-11-27,
/// docs/results/2026-11-27-nvidia-h100-speed3, `bench --only rns`, "CRT
/// kernels forced one by one"): at L = 20 (log2 Q ≈ 1240) the column kernel
/// took 42.1 µs against 50.9 (`u64`) and 58.8 against 80.8 (`u32`); at L = 65
/// 295 against 938 and 457 against 1627. Below 20 limbs nothing was
/// measured, so the one-thread kernel stays there. Both kernels give the
/// same words for every input, so moving it changes speed only.
pub(crate) const COLUMNS_MIN_LIMBS: usize = 20;

/// Which CRT kernel a basis's conversions run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CrtKernel {
    /// `rns_crt_<word>`: one thread per coefficient (`polymul_kernels::rns::crt`).
    Rows,
    /// `rns_crt_cols_<word>` (`polymul_kernels::rns::crt_cols`) with this
    /// many coefficients per block and this arithmetic.
    Columns(u32, CrtColsVariant),
}

/// Which CRT kernel a reconstruction runs: the basis's choice or a forced
/// one, for benchmarks and checks ([`super::RnsPlan::reconstruct_with`];
/// expert: every choice gives the same limbs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum CrtChoice {
    /// What [`super::RnsPlan::reconstruct`] runs: the column kernel from 20
    /// limbs (split 32-bit digits, [`CrtColsVariant::DEFAULT`]: the faster
    /// of the two for both words on an H100), the one-thread kernel below.
    #[default]
    Auto,
    /// The one-thread-per-coefficient kernel (`rns_crt_<word>`).
    Rows,
    /// The column kernel with this arithmetic (`rns_crt_cols_<word>`,
    /// `rns_crt_cols_<variant>_<word>`).
    Columns(CrtColsVariant),
}

/// The conversion tables of a basis (host copies; a plan uploads them).
#[derive(Debug)]
pub(crate) struct Tables {
    /// Limbs per coefficient.
    pub(crate) l: usize,
    /// Towers.
    pub(crate) k: usize,
    /// Coefficients per block ([`block_coeffs`]), 0 when `Q` is too large
    /// for the conversions (then the tables are empty).
    pub(crate) block: u32,
    /// `polymul_kernels::rns::decompose::table`.
    pub(crate) dec: Vec<u64>,
    /// `polymul_kernels::rns::crt::table`.
    pub(crate) crt: Vec<u64>,
    /// The CRT kernel the conversions run by default ([`COLUMNS_MIN_LIMBS`]).
    pub(crate) crt_kernel: CrtKernel,
    /// Coefficients per block of the column kernel
    /// (`crt_cols::block_coeffs`), 0 where its blocks do not fit (then
    /// `cols` is empty).
    pub(crate) cols_block: u32,
    /// `polymul_kernels::rns::crt_cols::table` (empty where `cols_block`
    /// is 0).
    pub(crate) cols: Vec<u64>,
    /// `Q`'s limbs.
    pub(crate) q_limbs: Vec<u64>,
    /// Bits of `Q`.
    pub(crate) q_bits: u64,
}

impl Tables {
    /// The tables of the towers `primes` (product `modulus`, `q_hat[i] =
    /// Q/q_i`, `inv[i] = (Q/q_i)^{-1} mod q_i`) for `W`-word residues.
    pub(crate) fn new<W: Coeff>(primes: &[u64], modulus: &BigUint, q_hat: &[BigUint], inv: &[u64]) -> Self {
        let l = modulus.to_u64_digits().len().max(1);
        Self::with_kernel::<W>(primes, modulus, q_hat, inv, l >= COLUMNS_MIN_LIMBS)
    }

    /// [`Tables::new`] with the default CRT kernel chosen by `columns` (the
    /// column kernel where its blocks fit, else the one-thread kernel). The
    /// column kernel's table is built wherever its blocks fit, so that
    /// [`CrtChoice`] can force it.
    pub(crate) fn with_kernel<W: Coeff>(
        primes: &[u64],
        modulus: &BigUint,
        q_hat: &[BigUint],
        inv: &[u64],
        columns: bool,
    ) -> Self {
        let k = primes.len();
        let q_limbs = modulus.to_u64_digits();
        let l = q_limbs.len().max(1);
        let block = if k <= crt::MAX_TOWERS && l <= 1 << 12 {
            block_coeffs(l as u32, k as u32, W::BITS / 8, MAX_SHARED)
        } else {
            0
        };
        let (mut dec, mut crt_t, mut cols) = (Vec::new(), Vec::new(), Vec::new());
        let mut crt_kernel = CrtKernel::Rows;
        let mut cols_block = 0;
        if block > 0 {
            dec = vec![0; decompose::table_words(k, l)];
            decompose::table(primes, l, &mut dec);
            let mut qh = vec![0u64; k * l];
            for (row, h) in qh.chunks_exact_mut(l).zip(q_hat) {
                for (d, v) in row.iter_mut().zip(h.to_u64_digits()) {
                    *d = v;
                }
            }
            crt_t = vec![0; crt::table_words(k, l)];
            crt::table(&q_limbs, primes, inv, &qh, &mut crt_t);
            let fit = |max| crt_cols::block_coeffs(l as u32, k as u32, W::BITS / 8, max);
            cols_block = match fit(MAX_SHARED) {
                0 => fit(MAX_SHARED_OPT_IN),
                b => b,
            };
            if cols_block > 0 {
                let wb = (W::BITS / 8) as usize;
                cols = vec![0; crt_cols::table_words(k, l, wb)];
                crt_cols::table(&q_limbs, primes, inv, &qh, wb, &mut cols);
                if columns {
                    // The split 32-bit digits for every word and size.
                    // Measured on an H100 (2026-11-27, `bench --quick --only
                    // rns`, "CRT kernels forced one by one", two runs): `u64`
                    // 42.1 against 50.5 µs at L = 20 and 295 against 379 at
                    // L = 65 (docs/results/2026-11-27-nvidia-h100-speed3);
                    // `u32`, whose towers the column kernel joins in pairs
                    // since then, 47.7–48.6 against 56.0–56.5 at L = 20 and
                    // 358 against 427 at L = 65
                    // (docs/results/2026-11-27-nvidia-h100-crt-rows). Before
                    // the pairs the 192-bit accumulators won for `u32` at
                    // L = 65 (457 against 475).
                    crt_kernel = CrtKernel::Columns(cols_block, CrtColsVariant::DEFAULT);
                }
            }
        }
        Self { l, k, block, dec, crt: crt_t, crt_kernel, cols_block, cols, q_limbs, q_bits: modulus.bits() }
    }

    /// The kernel `choice` runs, or [`Error::ConversionTooLarge`] where it
    /// does not fit (`Q` too large for the conversions, or for the column
    /// kernel's blocks).
    pub(crate) fn kernel(&self, choice: CrtChoice) -> Result<CrtKernel> {
        self.block()?;
        match choice {
            CrtChoice::Auto => Ok(self.crt_kernel),
            CrtChoice::Rows => Ok(CrtKernel::Rows),
            CrtChoice::Columns(v) if self.cols_block > 0 => Ok(CrtKernel::Columns(self.cols_block, v)),
            CrtChoice::Columns(_) => Err(Error::ConversionTooLarge { q_bits: self.q_bits, towers: self.k }),
        }
    }

    /// The decomposition's argument block over `count` coefficients, for
    /// both paths: the CPU's (`RnsBasis::decompose`, host slices, the
    /// table `self.dec`, `log_groups = 0`) and the GPU's
    /// (`DeviceConvert::decompose`, device buffers, the uploaded table,
    /// `GPU_LOG_GROUPS`), built and checked by `DecomposeArgs::new`.
    pub(crate) fn dec_args<W: Coeff>(
        &self,
        limbs: Buf<u64>,
        out: Buf<W>,
        table: Buf<u64>,
        count: usize,
        log_groups: u32,
    ) -> Result<DecomposeArgs<W>> {
        let count = u32::try_from(count).map_err(|_| refused(DEC)(ArgsError::Count))?;
        DecomposeArgs::new(limbs, out, table, (count, self.l as u32, self.k as u32), log_groups)
            .map_err(refused(DEC))
    }

    /// The CRT reconstruction's argument block over `count` coefficients,
    /// for both paths (as [`Tables::dec_args`]), built and checked by
    /// `CrtArgs::new`.
    pub(crate) fn crt_args<W: Coeff>(
        &self,
        residues: Buf<W>,
        limbs: Buf<u64>,
        table: Buf<u64>,
        count: usize,
    ) -> Result<CrtArgs<W>> {
        let count = u32::try_from(count).map_err(|_| refused(CRT)(ArgsError::Count))?;
        CrtArgs::new(residues, limbs, table, (count, self.l as u32, self.k as u32)).map_err(refused(CRT))
    }

    /// The column CRT's argument block over `count` coefficients with `b`
    /// coefficients per block, for both paths (as [`Tables::dec_args`]),
    /// built and checked by `CrtColsArgs::new`.
    pub(crate) fn crt_cols_args<W: Coeff>(
        &self,
        residues: Buf<W>,
        limbs: Buf<u64>,
        table: Buf<u64>,
        count: usize,
        b: u32,
    ) -> Result<CrtColsArgs<W>> {
        let count = u32::try_from(count).map_err(|_| refused(CRT)(ArgsError::Count))?;
        CrtColsArgs::new(residues, limbs, table, (count, self.l as u32, self.k as u32), b)
            .map_err(refused(CRT))
    }

    /// The block size, or the error saying `Q` is too large.
    pub(crate) fn block(&self) -> Result<u32> {
        if self.block == 0 {
            return Err(Error::ConversionTooLarge { q_bits: self.q_bits, towers: self.k });
        }
        Ok(self.block)
    }

    /// Bytes of dynamic shared memory of a CRT block (the decomposition
    /// uses the first `B · padded_stride(L) · 8` of them).
    pub(crate) fn crt_shared<W: Coeff>(&self) -> u32 {
        crt::shared_bytes(self.block, self.l as u32, self.k as u32, W::BITS / 8) as u32
    }

    /// Bytes of dynamic shared memory of a column CRT block of `b`
    /// coefficients.
    pub(crate) fn crt_cols_shared<W: Coeff>(&self, b: u32) -> u32 {
        crt_cols::shared_bytes(b, self.l as u32, self.k as u32, W::BITS / 8) as u32
    }

    /// Bytes of dynamic shared memory of a decomposition block.
    pub(crate) fn dec_shared(&self) -> u32 {
        self.block * padded_stride(self.l as u32) * 8
    }

    /// The index of the first coefficient of `limbs` (whole coefficients)
    /// not below `Q`, with its bit length.
    fn first_not_below_q(&self, limbs: &[u64]) -> Option<(usize, u64)> {
        // Every core (rayon): the check reads all the limbs, 10 MiB per
        // operand at N = 2^16 and log2 Q = 1240.
        let not_below = |x: &[u64]| {
            x.iter().rev().zip(self.q_limbs.iter().rev()).find(|(a, b)| a != b).is_none_or(|(a, b)| a > b)
        };
        let c = limbs.par_chunks_exact(self.l).with_min_len(1 << 10).position_first(not_below)?;
        let x = &limbs[c * self.l..(c + 1) * self.l];
        let top = x.iter().rposition(|&v| v != 0).unwrap_or(0);
        Some((c, top as u64 * 64 + u64::from(64 - x[top].leading_zeros())))
    }
}

/// Raw pointers handed to the CPU path's worker threads.
#[derive(Clone, Copy)]
struct Shared<A>(A);
// SAFETY: `Shared` wraps only the CPU path's `DecomposeArgs` / `CrtArgs`
// (`RnsBasis::decompose` / `RnsBasis::reconstruct` below), whose pointers point
// at the input (`limbs` / `residues`, only read), `out` (written) and the basis's
// tables (only read), all borrowed or owned by that function and outliving
// `for_blocks`'s scoped threads. Block `blk` writes only its own coefficients'
// words of `out` (coefficients `blk · B ..`, by the kernels' indexing) and
// `for_blocks` hands each block to one thread, so no word is written by two
// threads or read by one while another writes it.
unsafe impl<A> Send for Shared<A> {}
// SAFETY: as for `Send`: shared access only reads the block (`Shared::get`), and
// the writes through its pointers are disjoint between threads.
unsafe impl<A> Sync for Shared<A> {}

impl<A> Shared<A> {
    /// The block (a method, so that closures capture the whole wrapper).
    fn get(&self) -> &A {
        &self.0
    }
}

/// Blocks handed out to a worker at a time.
const CHUNK: u32 = 8;

/// Runs `f(block, limb scratch, residue scratch)` for every block in
/// `0..blocks` on every core (scoped threads taking chunks of blocks), each
/// thread with scratch buffers of `limb_words` and `w_words` words.
fn for_blocks<W: Coeff>(
    blocks: u32,
    limb_words: usize,
    w_words: usize,
    f: impl Fn(u32, &mut [u64], &mut [W]) + Sync,
) {
    let threads =
        std::thread::available_parallelism().map_or(1, |n| n.get()).min(blocks.div_ceil(CHUNK) as usize);
    let next = AtomicU32::new(0);
    let work = || {
        let (mut s, mut w) = (vec![0u64; limb_words], vec![W::zero(); w_words]);
        loop {
            let b0 = next.fetch_add(CHUNK, Ordering::Relaxed);
            if b0 >= blocks {
                break;
            }
            for b in b0..(b0 + CHUNK).min(blocks) {
                f(b, &mut s, &mut w);
            }
        }
    };
    if threads <= 1 {
        return work();
    }
    std::thread::scope(|sc| {
        for _ in 1..threads {
            sc.spawn(work);
        }
        work();
    });
}

impl<W: Coeff> RnsBasis<W> {
    /// Limbs per coefficient, `L = ⌈log2 Q / 64⌉`: the last axis of a limb
    /// array.
    pub fn limbs(&self) -> usize {
        self.conv.l
    }

    /// Checks a coefficient-major limb buffer (`what` names it in errors):
    /// a positive multiple of `N · L` words ([`Error::NotAMultipleOfN`],
    /// whose `n` is `N · L`), a batch one launch covers
    /// ([`Error::BatchTooLarge`]), every coefficient below `Q`
    /// ([`Error::BigCoefficientOutOfRange`], indexed by coefficient).
    /// Returns the batch.
    pub fn check_limbs(&self, what: &'static str, limbs: &[u64]) -> Result<usize> {
        let per = self.n() * self.limbs();
        if limbs.is_empty() || !limbs.len().is_multiple_of(per) {
            return Err(Error::NotAMultipleOfN { what, got: limbs.len(), n: per });
        }
        crate::params::check_batch_size(self.n(), limbs.len() / per)?;
        self.check_limbs_any(what, limbs)
    }

    /// [`RnsBasis::check_limbs`] without the launch limit (the split
    /// products, which convert in pieces).
    pub(crate) fn check_limbs_any(&self, what: &'static str, limbs: &[u64]) -> Result<usize> {
        let per = self.n() * self.limbs();
        if limbs.is_empty() || !limbs.len().is_multiple_of(per) {
            return Err(Error::NotAMultipleOfN { what, got: limbs.len(), n: per });
        }
        let batch = limbs.len() / per;
        if let Some((index, bits)) = self.conv.first_not_below_q(limbs) {
            return Err(Error::BigCoefficientOutOfRange { what, index, bits, q_bits: self.conv.q_bits });
        }
        Ok(batch)
    }

    /// Checks tower-major residues (a positive multiple of `towers · N`
    /// words, tower `i`'s below `q_i`); returns the coefficients per tower.
    pub(crate) fn check_residues(&self, what: &'static str, residues: &[W]) -> Result<usize> {
        let (k, n) = (self.len(), self.n());
        if residues.is_empty() || !residues.len().is_multiple_of(k * n) {
            return Err(Error::NotAMultipleOfN { what, got: residues.len(), n: k * n });
        }
        let len = residues.len() / k;
        for (i, t) in self.towers().iter().enumerate() {
            t.check_batch(what, &residues[i * len..(i + 1) * len])
                .map_err(|e| super::in_whole(e, i * len))?;
        }
        Ok(len)
    }

    /// The limbs of big-integer coefficients (every one below `Q`; a
    /// positive multiple of `N` of them): `L` little-endian words each,
    /// coefficient-major.
    ///
    /// # Errors
    /// [`Error::NotAMultipleOfN`], [`Error::BigCoefficientOutOfRange`].
    pub fn to_limbs(&self, coeffs: &[BigUint]) -> Result<Vec<u64>> {
        let n = self.n();
        if coeffs.is_empty() || !coeffs.len().is_multiple_of(n) {
            return Err(Error::NotAMultipleOfN { what: "coeffs", got: coeffs.len(), n });
        }
        let l = self.limbs();
        let mut out = vec![0u64; coeffs.len() * l];
        for (index, (c, row)) in coeffs.iter().zip(out.chunks_exact_mut(l)).enumerate() {
            if c >= self.modulus() {
                let (bits, q_bits) = (c.bits(), self.conv.q_bits);
                return Err(Error::BigCoefficientOutOfRange { what: "coeffs", index, bits, q_bits });
            }
            for (d, v) in row.iter_mut().zip(c.iter_u64_digits()) {
                *d = v;
            }
        }
        Ok(out)
    }

    /// Big integers from limbs ([`RnsBasis::check_limbs`] first).
    pub fn from_limbs(&self, limbs: &[u64]) -> Result<Vec<BigUint>> {
        self.check_limbs("limbs", limbs)?;
        Ok(limbs
            .chunks_exact(self.limbs())
            .map(|x| BigUint::new(x.iter().flat_map(|&v| [v as u32, (v >> 32) as u32]).collect()))
            .collect())
    }

    /// Residues of limb-encoded coefficients (the layout of the module
    /// docs), tower-major as [`RnsBasis::to_residues`] writes them: the
    /// decomposition kernel's code on every core of the CPU, bit for bit
    /// what [`super::RnsPlan::decompose`] computes.
    ///
    /// # Errors
    /// Those of [`RnsBasis::check_limbs`]; [`Error::ConversionTooLarge`]
    /// for a `Q` whose blocks do not fit the kernels' shared memory.
    pub fn decompose(&self, limbs: &[u64]) -> Result<Vec<W>> {
        let count = self.check_limbs("limbs", limbs)? * self.n();
        let t = &*self.conv;
        let b = t.block()?;
        let mut out = vec![W::zero(); t.k * count];
        let args = Shared(t.dec_args(
            Buf::new(limbs.as_ptr(), limbs.len()),
            Buf::new(out.as_mut_ptr(), out.len()),
            Buf::new(t.dec.as_ptr(), t.dec.len()),
            count,
            0,
        )?);
        let words = (b * padded_stride(t.l as u32)) as usize;
        for_blocks::<W>((count as u32).div_ceil(b), words, 0, |blk, s, _| {
            let a = args.get();
            let s = HostShared(s.as_mut_ptr());
            // SAFETY: the `# Safety` of `decompose::load` and
            // `decompose::residues` (polymul-kernels `rns/decompose.rs`, as the
            // kernel's `DecomposeArgs` invariants): `limbs` holds `count · L`
            // words and `out` `K · count` (`RnsBasis::check_limbs` above, `out`
            // sized here; both checked by `DecomposeArgs::new` in
            // `Tables::dec_args`), the table is this basis's (`Tables`, its `dec`); `s`
            // is `for_blocks`'s scratch of `B · padded_stride(L)` words, the
            // block `B = t.block()` (non-zero: checked, a power of two:
            // `block_coeffs`), `blk < ⌈count / B⌉`; `log_groups = 0`, so the
            // threads are `0..B`. The phases run in order, every thread of the
            // first before the second (the barrier).
            unsafe {
                for th in 0..b {
                    decompose::load(a, &s, blk, th, b);
                }
                for th in 0..b {
                    decompose::residues(a, &s, blk, th, b);
                }
            }
        });
        Ok(out)
    }

    /// CRT reconstruction into limbs: the coefficients in `[0, Q)` whose
    /// residues are `residues` (tower-major), `L` limbs each (the layout of
    /// the module docs): the CRT kernel's code on every core of the CPU, bit
    /// for bit what [`super::RnsPlan::reconstruct`] computes.
    ///
    /// # Errors
    /// [`Error::NotAMultipleOfN`] (its `n` is `towers · N`),
    /// [`Error::CoefficientOutOfRange`] (a residue not below its prime,
    /// indexed into the whole buffer), [`Error::ConversionTooLarge`].
    pub fn reconstruct(&self, residues: &[W]) -> Result<Vec<u64>> {
        let count = self.check_residues("residues", residues)?;
        crate::params::check_batch_size(self.n(), count / self.n())?;
        reconstruct_cpu(&self.conv, residues, count, CrtChoice::Auto)
    }
}

/// The CPU path of the CRT ([`RnsBasis::reconstruct`] after its checks):
/// `residues` (`K · count` words, each below its prime) into `count · L`
/// limbs with the kernel `choice` picks ([`Tables::kernel`]).
pub(crate) fn reconstruct_cpu<W: Coeff>(
    t: &Tables,
    residues: &[W],
    count: usize,
    choice: CrtChoice,
) -> Result<Vec<u64>> {
    let b = t.block()?;
    let kernel = t.kernel(choice)?;
    let mut out = vec![0u64; t.l * count];
    let (res, limbs) = (Buf::new(residues.as_ptr(), residues.len()), Buf::new(out.as_mut_ptr(), out.len()));
    if let CrtKernel::Columns(cb, variant) = kernel {
        let args = Shared(t.crt_cols_args(res, limbs, Buf::new(t.cols.as_ptr(), t.cols.len()), count, cb)?);
        let threads = args.get().threads();
        let words = crt_cols::u64_words(cb, t.l as u32) as usize;
        let rows = crt_cols::sum_rows(t.k as u32, W::BITS / 8) as usize;
        for_blocks::<u64>((count as u32).div_ceil(cb), words, rows * cb as usize, |blk, s, w| {
            let a = args.get();
            let (s, w) = (HostShared(s.as_mut_ptr()), HostShared(w.as_mut_ptr()));
            // SAFETY: the `# Safety` of `crt_cols::residues`, `columns`, `carry`
            // and `store` (polymul-kernels `rns/crt_cols.rs`): `residues` of
            // `K · count` words, each below its prime (`RnsBasis::check_residues`
            // in `RnsBasis::reconstruct`, the only caller besides the tests, which
            // pass reduced residues), `limbs` = `out` of `count · L` words (sized
            // here; the extents checked by `CrtColsArgs::new` in
            // `Tables::crt_cols_args`), the table this basis's `cols`
            // (`Tables::with_kernel`); `s` holds `crt_cols::u64_words(B, L)` words
            // and `w` `K' · B` (`crt_cols::sum_rows`; `for_blocks`'s scratch), `blk < ⌈count / B⌉`, the
            // threads are `0..B · G` (`CrtColsArgs::threads`); the phases run in
            // order, every thread of one before the next (the barriers).
            unsafe {
                for th in 0..threads {
                    crt_cols::residues(a, &s, &w, blk, th);
                }
                for th in 0..threads {
                    match variant {
                        CrtColsVariant::Split => {
                            crt_cols::columns::<_, _, _, { crt_cols::SPLIT }>(a, &s, &w, blk, th)
                        }
                        CrtColsVariant::Acc192 => {
                            crt_cols::columns::<_, _, _, { crt_cols::ACC192 }>(a, &s, &w, blk, th)
                        }
                    }
                }
                for th in 0..threads {
                    crt_cols::carry(a, &s, blk, th);
                }
                for th in 0..threads {
                    crt_cols::store(a, &s, blk, th);
                }
            }
        });
        return Ok(out);
    }
    let args = Shared(t.crt_args(res, limbs, Buf::new(t.crt.as_ptr(), t.crt.len()), count)?);
    let words = (b * padded_stride(t.l as u32)) as usize;
    for_blocks::<W>((count as u32).div_ceil(b), words, t.k * b as usize, |blk, s, w| {
        let a = args.get();
        let (s, w) = (HostShared(s.as_mut_ptr()), HostShared(w.as_mut_ptr()));
        // SAFETY: the `# Safety` of `crt::reconstruct` and `crt::store`
        // (polymul-kernels `rns/crt.rs`): as in `RnsBasis::decompose`, with
        // `residues` of `K · count` words, each below its prime
        // (`RnsBasis::check_residues` in `RnsBasis::reconstruct`, the only
        // caller besides the tests, which pass reduced residues), `limbs` =
        // `out` of `count · L` words (sized here; the extents checked by
        // `CrtArgs::new` in `Tables::crt_args`), the table this basis's `crt`;
        // `s` holds `B · padded_stride(L)` words and `w` `K · B`
        // (`for_blocks`'s scratch), `blk < ⌈count / B⌉`; the phases run in
        // order, every thread of the first before the second.
        unsafe {
            for th in 0..b {
                crt::reconstruct(a, &s, &w, blk, th, b);
            }
            for th in 0..b {
                crt::store(a, &s, blk, th, b);
            }
        }
    });
    Ok(out)
}

/// Big-integer coefficients on a GPU: `batch · N` coefficients of `L`
/// little-endian `u64` limbs each, coefficient-major (the layout of
/// [`RnsBasis::limbs`]), made by [`super::RnsPlan::upload_limbs`] or
/// [`super::RnsPlan::zeros_limbs`] for one plan's `N` and `L`.
pub struct DeviceLimbs {
    pub(crate) data: DeviceVec<u64>,
    pub(crate) n: usize,
    pub(crate) l: usize,
    pub(crate) batch: usize,
    /// The CUDA ordinal of the device holding it (plans of other devices
    /// refuse it: `Error::WrongDevice`).
    pub(crate) ordinal: u32,
}

impl crate::gpu::graph::sealed::Sealed for DeviceLimbs {
    fn ranges(&self, out: &mut Vec<(u64, u64)>) {
        self.data.ranges(out);
    }
}

/// Limbs a [`crate::Graph`] owns (an RNS plan's captured decomposition,
/// reconstruction or limb product): [`crate::Graph::state_mut`] lends
/// their words, `batch · N · L` limbs, coefficient-major, to write new
/// limbs into between replays.
impl crate::GraphState for DeviceLimbs {
    type Views<'a> = &'a mut DeviceView<u64>;
    fn views_mut(&mut self) -> Self::Views<'_> {
        &mut self.data
    }
}

impl std::fmt::Debug for DeviceLimbs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceLimbs[{} × N = {} × L = {} on GPU {}]", self.batch, self.n, self.l, self.ordinal)
    }
}

impl DeviceLimbs {
    /// Polynomials.
    pub fn batch(&self) -> usize {
        self.batch
    }

    /// Coefficients per polynomial (N).
    pub fn n(&self) -> usize {
        self.n
    }

    /// Limbs per coefficient (L).
    pub fn limbs(&self) -> usize {
        self.l
    }

    /// The CUDA ordinal of the GPU holding the words.
    pub fn ordinal(&self) -> u32 {
        self.ordinal
    }

    /// Words in all: `batch · N · L`.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Never true: a buffer holds at least one polynomial.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The words, as a device buffer (e.g. to copy into another
    /// application's memory).
    pub fn words(&self) -> &DeviceView<u64> {
        &self.data
    }
}

/// A basis's conversions on one GPU without a plan of its towers: what a
/// multi-device plan split by towers runs on its first GPU
/// (multi/limbs.rs). The caller checks the buffers' shapes.
pub(crate) struct BasisConvert<W: Coeff> {
    basis: RnsBasis<W>,
    conv: DeviceConvert<W>,
}

impl<W: Coeff> BasisConvert<W> {
    /// Looks the kernels up on `gpu` and uploads `basis`'s tables.
    pub(crate) fn new(gpu: &Gpu, basis: RnsBasis<W>) -> Result<Self> {
        let conv = DeviceConvert::new(gpu, &basis)?;
        Ok(Self { basis, conv })
    }

    /// Queues the decomposition of the `count` coefficients of `limbs`
    /// (`count · L` words) into `out` (`K · count` words, tower-major), as
    /// [`super::RnsPlan::decompose`].
    pub(crate) fn decompose(
        &self,
        q: &Queue<'_>,
        limbs: &DeviceView<u64>,
        count: usize,
        out: &mut DeviceView<W>,
    ) -> Result<()> {
        self.conv.decompose(q, &self.basis.conv, limbs, count, out)
    }

    /// Queues the CRT reconstruction of `residues` (`K · count` words,
    /// tower-major) into `limbs` (`count · L` words), as
    /// [`super::RnsPlan::reconstruct`].
    pub(crate) fn reconstruct(
        &self,
        q: &Queue<'_>,
        residues: &DeviceView<W>,
        count: usize,
        limbs: &mut DeviceView<u64>,
    ) -> Result<()> {
        self.conv.reconstruct(q, &self.basis.conv, residues, count, limbs, CrtChoice::Auto)
    }
}

/// A plan's conversion kernels and its tables on the device.
pub(crate) struct DeviceConvert<W: Coeff> {
    dec: TypedKernel<DecomposeArgs<W>>,
    crt: TypedKernel<CrtArgs<W>>,
    /// The column CRT kernels, by `CrtColsVariant::id` (boxed: a plan
    /// stays small).
    crt_cols: Box<[TypedKernel<CrtColsArgs<W>>; CrtColsVariant::ALL.len()]>,
    /// The decomposition's, the one-thread CRT's and the column CRT's
    /// tables (`None` when `Q` is too large: every conversion is then an
    /// error; the column table empty where its blocks do not fit).
    tables: Option<Box<DeviceTables>>,
}

/// A plan's conversion tables on the device.
struct DeviceTables {
    dec: DeviceVec<u64>,
    crt: DeviceVec<u64>,
    cols: Option<DeviceVec<u64>>,
}

impl<W: Coeff> DeviceConvert<W> {
    /// Looks the kernels up and uploads `basis`'s tables.
    pub(crate) fn new(gpu: &Gpu, basis: &RnsBasis<W>) -> Result<Self> {
        let t = &*basis.conv;
        let tables = if t.block > 0 {
            let cols = if t.cols.is_empty() { None } else { Some(gpu.upload(&t.cols)?) };
            Some(Box::new(DeviceTables { dec: gpu.upload(&t.dec)?, crt: gpu.upload(&t.crt)?, cols }))
        } else {
            None
        };
        let cols =
            |variant| TypedKernel::get::<W, _>(gpu, polymul_kernels::names::RnsCrtColsKernel { variant });
        let crt_cols = Box::new([cols(CrtColsVariant::ALL[0])?, cols(CrtColsVariant::ALL[1])?]);
        // A basis whose column blocks need more than the default 48 KiB
        // (`MAX_SHARED_OPT_IN`): raise the kernels' limit to what they use.
        let smem = if t.cols_block > 0 { t.crt_cols_shared::<W>(t.cols_block) } else { 0 };
        if smem > MAX_SHARED {
            for k in crt_cols.iter() {
                check(raise_max_dynamic_smem(k, smem), "raising the column CRT's shared-memory limit")?;
            }
        }
        Ok(Self {
            dec: TypedKernel::get::<W, _>(gpu, polymul_kernels::names::RnsDecomposeKernel)?,
            crt: TypedKernel::get::<W, _>(gpu, polymul_kernels::names::RnsCrtKernel)?,
            crt_cols,
            tables,
        })
    }

    fn tables(&self, t: &Tables) -> Result<&DeviceTables> {
        t.block()?;
        self.tables.as_deref().ok_or(Error::ConversionTooLarge { q_bits: t.q_bits, towers: t.k })
    }

    /// Queues the decomposition of `limbs` (`count` coefficients) into
    /// `out` (validated by the caller: `k · count` words).
    pub(crate) fn decompose(
        &self,
        q: &Queue<'_>,
        t: &Tables,
        limbs: &DeviceView<u64>,
        count: usize,
        out: &mut DeviceView<W>,
    ) -> Result<()> {
        let dec = &self.tables(t)?.dec;
        let args = t.dec_args(
            buf(limbs.ptr(), limbs.len()),
            view(out),
            buf(dec.ptr(), dec.len()),
            count,
            decompose::GPU_LOG_GROUPS,
        )?;
        q.gpu.bind()?;
        let blocks = (count as u32).div_ceil(t.block);
        let threads = t.block << decompose::GPU_LOG_GROUPS;
        // SAFETY: the invariants of `DecomposeArgs` (polymul-kernels
        // `rns/decompose.rs`); `DecomposeArgs::new` (through `Tables::dec_args`)
        // checked the buffers' and table's extents and the counts, and set
        // `magic`: `limbs` holds `count · L` words and `out` `K · count` words
        // (`DecomposeArgs::new` checked both extents against `count`; the
        // callers pass a plan's buffers of one shape, `RnsPlan::check_pair`,
        // rns/plan.rs, or a multi-device plan's slices, multi/limbs.rs); `table`
        // is this basis's (`DeviceConvert::new` uploaded `t.dec`); the grid is
        // `⌈count / B⌉` blocks of `B · 2^GPU_LOG_GROUPS` threads with
        // `B · padded_stride(L) · 8` bytes of shared memory
        // (`Tables::dec_shared`, within the default 48 KiB: `MAX_SHARED`),
        // `magic = div_magic(L)`. The context is current: `Gpu::bind` above.
        unsafe {
            self.dec.launch(q, blocks, threads, t.dec_shared(), &args, "decomposing limbs into residues")
        }
    }

    /// Queues the CRT reconstruction of `residues` into `limbs`
    /// (validated by the caller) with the kernel `choice` picks.
    pub(crate) fn reconstruct(
        &self,
        q: &Queue<'_>,
        t: &Tables,
        residues: &DeviceView<W>,
        count: usize,
        limbs: &mut DeviceView<u64>,
        choice: CrtChoice,
    ) -> Result<()> {
        let tables = self.tables(t)?;
        if let CrtKernel::Columns(cb, variant) = t.kernel(choice)? {
            // `Tables::kernel` gives `Columns` only where `t.cols` (uploaded
            // by `DeviceConvert::new`) is not empty.
            let crt_t =
                tables.cols.as_ref().ok_or(Error::ConversionTooLarge { q_bits: t.q_bits, towers: t.k })?;
            let args = t.crt_cols_args(
                view(residues),
                buf(limbs.ptr(), limbs.len()),
                buf(crt_t.ptr(), crt_t.len()),
                count,
                cb,
            )?;
            q.gpu.bind()?;
            let blocks = (count as u32).div_ceil(cb);
            // SAFETY: the invariants of `CrtColsArgs` (polymul-kernels
            // `rns/crt_cols.rs`); `CrtColsArgs::new` (through
            // `Tables::crt_cols_args`) checked the buffers' and table's extents,
            // the counts and the block (`B` a power of two from 32, `B · G ≤
            // 1024`), and set `magic` and `groups`: `residues` holds `K · count`
            // words and `limbs` `count · L` (extents checked by `CrtColsArgs::new`;
            // a plan's buffers of one shape, `RnsPlan::check_pair`, rns/plan.rs, or
            // a multi-device plan's slices, multi/limbs.rs);
            // `table` is this basis's column table (`DeviceConvert::new` uploaded
            // `t.cols`); the grid is `⌈count / B⌉` blocks
            // of `B · G` threads (`CrtColsArgs::threads`) with
            // `crt_cols::shared_bytes(B, L, K, word bytes)` of shared memory
            // (`Tables::crt_cols_shared`, within `MAX_SHARED`:
            // `crt_cols::block_coeffs`). The residues being below their primes
            // holds as for the one-thread kernel below. The context is current:
            // `Gpu::bind` above.
            return unsafe {
                self.crt_cols[variant.id() as usize].launch(
                    q,
                    blocks,
                    args.threads(),
                    t.crt_cols_shared::<W>(cb),
                    &args,
                    "reconstructing limbs (CRT, columns)",
                )
            };
        }
        let crt_t = &tables.crt;
        let args =
            t.crt_args(view(residues), buf(limbs.ptr(), limbs.len()), buf(crt_t.ptr(), crt_t.len()), count)?;
        q.gpu.bind()?;
        let blocks = (count as u32).div_ceil(t.block);
        // SAFETY: the invariants of `CrtArgs` (polymul-kernels `rns/crt.rs`);
        // `CrtArgs::new` (through `Tables::crt_args`) checked the buffers' and
        // table's extents and the counts, and set `magic`: `residues` holds
        // `K · count` words and `limbs` `count · L` (extents checked by
        // `CrtArgs::new`; a plan's buffers of one shape, `RnsPlan::check_pair`,
        // rns/plan.rs, or a multi-device plan's slices, multi/limbs.rs); `table` is this basis's (`DeviceConvert::new` uploaded
        // `t.crt`); the grid is `⌈count / B⌉` blocks of `B` threads with
        // `crt::shared_bytes(B, L, K, word bytes)` of shared memory
        // (`Tables::crt_shared`, within `MAX_SHARED`), `magic = div_magic(L)`.
        // The residues being below their primes holds for words a plan wrote or
        // uploaded (`Towers::check`), not for words written into the buffer by
        // other means (wrong limbs, not unsafety: the kernel's indexing does not
        // depend on them). The context is current: `Gpu::bind` above.
        unsafe {
            self.crt.launch(q, blocks, t.block, t.crt_shared::<W>(), &args, "reconstructing limbs (CRT)")
        }
    }
}

#[cfg(test)]
mod tests {
    //! The two CRT kernels' bodies against each other and against an
    //! independent num-bigint CRT, bit for bit, for every `L` from 1 to 65
    //! on both words and tower counts from 1 to 200.
    use super::*;
    use crate::random::SplitMix64;
    use num_bigint::BigUint;

    /// Independent reference: `Σ r_i · (Q̂_i^{-1} mod q_i) · Q̂_i mod Q` on
    /// big integers, `Q̂_i^{-1}` by Fermat (`inv`).
    fn crt_ref(q: &BigUint, primes: &[u64], inv: &[u64], res: &[u64]) -> BigUint {
        let mut x = BigUint::from(0u32);
        for ((&p, &v), &r) in primes.iter().zip(inv).zip(res) {
            x += (q / p) * ((r as u128 * v as u128) % p as u128);
        }
        x % q
    }

    /// `(Q̂_i^{-1} mod q_i)` by Fermat.
    fn inverses(q: &BigUint, primes: &[u64]) -> Vec<u64> {
        primes
            .iter()
            .map(|&p| {
                let pb = BigUint::from(p);
                u64::try_from(((q / p) % &pb).modpow(&BigUint::from(p - 2), &pb)).unwrap()
            })
            .collect()
    }

    /// The two tables of `primes` (one-thread and column kernel).
    fn tables<W: Coeff>(primes: &[u64]) -> (Tables, Tables) {
        let q: BigUint = primes.iter().map(|&p| BigUint::from(p)).product();
        let hat: Vec<BigUint> = primes.iter().map(|&p| &q / p).collect();
        let inv = inverses(&q, primes);
        let rows = Tables::with_kernel::<W>(primes, &q, &hat, &inv, false);
        let cols = Tables::with_kernel::<W>(primes, &q, &hat, &inv, true);
        (rows, cols)
    }

    /// The values of the test: 0, 1, 2, Q − 1 (every residue `q_i − 1`),
    /// Q − 2, ⌊Q/2⌋ and its neighbours, 2^(64j) ± 1 and Q − 2^(64j) below
    /// Q (limb boundaries; small and near-Q values take the fix-up), each
    /// `Q̂_i` and `Q − Q̂_i`, then random values up to `count` in all.
    fn values(q: &BigUint, l: usize, count: usize, rng: &mut SplitMix64) -> Vec<BigUint> {
        let one = BigUint::from(1u32);
        let half: BigUint = q >> 1;
        let mut v = vec![BigUint::from(0u32), one.clone(), BigUint::from(2u32), q - 1u32, q - 2u32];
        v.extend([half.clone(), &half + 1u32, &half - 1u32]);
        for j in 1..=l as u32 {
            let p = &one << (64 * j);
            for x in [&p - 1u32, p.clone(), &p + 1u32] {
                if &x < q {
                    v.push(q - &x);
                    v.push(x);
                }
            }
        }
        v.retain(|x| x < q);
        v.truncate(count);
        let words = q.bits().div_ceil(32) as usize;
        while v.len() < count {
            v.push(BigUint::new((0..words).map(|_| rng.next_u64() as u32).collect()) % q);
        }
        v
    }

    /// Both kernels (the column kernel with every arithmetic) on `count`
    /// values of the basis `primes`, tower-major residues; asserts each
    /// equals the num-bigint CRT limb for limb.
    fn check<W: Coeff>(primes: &[u64], count: usize, seed: u64) {
        let (rows, cols) = tables::<W>(primes);
        let (k, l) = (primes.len(), rows.l);
        let what = format!("u{} K = {k}, L = {l}", W::BITS);
        assert!(rows.block > 0, "{what}: the one-thread kernel's block fits");
        assert!(matches!(cols.crt_kernel, CrtKernel::Columns(..)), "{what}: the column kernel's block fits");
        let q: BigUint = primes.iter().map(|&p| BigUint::from(p)).product();
        let mut rng = SplitMix64::new(seed);
        let xs = values(&q, l, count, &mut rng);
        let mut res = vec![W::zero(); k * count];
        for (i, &p) in primes.iter().enumerate() {
            for (c, x) in xs.iter().enumerate() {
                res[i * count + c] = W::from_u64(u64::try_from(x % p).unwrap());
            }
        }
        // Random residues, every tower independent, in the last quarter.
        for (i, &p) in primes.iter().enumerate() {
            for c in 3 * count / 4..count {
                res[i * count + c] = W::from_u64(rng.next_u64() % p);
            }
        }
        // The largest column sums: every `r'_i = r_i · inv_i mod q_i` at
        // `q_i − 1` (`r_i = −(Q/q_i) mod q_i`), in the last coefficient.
        for (i, &p) in primes.iter().enumerate() {
            let h = u64::try_from((&q / p) % p).unwrap();
            res[i * count + count - 1] = W::from_u64((p - h) % p);
        }
        // With `u32` residues the column kernel's rows are tower pairs
        // (`crt_cols::sum_rows`): the largest sums there have every pair's
        // `r' = m − 1` (`x ≡ −Q/m mod m`, `m = q_a · q_b`), in the
        // coefficient before the last.
        if W::BITS == 32 && count >= 2 {
            for (j, pair) in primes.chunks(2).enumerate() {
                let m: BigUint = pair.iter().map(|&p| BigUint::from(p)).product();
                let x = (&m - (&q / &m) % &m) % &m;
                for (d, &p) in pair.iter().enumerate() {
                    res[(2 * j + d) * count + count - 2] = W::from_u64(u64::try_from(&x % p).unwrap());
                }
            }
        }
        let inv = inverses(&q, primes);
        let a = reconstruct_cpu(&rows, &res, count, CrtChoice::Auto).unwrap();
        let b = reconstruct_cpu(&cols, &res, count, CrtChoice::Auto).unwrap();
        // Every variant, forced on either table set.
        let variants: Vec<_> = CrtColsVariant::ALL
            .iter()
            .map(|&v| (v, reconstruct_cpu(&rows, &res, count, CrtChoice::Columns(v)).unwrap()))
            .collect();
        assert_eq!(reconstruct_cpu(&cols, &res, count, CrtChoice::Rows).unwrap(), a, "{what}: forced rows");
        for c in 0..count {
            let r: Vec<u64> = (0..k).map(|i| res[i * count + c].as_u64()).collect();
            let x = crt_ref(&q, primes, &inv, &r);
            let mut want = vec![0u64; l];
            for (d, v) in want.iter_mut().zip(x.to_u64_digits()) {
                *d = v;
            }
            assert_eq!(&a[c * l..(c + 1) * l], &want[..], "{what}: one-thread kernel, coefficient {c}");
            assert_eq!(&b[c * l..(c + 1) * l], &want[..], "{what}: column kernel, coefficient {c}");
            for (v, x) in &variants {
                assert_eq!(&x[c * l..(c + 1) * l], &want[..], "{what}: column kernel {v:?}, coefficient {c}");
            }
        }
    }

    /// `count` NTT-friendly `bits`-bit primes for N = 2.
    fn primes(bits: u32, count: usize) -> Vec<u64> {
        crate::params::ntt_primes(bits, 2, count).unwrap()
    }

    #[test]
    fn the_column_crt_matches_num_bigint_and_the_one_thread_crt_u64() {
        // 62-bit towers: L = ⌈62K / 64⌉ for K = 1 ..= 67 (L = 1 ..= 65).
        for k in 1..=67 {
            check::<u64>(&primes(62, k), 40 + k % 5 * 30, k as u64);
        }
        // Narrower towers: more towers per limb.
        check::<u64>(&primes(40, 100), 100, 1000);
        check::<u64>(&primes(33, 100), 100, 1001);
        check::<u64>(&primes(20, 120), 100, 1002);
    }

    #[test]
    fn the_column_crt_matches_num_bigint_and_the_one_thread_crt_u32() {
        // 30-bit towers: every L from 1 to 65 (K up to 138).
        for k in (1..=138).filter(|k| k % 3 != 1 || *k < 10) {
            check::<u32>(&primes(30, k), 40 + k % 4 * 25, 2000 + k as u64);
        }
        // Many narrow towers (20 bits: L = 63), near the most whose blocks
        // fit the 48 KiB of shared memory.
        check::<u32>(&primes(20, 200), 70, 2999);
    }

    #[test]
    fn many_narrow_towers_take_an_opt_in_column_block() {
        // The GPU check's opt-in cases (`check --only convert`): 200 × 20-bit
        // `u32` and 140 × 20-bit `u64` towers need more than 48 KiB per
        // column block, and at most `MAX_SHARED_OPT_IN`.
        for (wb, k) in [(4u32, 200usize), (8, 140)] {
            // `tables`' second set makes the column kernel the default, as
            // `Tables::new` does from `COLUMNS_MIN_LIMBS` limbs (asserted).
            let p = primes(20, k);
            let t = if wb == 4 { tables::<u32>(&p).1 } else { tables::<u64>(&p).1 };
            assert!(t.l >= COLUMNS_MIN_LIMBS, "{wb}-byte, {k} towers");
            assert!(matches!(t.crt_kernel, CrtKernel::Columns(..)), "{wb}-byte, {k} towers");
            let smem = crt_cols::shared_bytes(t.cols_block, t.l as u32, k as u32, wb);
            assert!(smem > MAX_SHARED as u64 && smem <= MAX_SHARED_OPT_IN as u64, "{wb}-byte: {smem}");
        }
    }

    #[test]
    fn a_basis_picks_its_crt_kernel_by_limbs() {
        let q: BigUint = primes(62, 20).iter().map(|&p| BigUint::from(p)).product();
        let l = q.to_u64_digits().len();
        let (rows, cols) = tables::<u64>(&primes(62, 20));
        assert_eq!(cols.crt_kernel, CrtKernel::Columns(cols.cols_block, CrtColsVariant::DEFAULT));
        assert_eq!(rows.crt_kernel, CrtKernel::Rows);
        let p = primes(62, 20);
        let auto = Tables::new::<u64>(&p, &q, &p.iter().map(|&x| &q / x).collect::<Vec<_>>(), &[1; 20]);
        assert_eq!(auto.crt_kernel == CrtKernel::Rows, l < COLUMNS_MIN_LIMBS);
        let p = primes(62, 67);
        let q: BigUint = p.iter().map(|&x| BigUint::from(x)).product();
        let auto = Tables::new::<u64>(&p, &q, &p.iter().map(|&x| &q / x).collect::<Vec<_>>(), &[1; 67]);
        assert!(matches!(auto.crt_kernel, CrtKernel::Columns(..)), "L = 65 runs the column kernel");
        // Forcing: every choice resolves where the blocks fit.
        for v in CrtColsVariant::ALL {
            assert_eq!(auto.kernel(CrtChoice::Columns(v)).unwrap(), CrtKernel::Columns(auto.cols_block, v));
        }
        assert_eq!(auto.kernel(CrtChoice::Rows).unwrap(), CrtKernel::Rows);
        assert_eq!(auto.kernel(CrtChoice::Auto).unwrap(), auto.crt_kernel);
    }
}
