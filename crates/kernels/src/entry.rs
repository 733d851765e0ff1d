//! `extern "ptx-kernel"` entry points: the only place that knows it runs on a
//! GPU. Each entry reads its thread index, checks it against the work size and
//! calls a per-thread body from [`crate::ntt`], [`crate::pointwise`] or
//! [`crate::microbench`].
//!
//! Every entry point with parameters takes exactly one: a `#[repr(C)]`
//! argument block passed by value, declared as the
//! [`KernelAbi::Args`](crate::names::KernelAbi::Args) of the kernel's
//! identifier in [`crate::names`] and defined next to its algorithm
//! ([`crate::ntt::radix2::Radix2Args`], [`crate::ntt::tiled::TiledArgs`],
//! [`crate::pointwise::PointwiseArgs`],
//! [`crate::pointwise::FusedHadamardArgs`], [`crate::tensor::TensorArgs`],
//! [`crate::reduced::ReducedArgs`],
//! [`crate::microbench::ModMulBenchArgs`],
//! [`crate::microbench::ButterflyFloorArgs`],
//! [`crate::ntt::lazy::LaunchArgs`], [`crate::dgt::pass::DgtArgs`],
//! [`crate::dgt::codec::DgtCodecArgs`],
//! [`crate::dgt::codec::DgtPointwiseArgs`]). The host fills that very struct
//! and launches the kernel looked up from the same identifier, so the two
//! sides cannot disagree on the order, types or meaning of the arguments.
//! The symbols spelled out here (`export_name`/`no_mangle`) follow the
//! identifiers' [`KernelAbi::name`](crate::names::KernelAbi::name); the
//! build fails unless the PTX's entries are exactly those of
//! [`crate::names::for_each_entry`].
//!
//! Reduction constants arrive as the block's `(q, k, m)` of
//! [`ModMul::parts`], validated on the host. Every data kernel's block holds
//! the tower arguments ([`crate::towers::Towers`]: `moduli`, `data_words`,
//! `tw_words`): block row `blockIdx.y` (the DGT kernels: `blockIdx.z`) is
//! the RNS tower, one row and a null table for a single modulus.

use crate::arith::{Barrett4, BarrettClassic, BuiltinRem, DhemQuisquater, ModMul, Montgomery, Shoup};
use crate::dgt;
use crate::gpu::global_thread_x;
use crate::gpu::{
    atomic_inc, block_thread, block_y, block_z, grid_dependency_sync, release_inc, sync, wait_at_least,
};
#[cfg(target_feature = "sm_90")]
use crate::gpu::{cluster_arrive, cluster_sync, cluster_wait};
use crate::names::{self, KernelAbi};
use crate::ntt::lazy;
use crate::ntt::radix2::{self, Twiddles};
use crate::ntt::tiled::{self, TileGeometry};
use crate::smem::DeviceShared;
use crate::towers::TowerConsts;
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
    // SAFETY: a `mov` of the address of `polymul_dyn`, the module's `.extern .shared` array (the
    // `global_asm!` above): it touches no memory and writes only `base`.
    unsafe {
        asm!(
            "mov.u32 {p}, polymul_dyn;",
            p = out(reg32) base,
            options(nostack, preserves_flags)
        );
    }
    DeviceShared { base }
}

/// One tiled pass: load, the pass's stages in radix-`2^log_radix` steps
/// between barriers, store; with `direct`, the first step reads from and the
/// last writes to global memory where that stays coalesced.
///
/// # Safety
/// The invariants of `TiledArgs` hold for `a`, `tw` and `geo` (one block per tile, at least a
/// padded tile of dynamic shared memory, buffers sized for the batch), established by
/// `polymul::plan::launch::tiled_passes`.
#[allow(clippy::too_many_arguments)]
#[inline(always)]
unsafe fn tiled_pass<W: crate::gmem::Gmem, R: ModMul<W>, const MAX_LOG_RADIX: u32>(
    a: *mut W,
    tw: Twiddles<W>,
    geo: TileGeometry,
    strided: bool,
    inverse: bool,
    log_radix: u32,
    direct: bool,
    stop: u32,
    red: &R,
) where
    DeviceShared: crate::smem::Shared<W>,
{
    let s = shared_tile();
    let (blk, t, nt) = block_thread();
    for ph in tiled::phases(&geo, strided, inverse, log_radix, direct, core::mem::size_of::<W>(), stop) {
        // SAFETY: this function's contract (the invariants of `TiledArgs` for `a`, `tw`, `geo`,
        // established by `polymul::plan::launch::tiled_passes`); `s` is the launch's tile and the
        // phases come from `tiled::phases` in order, with the barriers they ask for.
        unsafe {
            tiled::run_phase::<W, R, _, MAX_LOG_RADIX>(a, &s, tw, &geo, blk, ph, strided, inverse, t, nt, red)
        };
        if ph.barrier_after() {
            sync();
        }
    }
}

/// A radix-2 stage kernel over `total = batch · N/2` butterflies
/// ([`radix2::Radix2Args`]).
macro_rules! radix2_entry {
    ($w:ty, $red:ty, $name:ident, $body:path, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        /// The invariants of `Radix2Args` (see its doc), established by
        /// `polymul::plan::launch::radix2_ntt`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(args: <names::Radix2Kernel as KernelAbi>::Args<$w>) {
            let t = global_thread_x();
            if t < args.total {
                let (towers, y) = (args.towers, block_y());
                let scalars = TowerConsts { parts: (args.q, args.k, args.m), barrett4: (args.q, 0) };
                // SAFETY: `y < gridDim.y`, and `towers.moduli` is null or holds a row for every
                // tower (the invariants of `Towers`, established by
                // `polymul::gpu::launch::TowerLaunch::towers` for
                // `polymul::plan::launch::radix2_ntt`).
                let c = unsafe { towers.consts(y, scalars) };
                let (q, k, m) = c.parts;
                let red = <$red>::from_parts(q, k, m);
                let tw = towers.twiddles(args.tw, y);
                // SAFETY: `t < total = batch · N/2`; tower `y`'s `a` holds `batch · N` words below
                // `q` and `tw` its `N` prepared twiddles (the invariants of `Radix2Args`,
                // established by `polymul::plan::launch::radix2_ntt`).
                unsafe { $body(towers.data(args.a, y), tw, t, args.log_n, args.log_m, &red) }
            }
        }
    };
}

/// A shared-memory pass kernel ([`tiled::TiledArgs`]: `strided` = 1:
/// stages `0..l1`, 0: stages `l1..log_n`; `log_radix`: stages per
/// shared-memory round trip, at most the kernel's own radix; `direct` = 1:
/// first/last step straight from/to global memory), one block per tile.
/// One kernel per largest radix, because a kernel's register budget is that
/// of its widest unit.
macro_rules! tiled_entry {
    ($w:ty, $red:ty, $name:expr, $inverse:literal, $max_log_radix:literal) => {
        const _: () = {
            /// # Safety
            /// The invariants of `TiledArgs` (see its doc), established by
            /// `polymul::plan::launch::tiled_passes`.
            #[unsafe(export_name = $name)]
            unsafe extern "ptx-kernel" fn kernel(args: <names::TiledKernel as KernelAbi>::Args<$w>) {
                let (towers, y) = (args.towers, block_y());
                let scalars = TowerConsts { parts: (args.q, args.k, args.m), barrett4: (args.q, 0) };
                // SAFETY: `y < gridDim.y`, and `towers.moduli` is null or holds a row for every
                // tower (the invariants of `Towers`, established by
                // `polymul::gpu::launch::TowerLaunch::towers` for
                // `polymul::plan::launch::tiled_passes`).
                let c = unsafe { towers.consts(y, scalars) };
                let (q, k, m) = c.parts;
                let red = <$red>::from_parts(q, k, m);
                let geo = args.geo;
                let tw = towers.twiddles(args.tw, y);
                let a = towers.data(args.a, y);
                let lr = if args.log_radix < $max_log_radix { args.log_radix } else { $max_log_radix };
                // SAFETY: the invariants of `TiledArgs` (see its doc) for tower `y`'s `a` and `tw`,
                // established by `polymul::plan::launch::tiled_passes`; `lr` is clamped to this
                // kernel's radix.
                unsafe {
                    tiled_pass::<_, _, $max_log_radix>(
                        a,
                        tw,
                        geo,
                        args.strided != 0,
                        $inverse,
                        lr,
                        args.direct != 0,
                        args.stop,
                        &red,
                    )
                }
            }
        };
    };
}

/// The tiled kernels of one reduction on one word: forward and inverse, for
/// each largest radix 2, 4, 8, 16 (`ntt_{fwd,inv}_tiled_r<R>_<red>_<word>`).
macro_rules! tiled_entries {
    ($w:ty, $red:ty, $rname:literal, $wname:literal) => {
        tiled_entry!($w, $red, concat!("ntt_fwd_tiled_r2_", $rname, "_", $wname), false, 1);
        tiled_entry!($w, $red, concat!("ntt_fwd_tiled_r4_", $rname, "_", $wname), false, 2);
        tiled_entry!($w, $red, concat!("ntt_fwd_tiled_r8_", $rname, "_", $wname), false, 3);
        tiled_entry!($w, $red, concat!("ntt_fwd_tiled_r16_", $rname, "_", $wname), false, 4);
        tiled_entry!($w, $red, concat!("ntt_inv_tiled_r2_", $rname, "_", $wname), true, 1);
        tiled_entry!($w, $red, concat!("ntt_inv_tiled_r4_", $rname, "_", $wname), true, 2);
        tiled_entry!($w, $red, concat!("ntt_inv_tiled_r8_", $rname, "_", $wname), true, 3);
        tiled_entry!($w, $red, concat!("ntt_inv_tiled_r16_", $rname, "_", $wname), true, 4);
    };
}

/// The fused Hadamard step of Algorithm 8 over `total = batch · N/2` pairs
/// ([`pointwise::FusedHadamardArgs`]): Karatsuba products with Algorithm 4,
/// the `α²` product with the plan's reduction and its prepared twiddle
/// table (first half only).
macro_rules! fused_entry {
    ($w:ty, $red:ty, $name:expr) => {
        const _: () = {
            /// # Safety
            /// The invariants of `FusedHadamardArgs` (see its doc), established by
            /// `polymul::plan::launch::fused_hadamard`.
            #[unsafe(export_name = $name)]
            unsafe extern "ptx-kernel" fn kernel(args: <names::FusedHadamardKernel as KernelAbi>::Args<$w>) {
                let t = global_thread_x();
                if t < args.total {
                    let (towers, y) = (args.towers, block_y());
                    let scalars =
                        TowerConsts { parts: (args.q, args.k, args.m), barrett4: (args.mu, args.qbits) };
                    // SAFETY: `y < gridDim.y`, and `towers.moduli` is null or holds a row for every
                    // tower (the invariants of `Towers`, established by
                    // `polymul::gpu::launch::TowerLaunch::towers` for
                    // `polymul::plan::launch::fused_hadamard`).
                    let c = unsafe { towers.consts(y, scalars) };
                    let (q, k, m) = c.parts;
                    let (mu, qbits) = c.barrett4;
                    let red = <$red>::from_parts(q, k, m);
                    let b4 = Barrett4::from_parts(q, mu, qbits);
                    let tw = towers.twiddles(args.tw, y);
                    let (a, b) = (towers.data(args.a, y), towers.data(args.b as *mut $w, y) as *const $w);
                    // SAFETY: `t < total = batch · N/2`; tower `y`'s `a` and `b` hold `batch · N`
                    // reduced words and `tw` its first `N/2` prepared twiddles (the invariants of
                    // `FusedHadamardArgs`, established by `polymul::plan::launch::fused_hadamard`).
                    unsafe { pointwise::fused_pair_at(a, b, tw, t, args.log_n, &red, &b4) }
                }
            }
        };
    };
}

/// A modular-multiplication microbenchmark kernel
/// ([`microbench::ModMulBenchArgs`]): `threads` threads, 4 chains each.
macro_rules! bench_entry {
    ($w:ty, $red:ty, $name:ident, $select:literal, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        /// The invariants of `ModMulBenchArgs` (see its doc), established by
        /// `polymul::microbench::modmul_bench`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(args: <names::ModMulBenchKernel as KernelAbi>::Args<$w>) {
            let t = global_thread_x();
            if t < args.threads {
                let red = <$red>::from_parts(args.q, args.k, args.m);
                // SAFETY: `t < threads`; `data` holds `CHAINS · threads` words below `q` and `ops`
                // (`ops_aux`) `threads` prepared words (the invariants of `ModMulBenchArgs`,
                // established by `polymul::microbench::ModMulBench::new` and `modmul_bench`).
                unsafe {
                    microbench::modmul_chains::<_, _, $select>(
                        args.data,
                        args.ops,
                        args.ops_aux,
                        t as usize,
                        args.iters,
                        &red,
                    )
                }
            }
        }
    };
}

/// Every kernel of one reduction on one word.
macro_rules! reduction_entries {
    ($w:ty, $red:ty, $rname:literal, $wname:literal, $fwd:ident, $inv:ident, $bench_if:ident, $bench_sel:ident) => {
        radix2_entry!($w, $red, $fwd, radix2::ct_butterfly, "One forward merged-CT radix-2 stage.");
        radix2_entry!(
            $w,
            $red,
            $inv,
            radix2::gs_butterfly_half,
            "One inverse merged-GS radix-2 stage (½-scaled)."
        );
        tiled_entries!($w, $red, $rname, $wname);
        fused_entry!($w, $red, concat!("fused_hadamard_", $rname, "_", $wname));
        bench_entry!($w, $red, $bench_if, false, "Microbenchmark, corrections written as `if`.");
        bench_entry!($w, $red, $bench_sel, true, "Microbenchmark, corrections by mask-and-subtract.");
    };
}

macro_rules! word_entries {
    ($w:ty, $wname:literal, $mul:ident, [$($red:ty, $rname:literal => $fwd:ident, $inv:ident, $bi:ident, $bs:ident;)*]) => {
        $(reduction_entries!($w, $red, $rname, $wname, $fwd, $inv, $bi, $bs);)*

        /// `out[i] = a[i] · b[i] mod q` for `i < len` (Algorithm 4), per
        /// tower (block row) with `data_words` words between towers
        /// ([`pointwise::PointwiseArgs`]).
        ///
        /// # Safety
        /// The invariants of `PointwiseArgs` (see its doc), established by
        /// `polymul::plan::launch::pointwise_mul`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $mul(args: <names::PointwiseKernel as KernelAbi>::Args<$w>) {
            let t = global_thread_x();
            if t < args.len {
                let (towers, y) = (args.towers, block_y());
                let scalars = TowerConsts { parts: (args.q, args.q, 0), barrett4: (args.mu, args.qbits) };
                // SAFETY: `y < gridDim.y`, and `towers.moduli` is null or holds a row for every
                // tower (the invariants of `Towers`, established by
                // `polymul::gpu::launch::TowerLaunch::towers` for
                // `polymul::plan::launch::pointwise_mul`).
                let c = unsafe { towers.consts(y, scalars) };
                let red = Barrett4::from_parts(c.parts.0, c.barrett4.0, c.barrett4.1);
                let (out, a) = (towers.data(args.out, y), towers.data(args.a as *mut $w, y) as *const $w);
                let b = towers.data(args.b as *mut $w, y) as *const $w;
                // SAFETY: `t < len <= data_words`: element `t` of tower `y` lies inside `out`, `a`
                // and `b` (`out` may be `a` exactly), its words below `q` (the invariants of
                // `PointwiseArgs`, established by `polymul::plan::launch::pointwise_mul` after
                // `polymul::layout::Towers::operands`).
                unsafe { pointwise::mul_at(out, a, b, t as usize, &red) }
            }
        }
    };
}

/// The ciphertext tensor product at every position of every tower
/// ([`crate::tensor::TensorArgs`]).
macro_rules! tensor_entry {
    ($w:ty, $name:ident) => {
        /// `(a0·b0, a0·b1 + a1·b0, a1·b1)` at position `t < len` of tower
        /// `y` (block row), Algorithm 4 products ([`crate::tensor::tensor_at`]).
        ///
        /// # Safety
        /// The invariants of `TensorArgs` (see its doc), established by
        /// `polymul::plan::launch::tensor`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(args: <names::TensorKernel as KernelAbi>::Args<$w>) {
            let t = global_thread_x();
            if t < args.len {
                let (towers, y) = (args.towers, block_y());
                let scalars = TowerConsts { parts: (args.q, args.q, 0), barrett4: (args.mu, args.qbits) };
                // SAFETY: `y < gridDim.y`, and `towers.moduli` is null or holds a row for every
                // tower (the invariants of `Towers`, established by
                // `polymul::gpu::launch::TowerLaunch::towers` for `polymul::plan::launch::tensor`).
                let c = unsafe { towers.consts(y, scalars) };
                let red = Barrett4::from_parts(c.parts.0, c.barrett4.0, c.barrett4.1);
                let a = towers.data(args.a as *mut $w, y) as *const $w;
                let b = towers.data(args.b as *mut $w, y) as *const $w;
                let out = args.out.wrapping_add(y as usize * args.out_words as usize);
                // SAFETY: `t < len = m · N`: position `t` of tower `y` lies inside `a`, `b`
                // (`2m · N` words each) and `out` (`3m · N`), which overlap no input; the inputs are
                // reduced (the invariants of `TensorArgs`, established by
                // `polymul::plan::launch::tensor` after `NttEngine::tensor_in_place`'s checks).
                unsafe { crate::tensor::tensor_at(out, a, b, t as usize, args.log_n, &red) }
            }
        }
    };
}

/// The reduction check of a device operand ([`crate::reduced::ReducedArgs`]).
macro_rules! reduced_entry {
    ($w:ty, $name:ident) => {
        /// Stores the launch's `tag` in `flag` where a word of tower `y` (block row) is not below
        /// the tower's modulus ([`crate::reduced::any_unreduced`]).
        ///
        /// # Safety
        /// The invariants of `ReducedArgs` (see its doc), established by
        /// `polymul::gpu::reduced::RangeCheck::queue`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(args: <names::ReducedKernel as KernelAbi>::Args<$w>) {
            let (towers, y) = (args.towers, block_y());
            let (block, thread, _) = crate::gpu::block_thread();
            let scalars = TowerConsts { parts: (args.q, args.q, 0), barrett4: (args.q, 0) };
            // SAFETY: `y < gridDim.y`, and `towers.moduli` is null or holds a row for every
            // tower (the invariants of `Towers`, established by
            // `polymul::gpu::launch::TowerLaunch::towers` for `RangeCheck::queue`).
            let q = unsafe { towers.consts(y, scalars) }.parts.0;
            let data = towers.data(args.data as *mut $w, y) as *const $w;
            // SAFETY: tower `y`'s `len` words lie inside `data` (the invariants of
            // `ReducedArgs`, established by `RangeCheck::queue`); nothing writes them during the
            // launch (it runs alone on its stream before the call that reads them).
            if unsafe { crate::reduced::any_unreduced(data, args.len, block as u32, thread as u32, q) } {
                // SAFETY: `flag` is a live `u32` the device may write (the invariants of `ReducedArgs`).
                unsafe { crate::gpu::store_sys(args.flag, args.tag) }
            }
        }
    };
}

reduced_entry!(u32, check_reduced_u32);
reduced_entry!(u64, check_reduced_u64);

tensor_entry!(u32, tensor_u32);
tensor_entry!(u64, tensor_u64);

word_entries!(u32, "u32", pointwise_mul_u32, [
    BuiltinRem<u32>, "rem" => ntt_fwd_radix2_stage_rem_u32, ntt_inv_radix2_stage_rem_u32,
        modmul_bench_if_rem_u32, modmul_bench_select_rem_u32;
    BarrettClassic<u32>, "barrett2" => ntt_fwd_radix2_stage_barrett2_u32, ntt_inv_radix2_stage_barrett2_u32,
        modmul_bench_if_barrett2_u32, modmul_bench_select_barrett2_u32;
    DhemQuisquater<u32>, "dq3" => ntt_fwd_radix2_stage_dq3_u32, ntt_inv_radix2_stage_dq3_u32,
        modmul_bench_if_dq3_u32, modmul_bench_select_dq3_u32;
    Barrett4<u32>, "barrett4" => ntt_fwd_radix2_stage_barrett4_u32, ntt_inv_radix2_stage_barrett4_u32,
        modmul_bench_if_barrett4_u32, modmul_bench_select_barrett4_u32;
    Montgomery<u32>, "montgomery" => ntt_fwd_radix2_stage_montgomery_u32, ntt_inv_radix2_stage_montgomery_u32,
        modmul_bench_if_montgomery_u32, modmul_bench_select_montgomery_u32;
    Shoup<u32>, "shoup" => ntt_fwd_radix2_stage_shoup_u32, ntt_inv_radix2_stage_shoup_u32,
        modmul_bench_if_shoup_u32, modmul_bench_select_shoup_u32;
]);

word_entries!(u64, "u64", pointwise_mul_u64, [
    BuiltinRem<u64>, "rem" => ntt_fwd_radix2_stage_rem_u64, ntt_inv_radix2_stage_rem_u64,
        modmul_bench_if_rem_u64, modmul_bench_select_rem_u64;
    BarrettClassic<u64>, "barrett2" => ntt_fwd_radix2_stage_barrett2_u64, ntt_inv_radix2_stage_barrett2_u64,
        modmul_bench_if_barrett2_u64, modmul_bench_select_barrett2_u64;
    DhemQuisquater<u64>, "dq3" => ntt_fwd_radix2_stage_dq3_u64, ntt_inv_radix2_stage_dq3_u64,
        modmul_bench_if_dq3_u64, modmul_bench_select_dq3_u64;
    Barrett4<u64>, "barrett4" => ntt_fwd_radix2_stage_barrett4_u64, ntt_inv_radix2_stage_barrett4_u64,
        modmul_bench_if_barrett4_u64, modmul_bench_select_barrett4_u64;
    Montgomery<u64>, "montgomery" => ntt_fwd_radix2_stage_montgomery_u64, ntt_inv_radix2_stage_montgomery_u64,
        modmul_bench_if_montgomery_u64, modmul_bench_select_montgomery_u64;
    Shoup<u64>, "shoup" => ntt_fwd_radix2_stage_shoup_u64, ntt_inv_radix2_stage_shoup_u64,
        modmul_bench_if_shoup_u64, modmul_bench_select_shoup_u64;
]);

/// Runs `$body` for `e` = 0, 1, … while `e < $n`, unrolled (at most 14: the
/// product pass of 5 steps), so that every step's shape is a constant.
macro_rules! unrolled_steps {
    ($n:expr, |$e:ident| $body:block) => {
        unrolled_steps!(@ $n, $e, $body, 0 1 2 3 4 5 6 7 8 9 10 11 12 13)
    };
    (@ $n:expr, $e:ident, $body:block, $($i:literal)*) => {
        $(
            if $i < $n {
                let $e: u32 = $i;
                $body
            }
        )*
    };
}

/// One lazy NTT pass kernel (`ntt::lazy`): `$l`-point sub-transforms,
/// radix up to `2^$lr`, rows or columns, forward, inverse or the product
/// pass, one tower per block row.
macro_rules! lazy_entry {
    ($w:ty, $name:expr, $mode:expr, $strided:literal, $l:literal, $lr:literal) => {
        lazy_entry!(@shape $w, $name, $mode, lazy::Shape::new($l, $lr, $strided, core::mem::size_of::<$w>()));
    };
    (@shape $w:ty, $name:expr, $mode:expr, $shape:expr) => {
        lazy_entry!(@shape $w, $name, $mode, $shape, false, false);
    };
    (@latency $w:ty, $name:expr, $mode:expr, $shape:expr) => {
        lazy_entry!(@shape $w, $name, $mode, $shape, false, true);
    };
    (@shape $w:ty, $name:expr, $mode:expr, $shape:expr, $computed:literal) => {
        lazy_entry!(@shape $w, $name, $mode, $shape, $computed, false);
    };
    (@tensor $w:ty, $name:expr, $shape:expr) => {
        lazy_entry!(@shape $w, $name, lazy::INVERSE, $shape, false, false, true);
    };
    (@shape $w:ty, $name:expr, $mode:expr, $shape:expr, $computed:literal, $latency:literal) => {
        lazy_entry!(@shape $w, $name, $mode, $shape, $computed, $latency, false);
    };
    (@shape $w:ty, $name:expr, $mode:expr, $shape:expr, $computed:literal, $latency:literal, $tensor:literal) => {
        const _: () = {
            /// # Safety The invariants of `LaunchArgs` (see its doc) for this pass: a grid of
            /// `⌈subs / S⌉ × towers` blocks (twice that for a forward pass with `b`) of
            /// `Shape::threads` threads and `lazy::pass_smem_words` words of dynamic shared memory;
            /// established by `polymul::plan::launch::lazy_pass`.
            #[unsafe(export_name = $name)]
            unsafe extern "ptx-kernel" fn kernel(args: <names::LazyKernel as KernelAbi>::Args<$w>) {
                const SHAPE: lazy::Shape = $shape;
                const STEPS: u32 = lazy::exec_steps(SHAPE, $mode, core::mem::size_of::<$w>());
                const _: () = assert!(STEPS <= 14, "unrolled_steps! unrolls 14 steps");
                let s = shared_tile();
                let (blk, t, _) = block_thread();
                // The host may launch the passes as programmatic dependents.
                grid_dependency_sync();
                // SAFETY: a non-null `args.moduli` holds a row for every tower
                // `block_y() < gridDim.y` (the invariants of `LaunchArgs`, established by
                // `polymul::plan::launch::LazyTables::launch_args` and `lazy_pass`).
                let a = unsafe { args.tower(block_y()) };
                // A forward pass with a second operand transforms both.
                let (a, blk) =
                    if $mode == lazy::FORWARD { a.pair_operand(SHAPE, blk as u32) } else { (a, blk as u32) };
                let mut held = [0 as $w; lazy::MAX_HELD];
                // The latency kernels' prefetched twiddles (unused by the others).
                let mut pre = lazy::Prefetch::<$w>::new();
                unrolled_steps!(STEPS, |e| {
                    // SAFETY: the invariants of `LaunchArgs` (see its doc) for this kernel's
                    // `SHAPE` and mode: the tower's data, `b` and tables sized for `log_n`, `blk`
                    // below the blocks of its operand (`pair_operand`), `t < SHAPE.threads()`,
                    // `pass_smem_words` words of shared memory, the steps in order with a barrier
                    // between them; established by `polymul::plan::launch::LazyTables::launch_args`
                    // and `lazy_pass`.
                    // With `$computed`, the tables are the computed row twiddles' (`LaunchArgs`,
                    // `LazyTwiddles::computed_rows`; the host launches this kernel only then).
                    // A latency kernel's `pre` holds what its earlier steps left.
                    // With `$tensor`, `ta` and `tb` hold the tensor product's inputs (`LaunchArgs`,
                    // a tensor-source pass; the host launches this kernel only then).
                    unsafe {
                        if $tensor {
                            lazy::step_tensor::<$w, _>(SHAPE, &a, &s, &mut held, blk, t as u32, e)
                        } else if $latency {
                            lazy::step_latency::<$w, _, { $mode }>(
                                SHAPE, &a, &s, &mut held, &mut pre, blk, t as u32, e,
                            )
                        } else {
                            lazy::step_with::<$w, _, { $mode }, $computed>(SHAPE, &a, &s, &mut held, blk, t as u32, e)
                        }
                    };
                    if e + 1 < STEPS {
                        sync();
                    }
                });
            }
        };
    };
}

/// The lazy kernels of one word, mode and pass kind for every `l` listed,
/// at radix 8 and 16.
macro_rules! lazy_entries {
    ($w:ty, $wname:literal, $dir:literal, $mode:expr, $kind:literal, $strided:literal, [$($l:literal),*]) => {
        $(
            lazy_entry!($w, concat!("ntt_lazy_", $dir, "_", $kind, "_l", $l, "_r3_", $wname), $mode, $strided, $l, 3);
            lazy_entry!($w, concat!("ntt_lazy_", $dir, "_", $kind, "_l", $l, "_r4_", $wname), $mode, $strided, $l, 4);
        )*
    };
}

/// The latency-shape kernels (`lazy::Shape::latency`: two sub-transforms
/// per block) of one word, mode and pass kind for every `l` listed, at
/// radix 4, 8 and 16.
macro_rules! lazy_latency_entries {
    ($w:ty, $wname:literal, $dir:literal, $mode:expr, $kind:literal, $strided:literal, [$($l:literal),*]) => {
        $(
            lazy_entry!(@latency $w, concat!("ntt_lazy_", $dir, "_", $kind, "_l", $l, "_r2_s1_", $wname), $mode,
                lazy::Shape::latency($l, 2, $strided));
            lazy_entry!(@latency $w, concat!("ntt_lazy_", $dir, "_", $kind, "_l", $l, "_r3_s1_", $wname), $mode,
                lazy::Shape::latency($l, 3, $strided));
            lazy_entry!(@latency $w, concat!("ntt_lazy_", $dir, "_", $kind, "_l", $l, "_r4_s1_", $wname), $mode,
                lazy::Shape::latency($l, 4, $strided));
        )*
    };
}

const _: () = assert!(lazy::LATENCY_LOG_S == 1, "the latency kernels' names say s1");
lazy_latency_entries!(u32, "u32", "fwd", lazy::FORWARD, "row", false, [5, 6, 7, 8]);
lazy_latency_entries!(u32, "u32", "inv", lazy::INVERSE, "row", false, [5, 6, 7, 8]);
lazy_latency_entries!(u32, "u32", "mul", lazy::PRODUCT, "row", false, [5, 6, 7, 8]);
lazy_latency_entries!(u32, "u32", "fwd", lazy::FORWARD, "col", true, [5, 6, 7, 8]);
lazy_latency_entries!(u32, "u32", "inv", lazy::INVERSE, "col", true, [5, 6, 7, 8]);
lazy_latency_entries!(u64, "u64", "fwd", lazy::FORWARD, "row", false, [5, 6, 7, 8]);
lazy_latency_entries!(u64, "u64", "inv", lazy::INVERSE, "row", false, [5, 6, 7, 8]);
lazy_latency_entries!(u64, "u64", "mul", lazy::PRODUCT, "row", false, [5, 6, 7, 8]);
lazy_latency_entries!(u64, "u64", "fwd", lazy::FORWARD, "col", true, [5, 6, 7, 8]);
lazy_latency_entries!(u64, "u64", "inv", lazy::INVERSE, "col", true, [5, 6, 7, 8]);

lazy_entries!(u32, "u32", "fwd", lazy::FORWARD, "row", false, [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
lazy_entries!(u32, "u32", "inv", lazy::INVERSE, "row", false, [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
lazy_entries!(u32, "u32", "mul", lazy::PRODUCT, "row", false, [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
// The one-pass rows of 2^14 `u32` words (64 KiB tiles): radix 16 only (1024 threads).
lazy_entry!(u32, "ntt_lazy_fwd_row_l14_r4_u32", lazy::FORWARD, false, 14, 4);
lazy_entry!(u32, "ntt_lazy_inv_row_l14_r4_u32", lazy::INVERSE, false, 14, 4);
lazy_entry!(u32, "ntt_lazy_mul_row_l14_r4_u32", lazy::PRODUCT, false, 14, 4);
lazy_entries!(u32, "u32", "fwd", lazy::FORWARD, "col", true, [5, 6, 7, 8]);
lazy_entries!(u32, "u32", "inv", lazy::INVERSE, "col", true, [5, 6, 7, 8]);
lazy_entries!(u64, "u64", "fwd", lazy::FORWARD, "row", false, [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
lazy_entries!(u64, "u64", "inv", lazy::INVERSE, "row", false, [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
lazy_entries!(u64, "u64", "mul", lazy::PRODUCT, "row", false, [3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13]);
lazy_entries!(u64, "u64", "fwd", lazy::FORWARD, "col", true, [5, 6, 7, 8]);
lazy_entries!(u64, "u64", "inv", lazy::INVERSE, "col", true, [5, 6, 7, 8]);

/// The computed-row-twiddle row kernels (`lazy::has_computed_rows`,
/// `names::LazyKernel::computed`) of one word and mode for every `(l,
/// log_r)` listed: the full-tile row passes an `RnsPlan` runs at N = 2^16.
macro_rules! lazy_computed_entries {
    ($w:ty, $wname:literal, $dir:literal, $mode:expr, [$(($l:literal, $lr:literal)),*]) => {
        $(
            const _: () = assert!(lazy::has_computed_rows(core::mem::size_of::<$w>(), $mode, $l, $lr));
            lazy_entry!(@shape $w, concat!("ntt_lazy_", $dir, "_row_l", $l, "_r", $lr, "_c_", $wname), $mode,
                lazy::Shape::new($l, $lr, false, core::mem::size_of::<$w>()), true);
        )*
    };
}

/// The tensor-source inverse row kernels (`lazy::has_tensor_rows`,
/// `names::LazyKernel::tensor`) of one word for every `(l, log_r)` listed.
macro_rules! lazy_tensor_entries {
    ($w:ty, $wname:literal, [$(($l:literal, $lr:literal)),*]) => {
        $(
            const _: () = assert!(lazy::has_tensor_rows(core::mem::size_of::<$w>(), lazy::INVERSE, $l, $lr));
            lazy_entry!(@tensor $w, concat!("ntt_lazy_inv_row_l", $l, "_r", $lr, "_t_", $wname),
                lazy::Shape::new($l, $lr, false, core::mem::size_of::<$w>()));
        )*
    };
}

lazy_tensor_entries!(u32, "u32", [(8, 4)]);
lazy_tensor_entries!(u64, "u64", [(8, 3)]);

lazy_computed_entries!(u32, "u32", "fwd", lazy::FORWARD, [(8, 4)]);
lazy_computed_entries!(u32, "u32", "inv", lazy::INVERSE, [(8, 4)]);
lazy_computed_entries!(u32, "u32", "mul", lazy::PRODUCT, [(8, 4)]);
lazy_computed_entries!(u64, "u64", "fwd", lazy::FORWARD, [(8, 3)]);
lazy_computed_entries!(u64, "u64", "inv", lazy::INVERSE, [(8, 3)]);
lazy_computed_entries!(u64, "u64", "mul", lazy::PRODUCT, [(8, 4)]);

/// One fused lazy transform (`lazy::fused_item`): both passes of a
/// two-pass transform of `2^$log_n` words in one launch. Each block takes a
/// ticket; a first-pass block runs its pass and then counts itself done for
/// its polynomial (after a barrier, one thread's release); a second-pass
/// block waits until every first-pass block of its polynomials is done, then
/// runs its pass reading from L2. The first pass's words stay in L2 between
/// the two (the second pass of a polynomial trails its first by `args.lag`
/// polynomials), so device memory sees each word read once and written
/// once, instead of twice each. The last block to finish zeroes the
/// control words for the next launch.
macro_rules! fused_entry {
    ($w:ty, $name:expr, $inv:literal, $log_n:literal, $lr:literal) => {
        const _: () = {
            /// # Safety The invariants of `LaunchArgs` (see its doc) for a fused launch:
            /// `2 · batch · fused_per_poly` × towers blocks of `Shape::threads` threads, the
            /// passes' larger tile plus 16 bytes of dynamic shared memory, `args.subs` = batch,
            /// `args.lag` at least the row pass's polynomials per block and `args.ctrl` holding
            /// `fused_ctrl_words(batch)` zero words per tower; established by
            /// `polymul::plan::launch::fused_ntt`.
            #[unsafe(export_name = $name)]
            unsafe extern "ptx-kernel" fn kernel(args: <names::FusedKernel as KernelAbi>::Args<$w>) {
                use lazy::Shape;
                const WB: usize = core::mem::size_of::<$w>();
                const SPLIT: (u32, u32) = match lazy::split($log_n, lazy::tile_words(WB).trailing_zeros()) {
                    Some(s) => s,
                    None => (0, 0),
                };
                const COL: Shape = Shape::new(SPLIT.0, $lr, true, WB);
                const ROW: Shape = Shape::new(SPLIT.1, $lr, false, WB);
                const FIRST: Shape = if $inv { ROW } else { COL };
                const SECOND: Shape = if $inv { COL } else { ROW };
                const MODE: u8 = if $inv { lazy::INVERSE } else { lazy::FORWARD };
                // A staged row end (`lazy::staged_last_end`) is a step of its own.
                const STEPS1: u32 = lazy::exec_steps(FIRST, MODE, WB);
                const STEPS2: u32 = lazy::exec_steps(SECOND, MODE, WB);
                const PER_POLY: u32 = lazy::fused_per_poly($log_n, WB);
                const SLOT: u32 = lazy::fused_smem_words(COL, ROW, WB) * WB as u32;
                const _: () = assert!(SPLIT.0 > 0 && COL.threads() == ROW.threads());
                let base = shared_tile().base;
                let s = DeviceShared { base };
                let slot = DeviceShared { base: base + SLOT };
                let (_, t, _) = block_thread();
                let t = t as u32;
                let y = block_y();
                // SAFETY: as in the pass kernels (the invariants of `LaunchArgs`), established by
                // `polymul::plan::launch::fused_ntt`.
                let mut a = unsafe { args.tower(y) };
                let batch = args.subs;
                let ctrl = args.ctrl.wrapping_add(y as usize * lazy::fused_ctrl_words(batch as usize));
                if t == 0 {
                    // SAFETY: `ctrl` is this tower's `fused_ctrl_words(batch)` control words, word
                    // 0 the ticket counter (the invariants of `LaunchArgs`, established by
                    // `polymul::plan::launch::fused_ntt`).
                    let tk = unsafe { atomic_inc(ctrl) };
                    // SAFETY: `slot` starts at byte `SLOT` of the dynamic shared memory, of which
                    // the launch provides `SLOT + 16` bytes (`polymul::plan::launch::fused_ntt`).
                    unsafe { crate::smem::Shared::<u32>::st_at(&slot, 0, tk) };
                }
                sync();
                // SAFETY: the same shared word, written by thread 0 before the barrier.
                let tk: u32 = unsafe { crate::smem::Shared::<u32>::ld_at(&slot, 0) };
                let (second, blk) = lazy::fused_item(tk, batch, PER_POLY, args.lag);
                // The row pass may hold rows of several polynomials per block.
                let lp = lazy::clamp_polys_log(ROW, $log_n, args.log_polys);
                let target = lazy::fused_target($inv, lp, PER_POLY);
                let shape = if second { SECOND } else { FIRST };
                let (p0, np) = lazy::fused_polys(!shape.strided, lp, blk, PER_POLY);
                a.log_polys = if shape.strided { 0 } else { lp };
                if !second {
                    a.subs = batch << ($log_n - FIRST.l);
                    let mut held = [0 as $w; lazy::MAX_HELD];
                    unrolled_steps!(STEPS1, |e| {
                        // SAFETY: the invariants of `LaunchArgs` for the first pass (established by
                        // `polymul::plan::launch::fused_ntt`): `blk < batch · PER_POLY`
                        // (`fused_item`), `a.subs` the pass's sub-transforms, `t` below
                        // `FIRST.threads()` (= `ROW.threads()`, asserted), shared memory for the
                        // larger tile.
                        unsafe { lazy::step::<$w, _, { MODE }>(FIRST, &a, &s, &mut held, blk, t, e) };
                        if e + 1 < STEPS1 {
                            sync();
                        }
                    });
                    // Every thread's stores, then one release for the block.
                    sync();
                    if t < np {
                        // SAFETY: `p0 + t < p0 + np <= batch` (`fused_polys`), so word `2 + p0 + t`
                        // is inside the tower's `fused_ctrl_words(batch) = batch + 2` control words
                        // (established by `polymul::plan::launch::fused_ntt`).
                        unsafe { release_inc(ctrl.add(2 + (p0 + t) as usize)) };
                    }
                } else {
                    if t < np {
                        // SAFETY: a counter inside the tower's control words, as above. The blocks
                        // that raise it took earlier tickets (`fused_item`; `args.lag` at least a
                        // row block's polynomials, `polymul::plan::launch::FusedKernels::lag`), so
                        // they are running or done and the wait ends.
                        unsafe { wait_at_least(ctrl.add(2 + (p0 + t) as usize), target) };
                    }
                    sync();
                    a.subs = batch << ($log_n - SECOND.l);
                    unrolled_steps!(STEPS2, |e| {
                        // SAFETY: the invariants of `LaunchArgs` for the second pass, as for the
                        // first; every first-pass block of the block's polynomials released its
                        // counter, which `wait_at_least` acquired before the barrier, so their
                        // stores are visible to the L2 loads.
                        unsafe { lazy::step_l2::<$w, _, { MODE }>(SECOND, &a, &s, blk, t, e) };
                        if e + 1 < STEPS2 {
                            sync();
                        }
                    });
                }
                if t == 0 {
                    // SAFETY: word 1, the finished-block counter, of the tower's control words
                    // (established by `polymul::plan::launch::fused_ntt`).
                    let done = unsafe { atomic_inc(ctrl.add(1)) };
                    if done + 1 == 2 * batch * PER_POLY {
                        // Every block has passed its wait: zero the words
                        // for the next launch (stream order makes the
                        // stores visible to it).
                        for k in 0..lazy::fused_ctrl_words(batch as usize) {
                            // SAFETY: `k < fused_ctrl_words(batch)`: inside the tower's control
                            // words; every block has passed its wait, so none reads them again in
                            // this launch.
                            unsafe { core::ptr::write_volatile(ctrl.add(k), 0) };
                        }
                    }
                }
            }
        };
    };
}

/// The fused kernels of one word and radix for every size listed.
macro_rules! fused_entries {
    ($w:ty, $wname:literal, $lr:literal, [$($n:literal),*]) => {
        $(
            fused_entry!($w, concat!("ntt_lazy_fwd_fus_n", $n, "_r", $lr, "_", $wname), false, $n, $lr);
            fused_entry!($w, concat!("ntt_lazy_inv_fus_n", $n, "_r", $lr, "_", $wname), true, $n, $lr);
        )*
    };
}

fused_entries!(u32, "u32", 3, [15, 16, 17, 18, 19, 20, 21]);
fused_entries!(u32, "u32", 4, [15, 16, 17, 18, 19, 20, 21]);

/// One cluster kernel (`ntt::cluster`): the whole lazy transform of
/// `2^$log_n` words in one pass over global memory, `2^$lcs` blocks per
/// thread-block cluster, radix up to `2^$lr`.
#[cfg(target_feature = "sm_90")]
macro_rules! cluster_entry {
    ($w:ty, $name:expr, $inv:literal, $log_n:literal, $l1:literal, $lcs:literal, $lr:literal) => {
        const _: () = {
            /// # Safety
            /// The invariants of `LaunchArgs` (see its doc) for a cluster launch: clusters of
            /// `2^$lcs` blocks along x, `batch · 2^$lcs` blocks by `towers` rows,
            /// `ClusterShape::threads` threads and `ClusterShape::smem_words` words of dynamic
            /// shared memory, `args.subs` = batch; established by
            /// `polymul::plan::launch::cluster_ntt`.
            #[unsafe(export_name = $name)]
            unsafe extern "ptx-kernel" fn kernel(args: <names::ClusterKernel as KernelAbi>::Args<$w>) {
                use crate::ntt::cluster::{ClusterShape, ToCols, ToRows};
                use crate::smem::DeviceCluster;
                const C: ClusterShape = ClusterShape::new($log_n, $l1, $lcs, $lr);
                const WB: usize = core::mem::size_of::<$w>();
                const COL_STEPS: u32 = C.col.steps();
                const ROW_STEPS: u32 = C.row.steps();
                let cols = shared_tile();
                let rows = DeviceShared { base: cols.base + C.col_words(WB) * WB as u32 };
                let (blk, t, _) = block_thread();
                let (blk, t) = (blk as u32, t as u32);
                // SAFETY: as in the pass kernels (the invariants of `LaunchArgs`), established by
                // `polymul::plan::launch::cluster_ntt`.
                let mut a = unsafe { args.tower(block_y()) };
                let batch = args.subs;
                // Distributed shared memory may be written only once every
                // block of the cluster runs: arrive now, wait before the
                // first pass's last step (its remote stores).
                cluster_arrive();
                if !$inv {
                    a.subs = batch << ($log_n - $l1);
                    let sink = ToRows {
                        tiles: DeviceCluster { base: rows.base },
                        shape: C,
                        log_pad: C.row.log_pad(WB),
                    };
                    unrolled_steps!(COL_STEPS, |e| {
                        if e + 1 == COL_STEPS {
                            cluster_wait();
                        }
                        // SAFETY: the invariants of `LaunchArgs` for the cluster shape `C`
                        // (established by `polymul::plan::launch::cluster_ntt`: clusters of `2^lcs`
                        // blocks, `ClusterShape::threads` threads, `ClusterShape::smem_words` words
                        // of shared memory), `a.subs` the column pass's; the sink writes the peers'
                        // row tiles only after `cluster_wait`.
                        unsafe {
                            lazy::step_io::<$w, _, _, { lazy::FORWARD }>(
                                C.col, &a, &cols, &sink, true, blk, t, e,
                            )
                        };
                        if e + 1 < COL_STEPS {
                            sync();
                        }
                    });
                    cluster_sync();
                    a.subs = batch << $l1;
                    unrolled_steps!(ROW_STEPS, |e| {
                        // SAFETY: as above, for the row pass on its tile `rows`, which the cluster
                        // barrier (`cluster_sync`) above made complete and visible.
                        unsafe {
                            lazy::step_io::<$w, _, _, { lazy::FORWARD }>(
                                C.row,
                                &a,
                                &rows,
                                &lazy::ToGlobal,
                                false,
                                blk,
                                t,
                                e,
                            )
                        };
                        if e + 1 < ROW_STEPS {
                            sync();
                        }
                    });
                } else {
                    a.subs = batch << $l1;
                    let sink = ToCols { tiles: DeviceCluster { base: cols.base }, shape: C };
                    unrolled_steps!(ROW_STEPS, |e| {
                        if e + 1 == ROW_STEPS {
                            cluster_wait();
                        }
                        // SAFETY: the invariants of `LaunchArgs` for the cluster shape `C`
                        // (established by `polymul::plan::launch::cluster_ntt`, as in the forward
                        // branch), `a.subs` the row pass's; the sink writes the peers' column tiles
                        // only after `cluster_wait`.
                        unsafe {
                            lazy::step_io::<$w, _, _, { lazy::INVERSE }>(
                                C.row, &a, &rows, &sink, true, blk, t, e,
                            )
                        };
                        if e + 1 < ROW_STEPS {
                            sync();
                        }
                    });
                    cluster_sync();
                    a.subs = batch << ($log_n - $l1);
                    unrolled_steps!(COL_STEPS, |e| {
                        // SAFETY: as above, for the column pass on its tile `cols`, which the
                        // cluster barrier (`cluster_sync`) above made complete and visible.
                        unsafe {
                            lazy::step_io::<$w, _, _, { lazy::INVERSE }>(
                                C.col,
                                &a,
                                &cols,
                                &lazy::ToGlobal,
                                false,
                                blk,
                                t,
                                e,
                            )
                        };
                        if e + 1 < COL_STEPS {
                            sync();
                        }
                    });
                }
            }
        };
    };
}

#[cfg(target_feature = "sm_90")]
cluster_entry!(u32, "ntt_lazy_fwd_clu_n16_r3_u32", false, 16, 8, 3, 3);
#[cfg(target_feature = "sm_90")]
cluster_entry!(u32, "ntt_lazy_fwd_clu_n16_r4_u32", false, 16, 8, 3, 4);
#[cfg(target_feature = "sm_90")]
cluster_entry!(u32, "ntt_lazy_inv_clu_n16_r3_u32", true, 16, 8, 3, 3);
#[cfg(target_feature = "sm_90")]
cluster_entry!(u32, "ntt_lazy_inv_clu_n16_r4_u32", true, 16, 8, 3, 4);
#[cfg(target_feature = "sm_90")]
cluster_entry!(u64, "ntt_lazy_fwd_clu_n16_r3_u64", false, 16, 8, 3, 3);
#[cfg(target_feature = "sm_90")]
cluster_entry!(u64, "ntt_lazy_fwd_clu_n16_r4_u64", false, 16, 8, 3, 4);
#[cfg(target_feature = "sm_90")]
cluster_entry!(u64, "ntt_lazy_inv_clu_n16_r3_u64", true, 16, 8, 3, 3);
#[cfg(target_feature = "sm_90")]
cluster_entry!(u64, "ntt_lazy_inv_clu_n16_r4_u64", true, 16, 8, 3, 4);

/// The lazy-butterfly compute floor (`microbench::lazy_butterflies`,
/// [`microbench::ButterflyFloorArgs`]): thread `t` stores its result at
/// `out[t]`.
macro_rules! floor_entry {
    ($w:ty, $name:ident) => {
        /// # Safety
        /// The invariants of `ButterflyFloorArgs` (`args.out` holds one word per launched thread),
        /// established by `polymul::Gpu::lazy_butterfly_rate`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(args: <names::ButterflyFloorKernel as KernelAbi>::Args<$w>) {
            let t = global_thread_x();
            let w = crate::arith::harvey::ShoupPair { w: args.w, wp: args.wp };
            let r = microbench::lazy_butterflies(t, w, args.q, args.rounds);
            // SAFETY: `t` is this thread's global index and `args.out` holds one word per launched
            // thread (the invariants of `ButterflyFloorArgs`, established by
            // `polymul::Gpu::lazy_butterfly_rate`).
            unsafe { crate::gmem::Gmem::st(args.out.add(t as usize), r) };
        }
    };
}

/// The launch floor: waits for the previous kernel (as every pass kernel
/// does first) and ends. A chain of `k` of these, launched as the passes
/// are, costs what `k` launches cost however little they compute.
#[unsafe(no_mangle)]
pub extern "ptx-kernel" fn launch_floor() {
    grid_dependency_sync();
}

floor_entry!(u32, butterfly_floor_u32);
floor_entry!(u64, butterfly_floor_u64);

/// The body of `dgt_encode_*` (`DECODE = false`, `table` = weights) and
/// `dgt_decode_*` (`true`, inverse weights): element `t` of the batch in
/// tower `blockIdx.z`.
///
/// # Safety
/// The invariants of `DgtCodecArgs` (see its doc), established by `polymul::dgt::launch::dgt_code`.
#[inline(always)]
unsafe fn dgt_codec<W: crate::gmem::Gmem, const DECODE: bool>(a: dgt::codec::DgtCodecArgs<W>) {
    let t = global_thread_x();
    if t < a.total {
        let (towers, z) = (a.towers, block_z());
        // SAFETY: `z < gridDim.z`, and `towers.moduli` is null or holds a row for every tower (the
        // invariants of `Towers`, established by `polymul::gpu::launch::TowerLaunch::towers` for
        // `polymul::dgt::launch::dgt_code`).
        let c = unsafe { towers.consts(z, TowerConsts { parts: (a.p, a.p, 0), barrett4: (a.p, 0) }) };
        let red = Shoup::<W>::from_parts(c.parts.0, c.parts.1, c.parts.2);
        let geo0 = dgt::layout::PassGeometry { log_m: a.log_m, s0: 0, s1: a.s1, log_cluster: 0, log_unit: 0 };
        let off = ((t >> a.log_m) as usize) << (a.log_m + 1);
        let src = towers.data(a.src as *mut W, z).wrapping_add(off) as *const W;
        let dst = towers.data(a.dst, z).wrapping_add(off);
        let base = a.table.wrapping_add(z as usize * towers.tw_words as usize);
        let w = dgt::pass::GaussTable { base, len: 1 << a.log_m };
        // SAFETY: `t < total = batch · M`: element `t mod M` of polynomial `t / M` lies inside
        // tower `z`'s `src` and `dst` (`batch · 2M` words each), and `w` holds the tower's `M`
        // weights (the invariants of `DgtCodecArgs`, established by
        // `polymul::dgt::launch::dgt_code`).
        unsafe {
            dgt::codec::codec::<W, Shoup<W>, DECODE>(src, dst, &geo0, t & ((1 << a.log_m) - 1), &w, &red)
        }
    }
}

/// The body of the DGT pass kernels: block `blockIdx.x` of tower
/// `blockIdx.y`, its phases ([`dgt::pass::DgtBlock::phase`]) with a
/// barrier after each.
///
/// # Safety
/// The invariants of `DgtArgs` (see its doc) with `OP = args.op`, established by
/// `polymul::dgt::schedule::pass_args` and `polymul::dgt::launch::dgt_pass`.
#[inline(always)]
unsafe fn dgt_pass<W: crate::gmem::Gmem, const OP: u32, const UNIT: bool>(args: dgt::pass::DgtArgs<W>)
where
    DeviceShared: crate::smem::Shared<W>,
{
    grid_dependency_sync();
    let (blk, t, _) = block_thread();
    // SAFETY: a non-null `args.moduli` holds a row for every tower `block_y() < gridDim.y` (the
    // invariants of `DgtArgs`, established by `polymul::dgt::schedule::pass_args` and
    // `polymul::dgt::launch::dgt_pass`).
    let block = unsafe { args.block(blk as u32, block_y()) };
    let s = shared_tile();
    let mut next = dgt::pass::no_twiddle();
    for ph in 0..args.phases_for::<UNIT>() {
        // SAFETY: the invariants of `DgtArgs` (see its doc): `OP` is `args.op` and `UNIT`
        // `args.units()`, `t < args.threads()`, buffers, tables and shared memory sized for
        // `args.geo`, the phases in order with a barrier after each; established by
        // `polymul::dgt::schedule::pass_args` and `polymul::dgt::launch::dgt_pass`.
        unsafe { block.phase::<OP, UNIT, _>(&s, ph, t as u32, &mut next) };
        sync();
    }
}

/// The DGT kernels of one word (Coala): a shared-memory pass, encoding,
/// decoding and the pointwise Gaussian product. Twiddle products use Shoup,
/// data products Algorithm 4. RNS towers are the grid's z axis (Coala's
/// `GridDim.z`), with the same tower arguments as the NTT kernels.
macro_rules! dgt_entries {
    (
        $w:ty,
        $fwd:ident,
        $inv:ident,
        $mul:ident,
        ($ufwd:ident, $uinv:ident, $umul:ident),
        $encode:ident,
        $decode:ident,
        $pointwise:ident
    ) => {
        /// One DGT pass launch ([`dgt::pass::DgtArgs`]) doing a pass's
        /// forward stages over every polynomial: grid x =
        /// [`dgt::pass::DgtArgs::blocks`], y = towers. Waits for the
        /// previous kernel before touching memory, so it may be launched
        /// as a programmatic dependent.
        ///
        /// # Safety
        /// The invariants of `DgtArgs` (see its doc) with `args.op` = `Op::Forward`, established by
        /// `polymul::dgt::schedule::pass_args` and `polymul::dgt::launch::dgt_pass`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $fwd(args: <names::DgtPassKernel as KernelAbi>::Args<$w>) {
            // SAFETY: `dgt_pass`'s contract is this kernel's: the invariants of `DgtArgs` with
            // `args.op == Op::Forward` (established by `polymul::dgt::launch::dgt_pass`, which
            // picks the kernel by `op`).
            unsafe { dgt_pass::<$w, { dgt::pass::Op::Forward as u32 }, false>(args) }
        }

        /// As the forward kernel, for `Op::Inverse`.
        ///
        /// # Safety
        /// As the forward kernel's.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $inv(args: <names::DgtPassKernel as KernelAbi>::Args<$w>) {
            // SAFETY: `dgt_pass`'s contract is this kernel's: the invariants of `DgtArgs` with
            // `args.op == Op::Inverse` (established by `polymul::dgt::launch::dgt_pass`, which
            // picks the kernel by `op`).
            unsafe { dgt_pass::<$w, { dgt::pass::Op::Inverse as u32 }, false>(args) }
        }

        /// As the forward kernel, for `Op::Polymul`.
        ///
        /// # Safety
        /// As the forward kernel's.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $mul(args: <names::DgtPassKernel as KernelAbi>::Args<$w>) {
            // SAFETY: `dgt_pass`'s contract is this kernel's: the invariants of `DgtArgs` with
            // `args.op == Op::Polymul` (established by `polymul::dgt::launch::dgt_pass`, which
            // picks the kernel by `op`).
            unsafe { dgt_pass::<$w, { dgt::pass::Op::Polymul as u32 }, false>(args) }
        }

        /// As the forward kernel, for a pass with register units
        /// (`args.geo.units()`, [`dgt::unit`]).
        ///
        /// # Safety
        /// As the forward kernel's, with `args.units()`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $ufwd(args: <names::DgtPassKernel as KernelAbi>::Args<$w>) {
            // SAFETY: `dgt_pass`'s contract is this kernel's: the invariants of `DgtArgs` with
            // `args.op == Op::Forward` and `args.units()` (established by
            // `polymul::dgt::launch::dgt_pass`, which picks the kernel by both).
            unsafe { dgt_pass::<$w, { dgt::pass::Op::Forward as u32 }, true>(args) }
        }

        /// As the units forward kernel, for `Op::Inverse`.
        ///
        /// # Safety
        /// As the units forward kernel's.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $uinv(args: <names::DgtPassKernel as KernelAbi>::Args<$w>) {
            // SAFETY: `dgt_pass`'s contract is this kernel's: the invariants of `DgtArgs` with
            // `args.op == Op::Inverse` and `args.units()` (established by
            // `polymul::dgt::launch::dgt_pass`, which picks the kernel by both).
            unsafe { dgt_pass::<$w, { dgt::pass::Op::Inverse as u32 }, true>(args) }
        }

        /// As the units forward kernel, for `Op::Polymul`.
        ///
        /// # Safety
        /// As the units forward kernel's.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $umul(args: <names::DgtPassKernel as KernelAbi>::Args<$w>) {
            // SAFETY: `dgt_pass`'s contract is this kernel's: the invariants of `DgtArgs` with
            // `args.op == Op::Polymul` and `args.units()` (established by
            // `polymul::dgt::launch::dgt_pass`, which picks the kernel by both).
            unsafe { dgt_pass::<$w, { dgt::pass::Op::Polymul as u32 }, true>(args) }
        }

        /// DGT encoding of `total = batch · M` elements into `dst` (weights,
        /// packing for the first pass `(log_m, 0, s1)`;
        /// [`dgt::codec::DgtCodecArgs`], `table` = the weights).
        ///
        /// # Safety
        /// The invariants of `DgtCodecArgs` (see its doc), established by
        /// `polymul::dgt::launch::dgt_code`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $encode(args: <names::DgtCodecKernel as KernelAbi>::Args<$w>) {
            // SAFETY: `dgt_codec`'s contract is this kernel's: the invariants of `DgtCodecArgs`
            // (established by `polymul::dgt::launch::dgt_code`).
            unsafe { dgt_codec::<$w, false>(args) }
        }

        /// DGT decoding of `total = batch · M` elements into `dst`
        /// ([`dgt::codec::DgtCodecArgs`], `table` = the inverse weights).
        ///
        /// # Safety
        /// The invariants of `DgtCodecArgs` (see its doc), established by
        /// `polymul::dgt::launch::dgt_code`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $decode(args: <names::DgtCodecKernel as KernelAbi>::Args<$w>) {
            // SAFETY: `dgt_codec`'s contract is this kernel's: the invariants of `DgtCodecArgs`
            // (established by `polymul::dgt::launch::dgt_code`).
            unsafe { dgt_codec::<$w, true>(args) }
        }

        /// `a ← a · b` (Gaussian, per element) over `total = batch · M`
        /// ([`dgt::codec::DgtPointwiseArgs`]).
        ///
        /// # Safety
        /// The invariants of `DgtPointwiseArgs` (see its doc), established by
        /// `polymul::dgt::launch::dgt_pointwise`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $pointwise(
            args: <names::DgtPointwiseKernel as KernelAbi>::Args<$w>,
        ) {
            let t = global_thread_x();
            if t < args.total {
                let (towers, z, log_m) = (args.towers, block_z(), args.log_m);
                let scalars = TowerConsts { parts: (args.p, args.p, 0), barrett4: (args.mu, args.qbits) };
                // SAFETY: `z < gridDim.z`, and `towers.moduli` is null or holds a row for every
                // tower (the invariants of `Towers`, established by
                // `polymul::gpu::launch::TowerLaunch::towers` for
                // `polymul::dgt::launch::dgt_pointwise`).
                let c = unsafe { towers.consts(z, scalars) };
                let red = Barrett4::from_parts(c.parts.0, c.barrett4.0, c.barrett4.1);
                let off = ((t >> log_m) as usize) << (log_m + 1);
                let a = towers.data(args.a, z).wrapping_add(off);
                let b = towers.data(args.b as *mut $w, z).wrapping_add(off) as *const $w;
                // SAFETY: `t < total = batch · M`: element `t mod M` of polynomial `t / M` lies
                // inside tower `z`'s `a` and `b` (`batch · 2M` words each) (the invariants of
                // `DgtPointwiseArgs`, established by `polymul::dgt::launch::dgt_pointwise`).
                unsafe { dgt::codec::pointwise(a, b, 1 << log_m, (t & ((1 << log_m) - 1)) as usize, &red) }
            }
        }
    };
}

dgt_entries!(
    u32,
    dgt_forward_u32,
    dgt_inverse_u32,
    dgt_polymul_u32,
    (dgt_forward_units_u32, dgt_inverse_units_u32, dgt_polymul_units_u32),
    dgt_encode_u32,
    dgt_decode_u32,
    dgt_pointwise_u32
);
dgt_entries!(
    u64,
    dgt_forward_u64,
    dgt_inverse_u64,
    dgt_polymul_u64,
    (dgt_forward_units_u64, dgt_inverse_units_u64, dgt_polymul_units_u64),
    dgt_encode_u64,
    dgt_decode_u64,
    dgt_pointwise_u64
);

/// The RNS conversion kernels of one word (`crate::rns`): decomposition of
/// big-integer limbs into residues and CRT reconstruction, `B` coefficients
/// per block staged through the dynamic shared memory.
macro_rules! rns_entries {
    ($w:ty, $dec:ident, $crt:ident, $cols:ident, $cols192:ident) => {
        /// Limbs → tower-major residues ([`crate::rns::decompose::DecomposeArgs`]):
        /// the block's limbs into shared rows, a barrier, then each thread's
        /// residues of every tower.
        ///
        /// # Safety
        /// The invariants of `DecomposeArgs` (see its doc: buffers, table, `⌈count / B⌉` blocks of
        /// `B · 2^log_groups` threads, `B · padded_stride(l)` words of shared memory), established
        /// by `polymul::rns::convert::DeviceConvert::decompose`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $dec(args: <names::RnsDecomposeKernel as KernelAbi>::Args<$w>) {
            let (blk, t, nt) = block_thread();
            let s = shared_tile();
            // SAFETY: the invariants of `DecomposeArgs` (see its doc): buffers, table, grid and
            // shared memory, established by `polymul::rns::convert::DeviceConvert::decompose`.
            unsafe { crate::rns::decompose::load(&args, &s, blk as u32, t as u32, nt as u32) };
            sync();
            // SAFETY: as for `load`; the barrier above completed the block's shared rows.
            unsafe { crate::rns::decompose::residues(&args, &s, blk as u32, t as u32, nt as u32) };
        }

        /// Tower-major residues → limbs in `[0, Q)`
        /// ([`crate::rns::crt::CrtArgs`]): each thread's coefficient into its
        /// shared row, a barrier, then the block's limbs to global memory.
        ///
        /// # Safety
        /// The invariants of `CrtArgs` (see its doc: buffers, table, `⌈count / B⌉` blocks of `B`
        /// threads, `crate::rns::crt::shared_bytes` of shared memory), established by
        /// `polymul::rns::convert::DeviceConvert::reconstruct`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $crt(args: <names::RnsCrtKernel as KernelAbi>::Args<$w>) {
            let (blk, t, nt) = block_thread();
            let s = shared_tile();
            let limb_bytes = nt as u32 * crate::rns::padded_stride(args.l) * 8;
            let w = DeviceShared { base: s.base + limb_bytes };
            // SAFETY: the invariants of `CrtArgs` (see its doc): buffers, table, grid and
            // `shared_bytes` of shared memory, `s` its limb rows and `w` the residue words after
            // them; established by `polymul::rns::convert::DeviceConvert::reconstruct`.
            unsafe {
                crate::rns::crt::reconstruct::<$w, _, _>(&args, &s, &w, blk as u32, t as u32, nt as u32)
            };
            sync();
            // SAFETY: as for `reconstruct`; the barrier above completed the block's shared rows.
            unsafe { crate::rns::crt::store(&args, &s, blk as u32, t as u32, nt as u32) };
        }

        /// Tower-major residues → limbs in `[0, Q)`, each coefficient's limbs
        /// split over `G` threads ([`crate::rns::crt_cols::CrtColsArgs`]): the
        /// `r'_i` and quotient parts, the column chunks
        /// ([`crate::rns::crt_cols::CrtColsVariant::Split`]), the carries (one
        /// thread per coefficient), the block's limbs to global memory; a
        /// barrier between phases.
        ///
        /// # Safety
        /// The invariants of `CrtColsArgs` (see its doc: buffers, table, `⌈count / B⌉` blocks of
        /// `B · G` threads, `crate::rns::crt_cols::shared_bytes` of shared memory), established by
        /// `polymul::rns::convert::DeviceConvert::reconstruct`.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $cols(args: <names::RnsCrtColsKernel as KernelAbi>::Args<$w>) {
            // SAFETY: the caller's (this kernel's `# Safety`).
            unsafe { crt_cols_kernel::<$w, { crate::rns::crt_cols::SPLIT }>(args) }
        }

        /// As the column CRT above, with the first version's arithmetic
        /// ([`crate::rns::crt_cols::CrtColsVariant::Acc192`]: 192-bit
        /// accumulators of 64 × 64-bit products).
        ///
        /// # Safety
        /// As for the column CRT above.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $cols192(args: <names::RnsCrtColsKernel as KernelAbi>::Args<$w>) {
            // SAFETY: the caller's (this kernel's `# Safety`).
            unsafe { crt_cols_kernel::<$w, { crate::rns::crt_cols::ACC192 }>(args) }
        }
    };
}

rns_entries!(u32, rns_decompose_u32, rns_crt_u32, rns_crt_cols_u32, rns_crt_cols_acc192_u32);
rns_entries!(u64, rns_decompose_u64, rns_crt_u64, rns_crt_cols_u64, rns_crt_cols_acc192_u64);

/// The body of the column CRT kernels with the arithmetic `V`
/// ([`crate::rns::crt_cols::CrtColsVariant::id`]).
///
/// # Safety
/// The invariants of `CrtColsArgs` (see its doc: buffers, table, `⌈count / B⌉` blocks of
/// `B · G` threads, `crate::rns::crt_cols::shared_bytes` of shared memory), established by
/// `polymul::rns::convert::DeviceConvert::reconstruct`.
#[inline(always)]
unsafe fn crt_cols_kernel<W: crate::gmem::Gmem, const V: u8>(args: crate::rns::crt_cols::CrtColsArgs<W>)
where
    DeviceShared: crate::smem::Shared<W>,
{
    let (blk, t, _) = block_thread();
    let (blk, t) = (blk as u32, t as u32);
    let s = shared_tile();
    let b = 1u32 << args.log_b;
    let w = DeviceShared { base: s.base + crate::rns::crt_cols::u64_words(b, args.l) * 8 };
    // SAFETY: the invariants of `CrtColsArgs` (see its doc): buffers, table, grid and
    // `shared_bytes` of shared memory, `s` its `u64` words and `w` the residue words after
    // them; established by `polymul::rns::convert::DeviceConvert::reconstruct`.
    unsafe { crate::rns::crt_cols::residues::<W, _, _>(&args, &s, &w, blk, t) };
    sync();
    // SAFETY: as for `residues`; the barrier above completed the `r'_i` and sum parts.
    unsafe { crate::rns::crt_cols::columns::<W, _, _, V>(&args, &s, &w, blk, t) };
    sync();
    // SAFETY: as for `residues`; the barrier above completed the chunks and carries.
    unsafe { crate::rns::crt_cols::carry(&args, &s, blk, t) };
    sync();
    // SAFETY: as for `residues`; the barrier above completed the block's limb rows.
    unsafe { crate::rns::crt_cols::store(&args, &s, blk, t) };
}
