//! `extern "ptx-kernel"` entry points: the only place that knows it runs on a
//! GPU. Each entry reads its thread index, checks it against the work size and
//! calls a per-thread body from [`crate::ntt`], [`crate::pointwise`] or
//! [`crate::microbench`].
//!
//! Names follow `<kernel>_<reduction>_<word>` (see [`crate::names`]), so the
//! host and the device agree. Reduction constants arrive as the scalars
//! `(q, k, m)` of [`ModMul::parts`], validated on the host.

use crate::arith::{Barrett4, BarrettClassic, BuiltinRem, DhemQuisquater, ModMul, Montgomery, Shoup};
use crate::gpu::global_thread_x;
use crate::gpu::{block_thread, sync};
use crate::ntt::radix2::{self, Twiddles};
use crate::ntt::tiled::{self, TileGeometry};
use crate::smem::DeviceShared;
use crate::{microbench, pointwise};
use core::arch::asm;

// The tiled kernels' tile lives in dynamic shared memory, whose size the host
// chooses per launch. An `.extern .shared` array must be declared at module
// scope; `global_asm!` puts it there.
core::arch::global_asm!(".extern .shared .align 16 .b8 polymul_dyn[];");

/// The shared-window address of the kernel's dynamic shared tile.
#[inline(always)]
fn shared_tile() -> DeviceShared {
    let base: u32;
    // SAFETY: reads the address of the module's dynamic shared array.
    unsafe {
        asm!(
            "mov.u32 {p}, polymul_dyn;",
            p = out(reg32) base,
            options(nostack, preserves_flags)
        );
    }
    DeviceShared { base }
}

/// One tiled pass: load, the pass's stages between barriers, store.
///
/// # Safety
/// Launched by the host with validated geometry: one block per tile, at
/// least a tile of dynamic shared memory, buffers sized for the batch.
#[inline(always)]
unsafe fn tiled_pass<W: crate::Word, R: ModMul<W>>(
    a: *mut W,
    tw: Twiddles<W>,
    geo: TileGeometry,
    strided: bool,
    inverse: bool,
    pairs: bool,
    red: &R,
) where
    DeviceShared: crate::smem::Shared<W>,
{
    let s = shared_tile();
    let (blk, t, nt) = block_thread();
    // SAFETY: geometry and buffers validated by the host.
    unsafe { tiled::load(a, &s, &geo, strided, blk, t, nt) };
    sync();
    let (lo, hi) = if strided { (0, geo.l1) } else { (geo.l1, geo.log_n) };
    for st in tiled::steps(lo, hi, inverse, pairs) {
        // SAFETY: as above.
        unsafe { tiled::step(&s, tw, &geo, blk, st, inverse, t, nt, red) };
        sync();
    }
    // SAFETY: as above.
    unsafe { tiled::store(a, &s, &geo, strided, blk, t, nt) };
}

/// A radix-2 stage kernel over `total = batch · N/2` butterflies.
macro_rules! radix2_entry {
    ($w:ty, $red:ty, $name:ident, $body:path, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        /// Launched by the host with validated buffers and parameters.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(
            a: *mut $w,
            tw: *const $w,
            tw_aux: *const $w,
            total: u32,
            log_n: u32,
            log_m: u32,
            q: $w,
            k: $w,
            m: u32,
        ) {
            let t = global_thread_x();
            if t < total {
                let red = <$red>::from_parts(q, k, m);
                // SAFETY: t < total, buffers sized by the host.
                unsafe { $body(a, Twiddles { main: tw, aux: tw_aux }, t, log_n, log_m, &red) }
            }
        }
    };
}

/// A shared-memory pass kernel (`strided` = 1: stages `0..l1`, 0: stages
/// `l1..log_n`; `pairs` = 1: two stages per round trip), one block per tile.
macro_rules! tiled_entry {
    ($w:ty, $red:ty, $name:ident, $inverse:literal, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        /// Launched by the host with validated buffers and parameters.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(
            a: *mut $w,
            tw: *const $w,
            tw_aux: *const $w,
            log_n: u32,
            l1: u32,
            log_tile: u32,
            strided: u32,
            pairs: u32,
            q: $w,
            k: $w,
            m: u32,
        ) {
            let red = <$red>::from_parts(q, k, m);
            let geo = TileGeometry { log_n, l1, log_tile };
            let tw = Twiddles { main: tw, aux: tw_aux };
            // SAFETY: validated by the host.
            unsafe { tiled_pass(a, tw, geo, strided != 0, $inverse, pairs != 0, &red) }
        }
    };
}

/// A modular-multiplication microbenchmark kernel: `threads` threads, 4 chains each.
macro_rules! bench_entry {
    ($w:ty, $red:ty, $name:ident, $select:literal, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        /// Launched by the host with validated buffers and parameters.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(
            data: *mut $w,
            ops: *const $w,
            ops_aux: *const $w,
            threads: u32,
            iters: u32,
            q: $w,
            k: $w,
            m: u32,
        ) {
            let t = global_thread_x();
            if t < threads {
                let red = <$red>::from_parts(q, k, m);
                // SAFETY: t < threads, buffers sized by the host.
                unsafe {
                    microbench::modmul_chains::<_, _, $select>(data, ops, ops_aux, t as usize, iters, &red)
                }
            }
        }
    };
}

/// Every kernel of one reduction on one word.
macro_rules! reduction_entries {
    ($w:ty, $red:ty, $fwd:ident, $inv:ident, $bench_if:ident, $bench_sel:ident, $tfwd:ident, $tinv:ident) => {
        radix2_entry!($w, $red, $fwd, radix2::ct_butterfly, "One forward merged-CT radix-2 stage.");
        radix2_entry!(
            $w,
            $red,
            $inv,
            radix2::gs_butterfly_half,
            "One inverse merged-GS radix-2 stage (½-scaled)."
        );
        tiled_entry!($w, $red, $tfwd, false, "One forward shared-memory pass.");
        tiled_entry!($w, $red, $tinv, true, "One inverse shared-memory pass (GS, ½-scaled).");
        bench_entry!($w, $red, $bench_if, false, "Microbenchmark, corrections written as `if`.");
        bench_entry!($w, $red, $bench_sel, true, "Microbenchmark, corrections by mask-and-subtract.");
    };
}

macro_rules! word_entries {
    ($w:ty, $mul:ident, [$($red:ty => $fwd:ident, $inv:ident, $bi:ident, $bs:ident, $tf:ident, $ti:ident;)*]) => {
        $(reduction_entries!($w, $red, $fwd, $inv, $bi, $bs, $tf, $ti);)*

        /// `out[i] = a[i] · b[i] mod q` for `i < len` (Algorithm 4).
        ///
        /// # Safety
        /// Launched by the host with validated buffers and parameters.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $mul(
            out: *mut $w,
            a: *const $w,
            b: *const $w,
            len: u32,
            q: $w,
            mu: $w,
            qbits: u32,
        ) {
            let t = global_thread_x();
            if t < len {
                let red = Barrett4::from_parts(q, mu, qbits);
                // SAFETY: t < len, buffers sized by the host.
                unsafe { pointwise::mul_at(out, a, b, t as usize, &red) }
            }
        }
    };
}

word_entries!(u32, pointwise_mul_u32, [
    BuiltinRem<u32> => ntt_fwd_radix2_stage_rem_u32, ntt_inv_radix2_stage_rem_u32,
        modmul_bench_if_rem_u32, modmul_bench_select_rem_u32,
        ntt_fwd_tiled_rem_u32, ntt_inv_tiled_rem_u32;
    BarrettClassic<u32> => ntt_fwd_radix2_stage_barrett2_u32, ntt_inv_radix2_stage_barrett2_u32,
        modmul_bench_if_barrett2_u32, modmul_bench_select_barrett2_u32,
        ntt_fwd_tiled_barrett2_u32, ntt_inv_tiled_barrett2_u32;
    DhemQuisquater<u32> => ntt_fwd_radix2_stage_dq3_u32, ntt_inv_radix2_stage_dq3_u32,
        modmul_bench_if_dq3_u32, modmul_bench_select_dq3_u32,
        ntt_fwd_tiled_dq3_u32, ntt_inv_tiled_dq3_u32;
    Barrett4<u32> => ntt_fwd_radix2_stage_barrett4_u32, ntt_inv_radix2_stage_barrett4_u32,
        modmul_bench_if_barrett4_u32, modmul_bench_select_barrett4_u32,
        ntt_fwd_tiled_barrett4_u32, ntt_inv_tiled_barrett4_u32;
    Montgomery<u32> => ntt_fwd_radix2_stage_montgomery_u32, ntt_inv_radix2_stage_montgomery_u32,
        modmul_bench_if_montgomery_u32, modmul_bench_select_montgomery_u32,
        ntt_fwd_tiled_montgomery_u32, ntt_inv_tiled_montgomery_u32;
    Shoup<u32> => ntt_fwd_radix2_stage_shoup_u32, ntt_inv_radix2_stage_shoup_u32,
        modmul_bench_if_shoup_u32, modmul_bench_select_shoup_u32,
        ntt_fwd_tiled_shoup_u32, ntt_inv_tiled_shoup_u32;
]);

word_entries!(u64, pointwise_mul_u64, [
    BuiltinRem<u64> => ntt_fwd_radix2_stage_rem_u64, ntt_inv_radix2_stage_rem_u64,
        modmul_bench_if_rem_u64, modmul_bench_select_rem_u64,
        ntt_fwd_tiled_rem_u64, ntt_inv_tiled_rem_u64;
    BarrettClassic<u64> => ntt_fwd_radix2_stage_barrett2_u64, ntt_inv_radix2_stage_barrett2_u64,
        modmul_bench_if_barrett2_u64, modmul_bench_select_barrett2_u64,
        ntt_fwd_tiled_barrett2_u64, ntt_inv_tiled_barrett2_u64;
    DhemQuisquater<u64> => ntt_fwd_radix2_stage_dq3_u64, ntt_inv_radix2_stage_dq3_u64,
        modmul_bench_if_dq3_u64, modmul_bench_select_dq3_u64,
        ntt_fwd_tiled_dq3_u64, ntt_inv_tiled_dq3_u64;
    Barrett4<u64> => ntt_fwd_radix2_stage_barrett4_u64, ntt_inv_radix2_stage_barrett4_u64,
        modmul_bench_if_barrett4_u64, modmul_bench_select_barrett4_u64,
        ntt_fwd_tiled_barrett4_u64, ntt_inv_tiled_barrett4_u64;
    Montgomery<u64> => ntt_fwd_radix2_stage_montgomery_u64, ntt_inv_radix2_stage_montgomery_u64,
        modmul_bench_if_montgomery_u64, modmul_bench_select_montgomery_u64,
        ntt_fwd_tiled_montgomery_u64, ntt_inv_tiled_montgomery_u64;
    Shoup<u64> => ntt_fwd_radix2_stage_shoup_u64, ntt_inv_radix2_stage_shoup_u64,
        modmul_bench_if_shoup_u64, modmul_bench_select_shoup_u64,
        ntt_fwd_tiled_shoup_u64, ntt_inv_tiled_shoup_u64;
]);
