//! What a soak call is checked against, all on the CPU: the CPU backend
//! (`CpuPlan`, `CpuRnsPlan`), the DGT kernels' code on the host (for the
//! DGT, whose primes the NTT backend does not take), and for small N an
//! independent schoolbook negacyclic product in `u128`.

use super::cases::{Case, Kind};
use polymul::dgt::{DgtConfig, DgtParams, dgt_primes};
use polymul::expert::{DgtPipeline, SplitMix64, emulation};
use polymul::prelude::*;
use polymul::rns::RnsBasis;
use polymul::{Coeff, CpuPlan, CpuRnsPlan, NttParams};

/// Largest N also checked against the schoolbook product.
pub const SCHOOLBOOK_MAX_N: usize = 64;

/// Words of one DGT case above which only a sample of its polynomials is
/// checked against the DGT's CPU code (slow: the kernels' code thread by
/// thread).
const DGT_FULL_CHECK_WORDS: usize = 1 << 18;

/// `a ⊗ b mod (X^N + 1, q)` by the schoolbook method, independent of
/// every transform: each product computed in `u128` (below 2^124) and
/// reduced (below 2^62), the wrapped ones negated as `q − p`, N of them
/// summed per output word in `u128` (below 2^62 · N: no overflow for any
/// N the soak gives it, at most [`SCHOOLBOOK_MAX_N`]).
pub fn schoolbook(a: &[u64], b: &[u64], q: u64) -> Vec<u64> {
    let n = a.len();
    let q128 = u128::from(q);
    let mut acc = vec![0u128; n];
    for (i, &x) in a.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            let p = u128::from(x) * u128::from(y) % q128;
            let k = i + j;
            if k < n {
                acc[k] += p;
            } else {
                acc[k - n] += (q128 - p) % q128;
            }
        }
    }
    acc.into_iter().map(|v| (v % q128) as u64).collect()
}

/// Expected words of parts of an output: `(word range, words)`.
pub type Parts<W> = Vec<(std::ops::Range<usize>, Vec<W>)>;

/// The parameters of a case, on the CPU: the moduli and the objects the
/// plans and references are made from.
#[derive(Debug, Clone)]
pub struct Setup<W: Coeff> {
    /// N.
    pub n: usize,
    /// Polynomials per tower.
    pub batch: usize,
    /// One modulus per tower.
    pub moduli: Vec<u64>,
    /// NTT parameters ([`Kind::Ntt`]).
    pub ntt: Option<NttParams<W>>,
    /// RNS basis ([`Kind::Rns`], [`Kind::Convert`], a planner case on NTT
    /// primes).
    pub basis: Option<RnsBasis<W>>,
    /// DGT towers ([`Kind::Dgt`], a planner case on DGT primes).
    pub dgt: Option<Vec<DgtParams<W>>>,
    /// The DGT configuration (the case's; the default for a planner case).
    pub cfg: DgtConfig,
    /// The DGT pipeline.
    pub pipeline: DgtPipeline,
}

fn s<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

impl<W: Coeff> Setup<W> {
    /// The case's parameters (deterministic: prime searches).
    pub fn new(c: &Case) -> Result<Self, String> {
        let n = 1usize << c.log_n;
        let mut out = Setup {
            n,
            batch: c.batch,
            moduli: Vec::new(),
            ntt: None,
            basis: None,
            dgt: None,
            cfg: c.dgt_config(),
            pipeline: if c.coala { DgtPipeline::Coala } else { DgtPipeline::Fused },
        };
        let dgt_towers = |primes: &[u64]| -> Result<Vec<DgtParams<W>>, String> {
            primes.iter().map(|&p| DgtParams::new(n, p)).collect::<polymul::Result<_>>().map_err(s)
        };
        match c.kind {
            Kind::Ntt => {
                let p = NttParams::<W>::with_prime_bits(n, c.bits).map_err(s)?;
                out.moduli = vec![p.q().as_u64()];
                out.ntt = Some(p);
            }
            Kind::Rns => {
                let b = RnsBasis::<W>::new(n, c.bits, c.towers).map_err(s)?;
                out.moduli = b.primes();
                out.basis = Some(b);
            }
            Kind::Convert => {
                let b = RnsBasis::<W>::with_modulus_bits(n, c.bits, c.log_q).map_err(s)?;
                out.moduli = b.primes();
                out.basis = Some(b);
            }
            Kind::Dgt => {
                let ps = dgt_primes(c.bits, n, c.towers).map_err(s)?;
                out.dgt = Some(dgt_towers(&ps)?);
                out.moduli = ps;
            }
            Kind::Planner => {
                // Odd input seeds give the planner DGT primes (it picks the
                // DGT), even ones NTT primes (it picks the NTT).
                let dgt = (c.input_seed & 1 == 1 && c.log_n >= 2)
                    .then(|| dgt_primes(c.bits, n, c.towers).ok())
                    .flatten();
                match dgt {
                    Some(ps) => {
                        out.cfg = DgtConfig::default_for(c.log_n - 1);
                        out.pipeline = DgtPipeline::Fused;
                        out.dgt = Some(dgt_towers(&ps)?);
                        out.moduli = ps;
                    }
                    None => {
                        let ps = polymul::params::ntt_primes(c.bits, n, c.towers).map_err(s)?;
                        out.basis = Some(RnsBasis::<W>::from_primes(n, &ps).map_err(s)?);
                        out.moduli = ps;
                    }
                }
            }
        }
        Ok(out)
    }

    /// Words of one operand.
    pub fn words(&self) -> usize {
        self.moduli.len() * self.batch * self.n
    }

    /// Random tower-major words of `batch` polynomials per tower (the
    /// props suite's inputs: uniform, all `q − 1`, or sparse edges).
    pub fn inputs(&self, kind: u8, seed: u64) -> Vec<W> {
        let len = self.batch * self.n;
        let mut out = Vec::with_capacity(self.words());
        for (t, &q) in self.moduli.iter().enumerate() {
            let mut rng = SplitMix64::new(seed ^ (t as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15));
            if kind >= 2 && len >= 1 << 20 {
                out.extend(crate::check::split_coeffs(len, W::from_u64(q), rng.next_u64()));
            } else {
                out.extend(crate::check::props_inputs(&mut rng, len, W::from_u64(q)));
            }
        }
        out
    }

    /// The polynomials `(tower, index)` checked against the reference: all,
    /// or for a large DGT case a sample (first and last polynomial of one
    /// tower, drawn from `seed`).
    pub fn checked_polys(&self, dgt_emulation: bool, seed: u64) -> Vec<(usize, usize)> {
        let towers = self.moduli.len();
        if !dgt_emulation || self.words() <= DGT_FULL_CHECK_WORDS {
            return (0..towers).flat_map(|t| (0..self.batch).map(move |i| (t, i))).collect();
        }
        let t = (seed % towers as u64) as usize;
        let mut v = vec![(t, 0), (t, self.batch - 1)];
        v.dedup();
        v
    }

    /// The word range of polynomial `i` of tower `t`.
    pub fn range(&self, t: usize, i: usize) -> std::ops::Range<usize> {
        let at = (t * self.batch + i) * self.n;
        at..at + self.n
    }

    /// The expected products `a ⊗ b` on the checked polynomials: `(range,
    /// words)`.
    pub fn product(&self, a: &[W], b: &[W], seed: u64) -> Result<Parts<W>, String> {
        if let Some(p) = &self.ntt {
            let c = CpuPlan::new(p.clone()).map_err(s)?.polymul(a, b).map_err(s)?;
            return Ok(vec![(0..c.len(), c)]);
        }
        if let Some(basis) = &self.basis {
            let c = CpuRnsPlan::new(basis).map_err(s)?.polymul(a, b).map_err(s)?;
            return Ok(vec![(0..c.len(), c)]);
        }
        let towers = self.dgt.as_ref().ok_or("no parameters")?;
        let mut out = Vec::new();
        for (t, i) in self.checked_polys(true, seed) {
            let r = self.range(t, i);
            let want = emulation::dgt::polymul_with(
                &towers[t],
                &self.cfg,
                self.pipeline,
                &a[r.clone()],
                &b[r.clone()],
            )
            .map_err(s)?;
            out.push((r, want));
        }
        Ok(out)
    }

    /// The expected forward transforms of `a` on the checked polynomials.
    pub fn forward(&self, a: &[W], seed: u64) -> Result<Parts<W>, String> {
        if let Some(p) = &self.ntt {
            let mut v = a.to_vec();
            Transform::<W, [W]>::forward(&CpuPlan::new(p.clone()).map_err(s)?, &mut v[..]).map_err(s)?;
            return Ok(vec![(0..v.len(), v)]);
        }
        if let Some(basis) = &self.basis {
            let mut v = a.to_vec();
            Transform::<W, [W]>::forward(&CpuRnsPlan::new(basis).map_err(s)?, &mut v[..]).map_err(s)?;
            return Ok(vec![(0..v.len(), v)]);
        }
        let towers = self.dgt.as_ref().ok_or("no parameters")?;
        let mut out = Vec::new();
        for (t, i) in self.checked_polys(true, seed) {
            let r = self.range(t, i);
            let mut v = a[r.clone()].to_vec();
            emulation::dgt::forward_with(&towers[t], &self.cfg, self.pipeline, &mut v).map_err(s)?;
            out.push((r, v));
        }
        Ok(out)
    }

    /// The schoolbook products of every polynomial (N ≤
    /// [`SCHOOLBOOK_MAX_N`]), else none.
    pub fn schoolbook(&self, a: &[W], b: &[W]) -> Parts<W> {
        if self.n > SCHOOLBOOK_MAX_N {
            return Vec::new();
        }
        let mut out = Vec::new();
        for (t, &q) in self.moduli.iter().enumerate() {
            for i in 0..self.batch {
                let r = self.range(t, i);
                let x: Vec<u64> = a[r.clone()].iter().map(|v| v.as_u64()).collect();
                let y: Vec<u64> = b[r.clone()].iter().map(|v| v.as_u64()).collect();
                out.push((r, schoolbook(&x, &y, q).into_iter().map(W::from_u64).collect()));
            }
        }
        out
    }
}

/// Compares `got` with every `(range, want)`; the number of words compared.
pub fn compare<W: Coeff>(
    what: &str,
    got: &[W],
    want: &[(std::ops::Range<usize>, Vec<W>)],
) -> Result<u64, String> {
    let mut words = 0u64;
    for (r, w) in want {
        let g =
            got.get(r.clone()).ok_or_else(|| format!("{what}: {} words, expected {}", got.len(), r.end))?;
        crate::check::eq(&format!("{what} (words {}..{})", r.start, r.end), g, w)?;
        words += w.len() as u64;
    }
    Ok(words)
}

/// After an out-of-memory error, a host output holds the results of a
/// leading part of the batch (the same polynomials in every tower) and its
/// other words are untouched (gpu/split.rs): polynomial by polynomial,
/// every tower either `done` or `before`, and no untouched one ahead of a
/// done one. `done` covers every word (a full reference).
pub fn leading_part<W: Coeff>(setup: &Setup<W>, got: &[W], done: &[W], before: &[W]) -> Result<(), String> {
    if got.len() != done.len() || got.len() != before.len() {
        return Err(format!("output of {} words, expected {}", got.len(), done.len()));
    }
    let towers = setup.moduli.len();
    let state = |i: usize| -> Result<bool, String> {
        let rs: Vec<_> = (0..towers).map(|t| setup.range(t, i)).collect();
        if rs.iter().all(|r| got[r.clone()] == done[r.clone()]) {
            Ok(true)
        } else if rs.iter().all(|r| got[r.clone()] == before[r.clone()]) {
            Ok(false)
        } else {
            Err(format!("polynomial {i} is neither its result nor untouched in every tower"))
        }
    };
    let mut untouched_from = None;
    for i in 0..setup.batch {
        match (state(i)?, untouched_from) {
            (true, Some(j)) => {
                // Done and untouched at once is fine (a result equal to the
                // input); done after a strictly untouched one is not.
                let rs: Vec<_> = (0..towers).map(|t| setup.range(t, i)).collect();
                if !rs.iter().all(|r| got[r.clone()] == before[r.clone()]) {
                    return Err(format!("polynomial {i} holds its result after untouched polynomial {j}"));
                }
            }
            (false, None) => untouched_from = Some(i),
            _ => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::super::cases::{Limits, draw};
    use super::*;
    use polymul::cpu;

    /// The schoolbook product equals the library's naive reference and
    /// the CPU backend on a few cases, both words, q − 1 operands included.
    #[test]
    fn schoolbook_matches_the_cpu_backend() {
        for (log_n, bits) in [(1u32, 30u32), (3, 30), (6, 62), (5, 40)] {
            let n = 1usize << log_n;
            let p = NttParams::<u64>::with_prime_bits(n, bits).unwrap();
            let q = p.q();
            let mut rng = SplitMix64::new(u64::from(log_n) * 31 + u64::from(bits));
            for k in 0..3 {
                let (a, b) = if k == 0 {
                    (vec![q - 1; n], vec![q - 1; n])
                } else {
                    (rng.coeffs(n, q), rng.coeffs(n, q))
                };
                let want = CpuPlan::new(p.clone()).unwrap().polymul(&a, &b).unwrap();
                assert_eq!(schoolbook(&a, &b, q), want, "N={n} q={q}");
                assert_eq!(cpu::negacyclic_naive(&a, &b, q).unwrap(), want);
            }
        }
        // u32 through the setup, several towers.
        let l = Limits { max_operand_bytes: 1 << 16, private_gpu: false, big: false };
        let mut seen = 0;
        for index in 0..300 {
            let c = draw(3, 0, index, &l);
            if c.word != super::super::cases::Word::U32
                || !matches!(c.kind, Kind::Ntt | Kind::Rns)
                || c.log_n > 6
            {
                continue;
            }
            let st = Setup::<u32>::new(&c).unwrap();
            let (a, b) = (st.inputs(c.inputs, 1), st.inputs(2, 2));
            let want = st.product(&a, &b, 0).unwrap();
            let got: Vec<u32> = {
                let mut v = vec![0u32; a.len()];
                for (r, w) in st.schoolbook(&a, &b) {
                    v[r].copy_from_slice(&w);
                }
                v
            };
            assert_eq!(compare("schoolbook", &got, &want).unwrap(), a.len() as u64, "{}", c.describe());
            seen += 1;
        }
        assert!(seen > 5);
    }

    /// The DGT's CPU code gives the schoolbook product (the reference the
    /// DGT cases are checked against), and the CPU backend's forward
    /// transform is what the reduction-specific emulation gives (so every
    /// reduction's GPU transform is checked against the one backend).
    #[test]
    fn references_agree() {
        let n = 16;
        let p = DgtParams::<u64>::new(n, dgt_primes(40, n, 1).unwrap()[0]).unwrap();
        let mut rng = SplitMix64::new(9);
        let (a, b) = (rng.coeffs(n, p.p()), rng.coeffs(n, p.p()));
        for cfg in DgtConfig::all(3, 2) {
            for pipeline in [DgtPipeline::Fused, DgtPipeline::Coala] {
                let got = emulation::dgt::polymul_with(&p, &cfg, pipeline, &a, &b).unwrap();
                assert_eq!(got, schoolbook(&a, &b, p.p()), "{cfg}");
            }
        }
        let np = NttParams::<u64>::with_prime_bits(1 << 8, 50).unwrap();
        let x = rng.coeffs(2 << 8, np.q());
        let mut want = x.clone();
        Transform::<u64, [u64]>::forward(&CpuPlan::new(np.clone()).unwrap(), &mut want[..]).unwrap();
        for r in polymul::expert::Reduction::ALL {
            if r.max_bits(64) < 50 {
                continue;
            }
            let mut v = x.clone();
            emulation::forward_with(&np, r, &mut v).unwrap();
            assert_eq!(v, want, "{r}");
        }
    }

    /// The leading-part rule: a prefix done, the rest untouched passes; a
    /// gap, or a polynomial done in one tower only, fails.
    #[test]
    fn leading_part_rule() {
        let st = Setup::<u64> {
            n: 2,
            batch: 3,
            moduli: vec![97, 101],
            ntt: None,
            basis: None,
            dgt: None,
            cfg: DgtConfig::default_for(1),
            pipeline: DgtPipeline::Fused,
        };
        let before: Vec<u64> = (0..12).collect();
        let done: Vec<u64> = (50..62).collect();
        let mix = |d: &[usize]| -> Vec<u64> {
            let mut v = before.clone();
            for &i in d {
                for t in 0..2 {
                    let r = st.range(t, i);
                    v[r.clone()].copy_from_slice(&done[r]);
                }
            }
            v
        };
        for d in [&[][..], &[0], &[0, 1], &[0, 1, 2]] {
            assert!(leading_part(&st, &mix(d), &done, &before).is_ok(), "{d:?}");
        }
        assert!(leading_part(&st, &mix(&[1]), &done, &before).is_err());
        let mut one_tower = before.clone();
        one_tower[0..2].copy_from_slice(&done[0..2]);
        assert!(leading_part(&st, &one_tower, &done, &before).is_err());
    }
}
