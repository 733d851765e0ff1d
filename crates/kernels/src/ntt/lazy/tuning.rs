//! The lazy kernels' tuning: every choice measured on an H100 (the
//! latency schedule's radix and threshold, the polynomials per row-pass
//! block, the sizes with fused kernels, where the product pass keeps `b`,
//! the default register radix and the register caps), each with the
//! measurement that set it (docs/ntt.md).

use super::geometry::{LATENCY_LOG_S, MAX_ROW_L, Shape, clamp_polys_log};
use super::{FORWARD, INVERSE, PRODUCT};

/// `log2` of the radix of the latency schedule's passes where the plan
/// asks for none.
pub const LATENCY_LOG_R: u32 = 2;

/// The smallest `log2 N` whose plans run the latency schedule for small
/// launches. Below, one block's one-pass transform is faster: H100, one
/// polynomial, `u32` N = 2^10 forward 4.07 µs back to back in one pass
/// against 5.48 in two latency passes (`u64`: 4.99 against 7.24); from
/// 2^12 the two passes win (`u64` N = 2^12: 10.16 against 7.78 µs).
pub const LATENCY_MIN_LOG_N: u32 = 12;

/// The most polynomials (`log2`) a row-pass block takes rows of where it
/// has the choice. Measured on an H100 (N = 2^16, CUDA events, one run,
/// docs/ntt.md): 4 polynomials per block against 1, `u32` forward /
/// inverse / polymul 236 / 214 / 607 → 231 / 213 / 588 µs at batch 512 and
/// 25.7 / 22.4 / 48.7 → 24.0 / 21.5 / 45.8 µs at batch 32 (`u64` at batch
/// 32: 43.4 / 43.0 / 118.8 → 42.1 / 41.6 / 116.9); a whole block of 32
/// polynomials (one row each) made the `u32` forward slower (0.436 →
/// 0.455 µs per polynomial): rows 256 KiB apart instead of runs of
/// consecutive rows. Up to 8 (2026-11-28): 3–4% faster at `u32` 2^16 × 32
/// and × 64, 1–3% slower at 2^26 words (`u32` inverse 2^16, forward 2^17)
/// and 4–6% at `u32` 2^12 × 1024: not taken.
pub const ROW_POLYS_LOG_MAX: u32 = 2;

/// `log2` of the polynomials per row-pass block a launch over `batch`
/// polynomials asks for: the most (up to [`ROW_POLYS_LOG_MAX`] and the
/// block's rows) that divide the batch, so that no block is left
/// part-empty ([`row_of`](super::row_of)).
pub const fn row_polys_log(shape: Shape, log_n: u32, batch: usize) -> u32 {
    let tz = if batch == 0 { 0 } else { batch.trailing_zeros() };
    clamp_polys_log(shape, log_n, if tz > ROW_POLYS_LOG_MAX { ROW_POLYS_LOG_MAX } else { tz })
}

/// The sizes (`log2 N`) with fused kernels for `word_bytes`-byte words:
/// the `u32` two-pass sizes (2^15 to 2^21; 2^14 is one pass), none for
/// `u64`. Measured on an H100 (docs/ntt.md): the fused `u32` transform at
/// N = 2^16, batch 512, reads and writes device memory once (134.8 MB read,
/// 114.8 MB written for 134 MB of words) and took 214.6 / 191.1 µs against
/// 234.7 / 213.8 µs for the two launches (forward / inverse); the `u64`
/// kernels, compute-bound, were 5% slower fused (525 against 501 µs).
pub const fn fused_sizes(word_bytes: usize) -> core::ops::RangeInclusive<u32> {
    if word_bytes == 4 {
        15..=21
    } else {
        #[allow(clippy::reversed_empty_ranges)] // none
        {
            1..=0
        }
    }
}

/// Whether the product pass keeps `b`'s transformed words in a second tile
/// (the pass's shared memory doubled: [`pass_smem_words`](super::pass_smem_words)) instead of
/// registers, for `word_bytes`-byte words. The unit's thread writes and
/// later reads the same places, so no barrier is added. For `u32`, held in
/// registers, the radix-16 pass needed 64 registers, two 512-thread blocks
/// per SM (Nsight Compute: 50% occupancy, latency-bound between its
/// barriers); in the tile it runs at 40, three blocks per SM, and a polymul
/// at N = 2^16, batch 512 took 562 instead of 588 µs (H100, docs/ntt.md).
/// For `u64` the registers stay: three blocks of 256 threads per SM
/// already, and 64 KiB tiles would allow no more.
pub const fn held_in_tile(word_bytes: usize) -> bool {
    word_bytes == 4
}

/// Whether the `u32` row pass of `mode` and `l` points moves its words from
/// the tile to global memory in whole 32-byte sectors ("staged row I/O",
/// [`staged_last_end`](super::staged_last_end)): the last end of the pass, where
/// its units are runs of consecutive words (the forward's last step), gets
/// an execution step of its own in which the block's threads copy the
/// block's rows from the tile to global memory in 16-byte chunks,
/// consecutive threads taking consecutive chunks (512 contiguous bytes per
/// warp instruction), instead of each thread moving its unit's 64
/// contiguous bytes, which makes every warp-wide 16-byte access touch 32
/// sectors half each (Nsight Compute, `u32` N = 2^16: L2-bound, 73% L2
/// against 39% DRAM; docs/ntt.md). On where it measured faster: the `u32`
/// forward row passes of 2^8, 2^12 and 2^14 points (H100, 2026-11-27,
/// `bench --quick --only goals`, two runs each of both binaries in one
/// call, µs per polynomial: forward N = 2^16 0.396 / 0.394 → 0.339 / 0.338,
/// N = 2^12 0.0177 → 0.0145 / 0.0144, N = 2^14 0.0806 / 0.0807 → 0.0790 /
/// 0.0795; Nsight Compute, the fused forward at 2^16 × 512: L2 write
/// requests 1.26 M → 0.52 M, 71.5 → 60.5 µs). Off where it measured slower
/// — the inverse (its staged end was the first step's loads: N = 2^16 0.359
/// / 0.356 → 0.444 / 0.448; that copy was removed since,
/// [`staged_last_end`](super::staged_last_end)) and the forward row pass of 2^9
/// points (N = 2^17: 0.755 → 0.770 / 0.780) — and where it was not measured
/// (the product pass, the column passes, the cluster kernels, the other row
/// sizes); `false` restores the unstaged kernels.
pub const fn staged_row_io(word_bytes: usize, mode: u8, strided: bool, l: u32) -> bool {
    word_bytes == 4 && mode == FORWARD && !strided && matches!(l, 8 | 12 | 14)
}

/// `log2` of the register radix a plan uses by default for a pass of
/// `l`-point sub-transforms on `word_bytes`-byte words (`strided`: a column
/// pass; `mode`: [`FORWARD`] or [`INVERSE`]), from timings on an H100
/// (docs/ntt.md): radix 16, except the `u64` row passes of 2^8 points,
/// where radix 8 (more threads, fewer registers) is faster — but not the
/// `u64` product pass of 2^8 points, which with its register cap
/// ([`max_regs`]) is 4% faster at radix 16 (a polymul at N = 2^16, batch
/// 512). The `u32` forward column pass alone was faster at radix 8 in
/// Nsight Compute at batch 512, but where it runs (polymuls, whose column
/// launch transforms both operands, and transforms below the fused
/// kernels' batches) radix 16 measured as fast or faster: `u32` polymuls at
/// N = 2^16 of batch 20 / 42 / 128 / 512 in 41.4 / 57.4 / 152 / 552 µs
/// against 42.6 / 63.0 / 157 / 563, forwards of batch 42 in 30.0 against
/// 35.0 µs. The forward and inverse row passes of one plan share one
/// radix, because they share the thread-ordered twiddle region, whose
/// layout follows the row pass's steps; a product pass of another radix
/// gets tables of its own.
pub const fn log_radix(word_bytes: usize, l: u32, strided: bool, mode: u8) -> u32 {
    let lr = match (strided, word_bytes, mode) {
        (false, 8, FORWARD | INVERSE) if l == 8 => 3,
        _ => 4,
    };
    if lr > l { l } else { lr }
}

/// The register cap (PTX `.maxnreg`) of the pass kernel for `word_bytes`-byte
/// words, `mode`, pass kind, `l` and `log2` radix, or `None` for the
/// compiler's choice. Registers decide how many blocks share an SM (64 Ki
/// per SM): uncapped, the `u64` product pass at radix 8 (66 registers ×
/// 512 threads) ran one block per SM, 25% occupancy. Each cap buys one
/// more block per SM for at most ~30% fewer registers (a few bytes of
/// spills at most), and stays where it measured faster on an H100 (the
/// goals table with and without the caps in one run, docs/ntt.md):
/// `u64` 2^16 forward 0.981 → 0.954 µs, inverse 0.995 → 0.955, polymul
/// 3.23 → 2.98; `u32` 2^16 forward 0.462 → 0.437, inverse 0.414 → 0.394,
/// polymul 1.29 → 1.19. The `u64` one-pass rows (`l >= 11`) measured 2%
/// slower capped and keep the compiler's choice, as do the `u64` radix-16
/// product passes there (110–128 registers: a cap would cost a third of
/// them). The `u64` radix-8 product pass of 2^13 points (1024 threads)
/// needs its cap to launch at all (66 × 1024 registers > 64 Ki).
pub const fn max_regs(word_bytes: usize, mode: u8, strided: bool, l: u32, log_r: u32) -> Option<u32> {
    let r16 = log_r >= 4 && l >= 4;
    match (word_bytes, mode, strided, r16) {
        (8, PRODUCT, _, true) if l <= 10 => Some(80),
        (8, PRODUCT, _, true) => None,
        (8, PRODUCT, _, false) => Some(64),
        (8, _, true, true) => Some(64),
        (8, _, false, true) if l <= 10 => Some(64),
        (8, _, _, false) => Some(40),
        (4, PRODUCT, _, true) if l <= MAX_ROW_L && held_in_tile(4) => Some(40),
        (4, PRODUCT, _, true) => Some(64),
        (4, FORWARD, false, true) if l == 8 => Some(40),
        (4, FORWARD | INVERSE, _, true) => Some(32),
        _ => None,
    }
}

/// Whether a latency kernel (`LazyKernel::latency`, [`Shape::latency`]) of
/// `shape` and `mode` on `word_bytes`-byte words loads every twiddle pair
/// its steps use in its first step ([`Prefetch`](super::Prefetch)) instead
/// of each step loading its own after the barrier before it: at the
/// latency schedule's radix ([`LATENCY_LOG_R`]), when the pairs fit in
/// [`PREFETCH_MAX_REGS`] registers (`2^log_r − 1` pairs per step and
/// direction at most; the product pass holds both directions). The other
/// latency radices (`PlanOptions::latency_radix`, a developer switch:
/// measured slower) keep their loads, which keeps their code, and the
/// binaries that embed it, as they were (about 170 KB of PTX per arch).
/// Only the latency kernels ask (a full tile of two rows has the same
/// `log_s`; the full tiles keep their loads, their registers being their
/// occupancy). There one block per SM runs the steps one after another,
/// and each later step waited on its loads from L2: Nsight Compute, H100,
/// 2026-11-27, the `long_sb` stalls of steps 1–3 were a quarter to a third
/// of the samples of the `u64` and `u32` N = 2^16 passes (docs/latency.md).
pub const fn prefetches(shape: Shape, mode: u8, word_bytes: usize) -> bool {
    let dirs = if mode == PRODUCT { 2 } else { 1 };
    let pairs = dirs * shape.steps() * ((1u32 << shape.log_r) - 1);
    let regs = pairs * 2 * (word_bytes as u32 / 4);
    shape.log_s == LATENCY_LOG_S
        && shape.log_r == LATENCY_LOG_R
        && shape.steps() as usize <= PRE_STEPS
        && regs <= PREFETCH_MAX_REGS
}

/// Most steps of a pass whose twiddles [`prefetches`] holds: every latency
/// shape's (at most 2^8 points at radix 4 or more).
pub const PRE_STEPS: usize = 4;

/// Most registers a latency kernel's prefetched twiddle pairs may take
/// ([`prefetches`]): the radix-4 `u64` product pass of 2^8 points (two
/// directions, four steps of three pairs, two 64-bit words each: 96).
pub const PREFETCH_MAX_REGS: u32 = 96;

/// Whether the full-tile row pass of `mode`, `l` points and radix
/// `2^log_r` has a computed-row-twiddle kernel (`LazyKernel::computed`)
/// for `word_bytes`-byte words: only the row passes of 2^8 points (those
/// of an `RnsPlan` at N = 2^16, the size measured), at the default radix
/// ([`log_radix`]; the forward and inverse rows share the forward's). The
/// computed row twiddles measured slower than the tables on an H100
/// (docs/ntt.md, "Computed row twiddles"), so the other sizes' 36 kernels
/// (1.3 MB of embedded kernel images) are not built. A schedule asked for
/// computed row twiddles keeps its tables where one of its row passes has
/// none (`polymul`'s `LazySchedule::with_computed_rows`).
pub const fn has_computed_rows(word_bytes: usize, mode: u8, l: u32, log_r: u32) -> bool {
    let radix_mode = if mode == PRODUCT { PRODUCT } else { FORWARD };
    l == COMPUTED_L
        && l <= super::geometry::one_pass_max(word_bytes, 4)
        && log_r == log_radix(word_bytes, l, false, radix_mode)
}

/// The `l` of the computed-row kernels ([`has_computed_rows`]): the row
/// pass of N = 2^16 on both words.
pub const COMPUTED_L: u32 = 8;

/// The register cap of a computed-row kernel ([`has_computed_rows`]):
/// [`max_regs`]'s for the table kernel of the same shape, except two
/// product passes that spilled past `check-ptx`'s limit under it (ptxas 13,
/// sm_90, spill stores / loads): the `u64` radix-16 one of 2^8 points
/// (cap 80: 412 / 308 B; 256 threads, so any cap from 88 to 128 runs two
/// blocks per SM instead of three) and the `u32` radix-16 one of 2^12
/// points (cap 40: 264 / 312 B; 512 threads, two blocks per SM from 48 to
/// 64). Both get the largest cap of two blocks per SM. Not measured on a
/// GPU yet (docs/ntt.md, "Computed row twiddles").
pub const fn max_regs_computed(word_bytes: usize, mode: u8, l: u32, log_r: u32) -> Option<u32> {
    match (word_bytes, mode, l, log_r) {
        (8, PRODUCT, 8, 4) => Some(128),
        (4, PRODUCT, 12, 4) => Some(64),
        _ => max_regs(word_bytes, mode, false, l, log_r),
    }
}

/// Whether the full-tile row pass of `mode`, `l` points and radix
/// `2^log_r` has a tensor-source kernel (`LazyKernel::tensor`,
/// [`step_tensor`](super::step_tensor)) for `word_bytes`-byte words: the
/// inverse row pass of 2^8 points (N = 2^16, the ciphertexts of issue 54)
/// at the default radix ([`log_radix`]). Elsewhere the tensor product
/// runs its own kernel before the inverse.
pub const fn has_tensor_rows(word_bytes: usize, mode: u8, l: u32, log_r: u32) -> bool {
    mode == INVERSE && l == TENSOR_L && log_r == log_radix(word_bytes, l, false, INVERSE)
}

/// The `l` of the tensor-source kernels ([`has_tensor_rows`]).
pub const TENSOR_L: u32 = 8;

/// The register cap of a tensor-source kernel ([`has_tensor_rows`]): the
/// inverse row pass's ([`max_regs`]) raised by 8 on `u32` (its first step
/// holds a chunk of two operands beside the unit), for at most one block
/// per SM fewer. Not measured against other caps.
pub const fn max_regs_tensor(word_bytes: usize, l: u32, log_r: u32) -> Option<u32> {
    match max_regs(word_bytes, INVERSE, false, l, log_r) {
        Some(c) if word_bytes == 4 => Some(c + 8),
        c => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_caps_let_every_capped_kernel_launch() {
        // A capped kernel's block must fit an SM's 64 Ki registers, and the
        // cap must be one ptxas accepts (a multiple of 8 up to 255).
        for wb in [4usize, 8] {
            for k in crate::names::LazyKernel::all_for(wb) {
                let Some(cap) = k.max_regs(wb) else { continue };
                let threads = k.shape(wb).threads();
                assert!(threads <= 1024 && cap * threads <= 65536, "{wb}-byte {k:?}");
                assert!(cap % 8 == 0 && cap <= 255);
            }
        }
        // The u64 radix-8 product pass of 2^13 points needs its cap to launch.
        assert_eq!(max_regs(8, PRODUCT, false, 13, 3), Some(64));
    }

    #[test]
    fn latency_kernels_prefetch_what_fits() {
        use crate::ntt::lazy::MAX_HELD;
        // The default latency passes (radix 4) prefetch on both words, the
        // product pass too.
        for wb in [4usize, 8] {
            for mode in [FORWARD, INVERSE, PRODUCT] {
                for l in 5..=8 {
                    assert!(prefetches(Shape::latency(l, 2, mode != PRODUCT && l % 2 == 0), mode, wb));
                }
            }
        }
        // The other radices keep their loads.
        assert!(!prefetches(Shape::latency(8, 4, false), FORWARD, 4));
        assert!(!prefetches(Shape::latency(8, 3, true), INVERSE, 8));
        // Every latency kernel that prefetches has its steps' pairs fit
        // `Prefetch`'s rows, and no register cap.
        for wb in [4usize, 8] {
            for k in crate::names::LazyKernel::all_for(wb).filter(|k| k.latency) {
                let shape = k.shape(wb);
                if prefetches(shape, k.mode, wb) {
                    assert!(shape.steps() as usize <= PRE_STEPS);
                    for j in 0..shape.steps() {
                        let (_, kk) = shape.step(j);
                        let units = 1usize << (shape.log_r - kk);
                        assert!(units * ((1 << kk) - 1) < MAX_HELD, "{wb}-byte {k:?}");
                    }
                    assert_eq!(k.max_regs(wb), None);
                }
            }
        }
    }
}
