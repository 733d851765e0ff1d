//! `extern "ptx-kernel"` entry points: the only place that knows it runs on a
//! GPU. Each entry reads its thread index, checks it against the work size and
//! calls a per-thread body from [`crate::ntt`] or [`crate::pointwise`].
//!
//! Names follow `<kernel>_<word>`; the host builds them from
//! [`crate::names`] and [`crate::Word::NAME`], so both sides agree.
//! Reduction constants arrive as scalars (`q`, `μ`, `m`), validated on the host.

use crate::arith::Barrett4;
use crate::gpu::global_thread_x;
use crate::{ntt, pointwise};

/// One radix-2 stage kernel over `total = batch · N/2` butterflies.
macro_rules! stage_entry {
    ($w:ty, $name:ident, $body:path, $doc:literal) => {
        #[doc = $doc]
        ///
        /// # Safety
        /// Launched by the host with validated buffers and parameters.
        #[unsafe(no_mangle)]
        pub unsafe extern "ptx-kernel" fn $name(
            a: *mut $w,
            tw: *const $w,
            total: u32,
            log_n: u32,
            log_m: u32,
            q: $w,
            mu: $w,
            qbits: u32,
        ) {
            let t = global_thread_x();
            if t < total {
                let red = Barrett4::from_parts(q, mu, qbits);
                // SAFETY: t < total, buffers sized by the host.
                unsafe { $body(a, tw, t, log_n, log_m, &red) }
            }
        }
    };
}

macro_rules! word_entries {
    ($w:ty, $fwd:ident, $inv:ident, $mul:ident) => {
        stage_entry!(
            $w,
            $fwd,
            ntt::radix2::ct_butterfly,
            "One forward merged-CT stage."
        );
        stage_entry!(
            $w,
            $inv,
            ntt::radix2::gs_butterfly_half,
            "One inverse merged-GS stage (½-scaled)."
        );

        /// `out[i] = a[i] · b[i] mod q` for `i < len`.
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

word_entries!(
    u32,
    ntt_fwd_radix2_stage_u32,
    ntt_inv_radix2_stage_u32,
    pointwise_mul_u32
);
word_entries!(
    u64,
    ntt_fwd_radix2_stage_u64,
    ntt_inv_radix2_stage_u64,
    pointwise_mul_u64
);
