//! The `tiles` suite: every tile size against the CPU.

use super::{Tally, eq, s};
use crate::host_ext::forward_host;
use polymul::expert::{NttKernel, PlanOptions, SplitMix64, emulation};
use polymul::prelude::*;
use polymul::{Coeff, Error, Gpu, NttParams, NttPlan};

/// Tiles of every size from 8 KiB to 128 KiB (dynamic shared memory) give
/// the CPU's result.
pub(super) fn tile_suite<W: Coeff>(gpu: &Gpu, bits: u32, seed: u64, t: &mut Tally) {
    for kib in [2usize, 8, 16, 64, 128] {
        for log_n in [12u32, 15, 17] {
            let n = 1usize << log_n;
            let name = format!("tile {kib} KiB u{} N=2^{log_n} forward/polymul == CPU", W::BITS);
            if kib * 1024 > gpu.info().max_shared_per_block {
                continue;
            }
            let res = (|| {
                let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
                let mut rng = SplitMix64::new(seed ^ (kib as u64) << 20 ^ n as u64);
                let (a, b) = (rng.coeffs(2 * n, p.q()), rng.coeffs(2 * n, p.q()));
                let mut want = a.clone();
                emulation::forward(&p, &mut want).map_err(s)?;
                let want_mul = emulation::polymul(&p, &a, &b).map_err(s)?;
                for kernel in [NttKernel::Tiled, NttKernel::TwoD] {
                    for radix in [4usize, 16] {
                        let opts = PlanOptions {
                            kernel,
                            radix: Some(radix),
                            tile_bytes: Some(kib * 1024),
                            ..crate::env_options::plan_options()
                        };
                        let plan = match NttPlan::with_options(gpu, p.clone(), opts) {
                            Ok(plan) => plan,
                            Err(Error::InvalidN { .. }) => continue,
                            Err(e) => return Err(s(e)),
                        };
                        let what = format!("{} r{radix}", kernel.name());
                        eq(&what, &forward_host(&plan, &a).map_err(s)?, &want)?;
                        eq(&what, &plan.polymul(&a, &b).map_err(s)?, &want_mul)?;
                    }
                }
                Ok(())
            })();
            t.record(&name, res);
        }
    }
}
