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
use crate::ntt::radix2::{self, Twiddles};
use crate::{microbench, pointwise};

/// The radix-2 stage kernels and the microbenchmark kernels of one reduction
/// on one word.
macro_rules! reduction_entries {
    ($w:ty, $red:ty, $fwd:ident, $inv:ident, $bench_if:ident, $bench_sel:ident) => {
        /// One forward merged-CT radix-2 stage over `total = batch · N/2` butterflies.
        ///
        /// # Safety
        /// Launched by the host with validated buffers and parameters.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $fwd(
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
                let tw = Twiddles { main: tw, aux: tw_aux };
                // SAFETY: t < total, buffers sized by the host.
                unsafe { radix2::ct_butterfly(a, tw, t, log_n, log_m, &red) }
            }
        }

        /// One inverse merged-GS radix-2 stage (½-scaled) over `total` butterflies.
        ///
        /// # Safety
        /// Launched by the host with validated buffers and parameters.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $inv(
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
                let tw = Twiddles { main: tw, aux: tw_aux };
                // SAFETY: t < total, buffers sized by the host.
                unsafe { radix2::gs_butterfly_half(a, tw, t, log_n, log_m, &red) }
            }
        }

        /// Microbenchmark, corrections as `if`s: `threads` threads, 4 chains each.
        ///
        /// # Safety
        /// Launched by the host with validated buffers and parameters.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $bench_if(
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
                    microbench::modmul_chains::<_, _, false>(data, ops, ops_aux, t as usize, iters, &red)
                }
            }
        }

        /// Microbenchmark, corrections by mask-and-subtract (no branch possible).
        ///
        /// # Safety
        /// Launched by the host with validated buffers and parameters.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $bench_sel(
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
                    microbench::modmul_chains::<_, _, true>(data, ops, ops_aux, t as usize, iters, &red)
                }
            }
        }
    };
}

macro_rules! word_entries {
    ($w:ty, $mul:ident, [$($red:ty => $fwd:ident, $inv:ident, $bi:ident, $bs:ident;)*]) => {
        $(reduction_entries!($w, $red, $fwd, $inv, $bi, $bs);)*

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
        modmul_bench_if_rem_u32, modmul_bench_select_rem_u32;
    BarrettClassic<u32> => ntt_fwd_radix2_stage_barrett2_u32, ntt_inv_radix2_stage_barrett2_u32,
        modmul_bench_if_barrett2_u32, modmul_bench_select_barrett2_u32;
    DhemQuisquater<u32> => ntt_fwd_radix2_stage_dq3_u32, ntt_inv_radix2_stage_dq3_u32,
        modmul_bench_if_dq3_u32, modmul_bench_select_dq3_u32;
    Barrett4<u32> => ntt_fwd_radix2_stage_barrett4_u32, ntt_inv_radix2_stage_barrett4_u32,
        modmul_bench_if_barrett4_u32, modmul_bench_select_barrett4_u32;
    Montgomery<u32> => ntt_fwd_radix2_stage_montgomery_u32, ntt_inv_radix2_stage_montgomery_u32,
        modmul_bench_if_montgomery_u32, modmul_bench_select_montgomery_u32;
    Shoup<u32> => ntt_fwd_radix2_stage_shoup_u32, ntt_inv_radix2_stage_shoup_u32,
        modmul_bench_if_shoup_u32, modmul_bench_select_shoup_u32;
]);

word_entries!(u64, pointwise_mul_u64, [
    BuiltinRem<u64> => ntt_fwd_radix2_stage_rem_u64, ntt_inv_radix2_stage_rem_u64,
        modmul_bench_if_rem_u64, modmul_bench_select_rem_u64;
    BarrettClassic<u64> => ntt_fwd_radix2_stage_barrett2_u64, ntt_inv_radix2_stage_barrett2_u64,
        modmul_bench_if_barrett2_u64, modmul_bench_select_barrett2_u64;
    DhemQuisquater<u64> => ntt_fwd_radix2_stage_dq3_u64, ntt_inv_radix2_stage_dq3_u64,
        modmul_bench_if_dq3_u64, modmul_bench_select_dq3_u64;
    Barrett4<u64> => ntt_fwd_radix2_stage_barrett4_u64, ntt_inv_radix2_stage_barrett4_u64,
        modmul_bench_if_barrett4_u64, modmul_bench_select_barrett4_u64;
    Montgomery<u64> => ntt_fwd_radix2_stage_montgomery_u64, ntt_inv_radix2_stage_montgomery_u64,
        modmul_bench_if_montgomery_u64, modmul_bench_select_montgomery_u64;
    Shoup<u64> => ntt_fwd_radix2_stage_shoup_u64, ntt_inv_radix2_stage_shoup_u64,
        modmul_bench_if_shoup_u64, modmul_bench_select_shoup_u64;
]);
