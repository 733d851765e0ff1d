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
use crate::gpu::launch::{Queue, buf, refused, view};
use crate::gpu::{DeviceVec, DeviceView, Gpu};
use crate::{Coeff, Error, Result};
use num_bigint::BigUint;
use polymul_kernels::args::{ArgsError, Buf};
use polymul_kernels::rns::crt::{self, CrtArgs};
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
    /// `Q`'s limbs.
    pub(crate) q_limbs: Vec<u64>,
    /// Bits of `Q`.
    pub(crate) q_bits: u64,
}

impl Tables {
    /// The tables of the towers `primes` (product `modulus`, `q_hat[i] =
    /// Q/q_i`, `inv[i] = (Q/q_i)^{-1} mod q_i`) for `W`-word residues.
    pub(crate) fn new<W: Coeff>(primes: &[u64], modulus: &BigUint, q_hat: &[BigUint], inv: &[u64]) -> Self {
        let k = primes.len();
        let q_limbs = modulus.to_u64_digits();
        let l = q_limbs.len().max(1);
        let block = if k <= crt::MAX_TOWERS && l <= 1 << 12 {
            block_coeffs(l as u32, k as u32, W::BITS / 8, MAX_SHARED)
        } else {
            0
        };
        let (mut dec, mut crt_t) = (Vec::new(), Vec::new());
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
        }
        Self { l, k, block, dec, crt: crt_t, q_limbs, q_bits: modulus.bits() }
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
        let t = &*self.conv;
        let b = t.block()?;
        let mut out = vec![0u64; t.l * count];
        let args = Shared(t.crt_args(
            Buf::new(residues.as_ptr(), residues.len()),
            Buf::new(out.as_mut_ptr(), out.len()),
            Buf::new(t.crt.as_ptr(), t.crt.len()),
            count,
        )?);
        let words = (b * padded_stride(t.l as u32)) as usize;
        for_blocks::<W>((count as u32).div_ceil(b), words, t.k * b as usize, |blk, s, w| {
            let a = args.get();
            let (s, w) = (HostShared(s.as_mut_ptr()), HostShared(w.as_mut_ptr()));
            // SAFETY: the `# Safety` of `crt::reconstruct` and `crt::store`
            // (polymul-kernels `rns/crt.rs`): as in `decompose`, with `residues`
            // of `K · count` words, each below its prime
            // (`RnsBasis::check_residues` above), `limbs` = `out` of `count · L`
            // words (sized here; the extents checked by `CrtArgs::new` in
            // `Tables::crt_args`), the table this basis's `crt`; `s` holds
            // `B · padded_stride(L)` words and `w` `K · B` (`for_blocks`'s
            // scratch), `blk < ⌈count / B⌉`; the phases run in order, every
            // thread of the first before the second.
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
}

impl std::fmt::Debug for DeviceLimbs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DeviceLimbs[{} × N = {} × L = {}]", self.batch, self.n, self.l)
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

/// A plan's conversion kernels and its tables on the device.
pub(crate) struct DeviceConvert<W: Coeff> {
    dec: TypedKernel<DecomposeArgs<W>>,
    crt: TypedKernel<CrtArgs<W>>,
    /// Both tables, one after the other (`None` when `Q` is too large:
    /// every conversion is then an error).
    tables: Option<(DeviceVec<u64>, DeviceVec<u64>)>,
}

impl<W: Coeff> DeviceConvert<W> {
    /// Looks the kernels up and uploads `basis`'s tables.
    pub(crate) fn new(gpu: &Gpu, basis: &RnsBasis<W>) -> Result<Self> {
        let t = &*basis.conv;
        let tables = if t.block > 0 { Some((gpu.upload(&t.dec)?, gpu.upload(&t.crt)?)) } else { None };
        Ok(Self {
            dec: TypedKernel::get::<W, _>(gpu, polymul_kernels::names::RnsDecomposeKernel)?,
            crt: TypedKernel::get::<W, _>(gpu, polymul_kernels::names::RnsCrtKernel)?,
            tables,
        })
    }

    fn tables(&self, t: &Tables) -> Result<&(DeviceVec<u64>, DeviceVec<u64>)> {
        t.block()?;
        self.tables.as_ref().ok_or(Error::ConversionTooLarge { q_bits: t.q_bits, towers: t.k })
    }

    /// Queues the decomposition of `limbs` (`count` coefficients) into
    /// `out` (validated by the caller: `k · count` words).
    pub(crate) fn decompose(
        &self,
        q: &Queue<'_>,
        t: &Tables,
        limbs: &DeviceLimbs,
        out: &mut DeviceView<W>,
    ) -> Result<()> {
        let (dec, _) = self.tables(t)?;
        let count = limbs.batch * limbs.n;
        let args = t.dec_args(
            buf(limbs.data.ptr(), limbs.data.len()),
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
        // `magic`: `limbs` holds `count · L` words (`DeviceLimbs`:
        // `batch · N · L` by construction in `RnsPlan::upload_limbs` /
        // `zeros_limbs`) and `out` `K · count` words, both of this plan's shape
        // (`RnsPlan::check_pair`, rns/plan.rs: same `N`, `L` and batch); `table`
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
    /// (validated by the caller).
    pub(crate) fn reconstruct(
        &self,
        q: &Queue<'_>,
        t: &Tables,
        residues: &DeviceView<W>,
        limbs: &mut DeviceLimbs,
    ) -> Result<()> {
        let (_, crt_t) = self.tables(t)?;
        let count = limbs.batch * limbs.n;
        let args = t.crt_args(
            view(residues),
            buf(limbs.data.ptr(), limbs.data.len()),
            buf(crt_t.ptr(), crt_t.len()),
            count,
        )?;
        q.gpu.bind()?;
        let blocks = (count as u32).div_ceil(t.block);
        // SAFETY: the invariants of `CrtArgs` (polymul-kernels `rns/crt.rs`);
        // `CrtArgs::new` (through `Tables::crt_args`) checked the buffers' and
        // table's extents and the counts, and set `magic`: `residues` holds `K · count` words and `limbs` `count · L`, both of
        // this plan's shape (`RnsPlan::check_pair`, rns/plan.rs; `DeviceLimbs` by
        // construction); `table` is this basis's (`DeviceConvert::new` uploaded
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
