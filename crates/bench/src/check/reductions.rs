//! The `reductions` suite: every reduction's kernels and its
//! microbenchmark against the CPU.

use super::{Tally, eq, s, variants};
use crate::host_ext::forward_host;
use polymul::expert::{ModMulBench, PlanOptions, Reduction, SplitMix64, emulation};
use polymul::prelude::*;
use polymul::{Coeff, Gpu, NttParams, NttPlan};

/// Every reduction's NTT kernels on the GPU against the same kernels' code on
/// the CPU, at each word's widest modulus the reduction accepts.
pub(super) fn reduction_suite<W: Coeff>(gpu: &Gpu, bits: u32, seed: u64, t: &mut Tally) {
    for r in Reduction::ALL {
        let bits = bits.min(r.max_bits(W::BITS));
        for log_n in [12u32, 16] {
            let n = 1usize << log_n;
            let name = format!("reduction {r} u{} q{bits}b N=2^{log_n}", W::BITS);
            let res = (|| {
                let p = NttParams::<W>::with_prime_bits(n, bits).map_err(s)?;
                let mut rng = SplitMix64::new(seed ^ n as u64);
                let (a, b) = (rng.coeffs(2 * n, p.q()), rng.coeffs(2 * n, p.q()));
                let mut want = a.clone();
                emulation::forward_with(&p, r, &mut want).map_err(s)?;
                let want_mul = emulation::polymul_with(&p, r, &a, &b).map_err(s)?;
                for (tag, o) in variants() {
                    let opts = PlanOptions { reduction: r, ..o };
                    let plan = NttPlan::with_options(gpu, p.clone(), opts).map_err(s)?;
                    eq(&tag, &forward_host(&plan, &a).map_err(s)?, &want)?;
                    eq(&tag, &plan.polymul(&a, &b).map_err(s)?, &want_mul)?;
                }
                Ok(())
            })();
            t.record(&name, res);
        }
        for select in [false, true] {
            let name = format!(
                "microbenchmark {r} {} u{} q{bits}b == CPU",
                if select { "select" } else { "if" },
                W::BITS
            );
            let res = (|| {
                let q = polymul::params::ntt_primes(bits, 2, 1).map_err(s)?[0];
                let mut mb = ModMulBench::new(gpu, r, select, W::from_u64(q), 4096, seed).map_err(s)?;
                mb.run(50).map_err(s)?;
                let got = mb.values().map_err(s)?;
                for th in (0..4096).step_by(7) {
                    eq("chains", &got[4 * th..4 * th + 4], &mb.cpu_thread(th, 50).map_err(s)?)?;
                }
                Ok(())
            })();
            t.record(&name, res);
        }
    }
}
