//! The `planner` suite: multipliers built from wisdom against the CPU.

use super::{Tally, eq, s};
use polymul::expert::{NttKernel, SplitMix64, emulation};
use polymul::prelude::*;
use polymul::{Coeff, Error, Gpu, NttParams};

/// The planner: a `Multiplier` built from wisdom naming each transform
/// (NTT kernels, the DGT) for one prime and for RNS towers gives the CPU's
/// product; an unreadable wisdom file is a typed error.
pub(super) fn planner_suite<W: Coeff>(gpu: &Gpu, bits: u32, seed: u64, t: &mut Tally) {
    use polymul::dgt::{DgtConfig, DgtParams};
    use polymul::planner::{Choice, Modulus, Multiplier, Wisdom, WisdomEntry, WisdomKey, batch_bucket};
    for log_n in [10u32, 13, 16] {
        let n = 1usize << log_n;
        let winners = [
            Choice::Ntt { kernel: NttKernel::Auto, radix: None },
            Choice::Ntt { kernel: NttKernel::TwoD, radix: Some(8) },
            Choice::Dgt { config: DgtConfig::default_for(log_n - 1) },
        ];
        for winner in winners {
            for (modulus, towers) in [(Modulus::Bits(bits), 1usize), (Modulus::Rns { bits, towers: 3 }, 3)] {
                let batch = 2;
                let name = format!("planner u{} N=2^{log_n} {towers} tower(s) {winner:?} == CPU", W::BITS);
                let res = (|| {
                    let key = WisdomKey {
                        device: gpu.info().name.clone(),
                        log_n,
                        word_bits: W::BITS,
                        towers,
                        batch_bucket: batch_bucket(batch),
                    };
                    let mut w = Wisdom::new();
                    w.insert(WisdomEntry { key, winner, us_per_poly: 1.0, candidates: 1 });
                    let m = Multiplier::<W>::with_wisdom(gpu, n, modulus, batch, Some(&w)).map_err(s)?;
                    if !m.decision().from_wisdom || m.decision().choice != winner {
                        return Err(format!("decision {:?}", m.decision()));
                    }
                    let mut rng = SplitMix64::new(seed ^ n as u64 ^ towers as u64);
                    let mut fresh = || -> Vec<W> {
                        m.primes().iter().flat_map(|&q| rng.coeffs(batch * n, W::from_u64(q))).collect()
                    };
                    let (a, b) = (fresh(), fresh());
                    let got = m.polymul(&a, &b).map_err(s)?;
                    let len = batch * n;
                    for (i, &q) in m.primes().iter().enumerate() {
                        let r = i * len..(i + 1) * len;
                        let want = match winner {
                            Choice::Dgt { config } => {
                                let p = DgtParams::<W>::new(n, q).map_err(s)?;
                                emulation::dgt::polymul(&p, &config, &a[r.clone()], &b[r.clone()])
                                    .map_err(s)?
                            }
                            Choice::Ntt { .. } => {
                                let p = NttParams::<W>::new(n, q).map_err(s)?;
                                emulation::polymul(&p, &a[r.clone()], &b[r.clone()]).map_err(s)?
                            }
                        };
                        eq(&format!("tower {i}"), &got[r], &want)?;
                    }
                    Ok(())
                })();
                t.record(&name, res);
            }
        }
    }
    let bad = std::env::temp_dir().join(format!("polymul-bad-wisdom-{}.json", std::process::id()));
    let res = (|| {
        std::fs::write(&bad, b"{ this is not wisdom").map_err(s)?;
        match Wisdom::load(&bad) {
            Err(Error::Wisdom { .. }) => Ok(()),
            other => Err(format!("{other:?}")),
        }
    })();
    let _ = std::fs::remove_file(&bad);
    t.record("planner: an unreadable wisdom file is a typed error", res);
}
