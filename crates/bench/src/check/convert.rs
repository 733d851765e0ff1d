//! The limb conversion kernels (`rns_decompose_<word>`, `rns_crt_<word>`,
//! `rns_crt_cols_<word>` for `L ≥ 32`; every CRT kernel forced as well,
//! `rns_crt_cols_acc192_<word>` included) against the CPU path (the same
//! bodies on the host) bit for bit, the CRT also against num-bigint up to
//! N = 2^12, for
//! several N, tower counts and both words up to a 4096-bit Q; the host
//! limbs → host limbs product against the CPU path, and for a small N
//! `polymul_big` against the big-integer schoolbook product modulo Q; the
//! typed errors of the device-resident API.

use super::{Tally, eq, s};
use num_bigint::BigUint;
use polymul::expert::kernels::rns::crt_cols::CrtColsVariant;
use polymul::expert::{SplitMix64, emulation};
use polymul::prelude::*;
use polymul::rns::{CrtChoice, RnsBasis, RnsPlan};
use polymul::{Coeff, Error, Gpu, cpu};

/// Random limbs below `Q` (a random residue vector reconstructed on the
/// CPU), with coefficients 0, 1, Q − 1 and 2^64 − 1 (if below Q) first.
pub(crate) fn limbs_below_q<W: Coeff>(
    basis: &RnsBasis<W>,
    batch: usize,
    rng: &mut SplitMix64,
) -> Result<Vec<u64>, String> {
    let len = basis.n() * batch;
    let res: Vec<W> = basis.towers().iter().flat_map(|p| rng.coeffs(len, p.q())).collect();
    let mut limbs = basis.reconstruct(&res).map_err(s)?;
    let l = basis.limbs();
    let q = basis.modulus();
    let mut edges = vec![BigUint::from(0u32), BigUint::from(1u32), q - 1u32];
    if q.bits() > 64 {
        edges.push(BigUint::from(u64::MAX));
    }
    // As many edge coefficients as there are coefficients (N = 2, batch 1
    // has two: the soak's first run found the index panic).
    for (c, x) in edges.iter().enumerate().take(len) {
        let row = &mut limbs[c * l..(c + 1) * l];
        row.fill(0);
        for (d, v) in row.iter_mut().zip(x.to_u64_digits()) {
            *d = v;
        }
    }
    Ok(limbs)
}

fn case<W: Coeff>(gpu: &Gpu, bits: u32, log_q: u64, log_n: u32, batch: usize, seed: u64, t: &mut Tally) {
    let n = 1usize << log_n;
    let basis = match RnsBasis::<W>::with_modulus_bits(n, bits, log_q) {
        Ok(b) => b,
        Err(e) => {
            return t.record(&format!("convert u{} basis {bits}-bit log2 Q {log_q}", W::BITS), Err(s(e)));
        }
    };
    let tag = format!(
        "convert u{} {}x{bits}-bit Q {} bits (L = {}) N=2^{log_n} batch {batch}",
        W::BITS,
        basis.len(),
        basis.modulus().bits(),
        basis.limbs()
    );
    let mut rng = SplitMix64::new(seed);
    let res = (|| {
        let plan = RnsPlan::with_options(gpu, &basis, crate::env_options::plan_options()).map_err(s)?;
        let limbs = limbs_below_q(&basis, batch, &mut rng)?;
        // Decomposition: device == CPU bodies == num-bigint (small sizes).
        let want = basis.decompose(&limbs).map_err(s)?;
        let dl = plan.upload_limbs(&limbs).map_err(s)?;
        let mut dr = plan.zeros(batch).map_err(s)?;
        plan.decompose(&dl, &mut dr).map_err(s)?;
        eq("decompose", &gpu.download(&dr).map_err(s)?, &want)?;
        if log_n <= 10 {
            let big = basis.from_limbs(&limbs).map_err(s)?;
            eq("decompose vs num-bigint", &want, &basis.to_residues(&big).map_err(s)?)?;
        }
        // CRT of random residues: device == CPU bodies.
        let len = n * batch;
        let res: Vec<W> = basis.towers().iter().flat_map(|p| rng.coeffs(len, p.q())).collect();
        let want = basis.reconstruct(&res).map_err(s)?;
        let dres = plan.upload(&res).map_err(s)?;
        let mut out = plan.zeros_limbs(batch).map_err(s)?;
        plan.reconstruct(&dres, &mut out).map_err(s)?;
        eq("CRT", &plan.download_limbs(&out).map_err(s)?, &want)?;
        // Every CRT kernel forced (the one-thread kernel and each column
        // arithmetic, whatever L): the same limbs.
        let forced = std::iter::once(CrtChoice::Rows).chain(CrtColsVariant::ALL.map(CrtChoice::Columns));
        for choice in forced {
            plan.reconstruct_with(choice, &dres, &mut out).map_err(s)?;
            eq(&format!("CRT {choice:?}"), &plan.download_limbs(&out).map_err(s)?, &want)?;
        }
        if log_n <= 12 {
            let big = basis.from_residues(&res).map_err(s)?;
            eq("CRT vs num-bigint", &want, &basis.to_limbs(&big).map_err(s)?)?;
        }
        // CRT of the decomposed edge values gives the limbs back.
        plan.reconstruct(&dr, &mut out).map_err(s)?;
        eq("CRT round trip", &plan.download_limbs(&out).map_err(s)?, &limbs)?;
        // The product, host limbs to host limbs.
        let b = limbs_below_q(&basis, batch, &mut rng)?;
        let got = plan.polymul_limbs(&limbs, &b).map_err(s)?;
        eq("polymul_limbs", &got, &emulation::rns_polymul_limbs(&basis, &limbs, &b).map_err(s)?)
    })();
    t.record(&format!("{tag} == CPU"), res);
}

/// `polymul_big` end to end against the schoolbook product modulo Q.
fn big_product<W: Coeff>(gpu: &Gpu, bits: u32, log_q: u64, seed: u64, t: &mut Tally) {
    let n = 64;
    let name =
        format!("convert u{} polymul_big {bits}-bit towers, log2 Q {log_q}, N = {n} == schoolbook", W::BITS);
    let res = (|| {
        let basis = RnsBasis::<W>::with_modulus_bits(n, bits, log_q).map_err(s)?;
        let plan = RnsPlan::with_options(gpu, &basis, crate::env_options::plan_options()).map_err(s)?;
        let q = basis.modulus();
        let mut rng = SplitMix64::new(seed);
        let mut rand = |top: bool| -> Vec<BigUint> {
            (0..n)
                .map(|_| {
                    if top {
                        return q - 1u32;
                    }
                    let words = q.bits().div_ceil(32) as usize;
                    BigUint::new((0..words).map(|_| rng.next_u64() as u32).collect()) % q
                })
                .collect()
        };
        for (a, b) in [(rand(false), rand(false)), (rand(true), rand(true))] {
            let got = plan.polymul_big(&a, &b).map_err(s)?;
            if got != cpu::negacyclic_naive_big(&a, &b, q).map_err(s)? {
                return Err("GPU product differs from the schoolbook product mod Q".into());
            }
        }
        Ok(())
    })();
    t.record(&name, res);
}

/// The device API's typed errors.
fn errors(gpu: &Gpu, t: &mut Tally) {
    let res = (|| {
        let basis = RnsBasis::<u64>::with_modulus_bits(1 << 10, 62, 1240).map_err(s)?;
        let other = RnsBasis::<u64>::with_modulus_bits(1 << 10, 62, 300).map_err(s)?;
        let plan = RnsPlan::with_options(gpu, &basis, crate::env_options::plan_options()).map_err(s)?;
        let plan2 = RnsPlan::with_options(gpu, &other, crate::env_options::plan_options()).map_err(s)?;
        let l = basis.limbs();
        let mut bad = vec![0u64; (1 << 10) * l];
        bad[7 * l + l - 1] = u64::MAX;
        match plan.upload_limbs(&bad) {
            Err(Error::BigCoefficientOutOfRange { index: 7, .. }) => {}
            other => return Err(format!("limbs >= Q: {other:?}")),
        }
        match plan.upload_limbs(&bad[1..]) {
            Err(Error::NotAMultipleOfN { .. }) => {}
            other => return Err(format!("length: {other:?}")),
        }
        let foreign = plan2.zeros_limbs(1).map_err(s)?;
        let mut r = plan.zeros(1).map_err(s)?;
        match plan.decompose(&foreign, &mut r) {
            Err(Error::LimbsMismatch { .. }) => {}
            other => return Err(format!("L mismatch: {other:?}")),
        }
        let limbs2 = plan.zeros_limbs(2).map_err(s)?;
        match plan.decompose(&limbs2, &mut r) {
            Err(Error::LengthMismatch { .. }) => {}
            other => return Err(format!("batch mismatch: {other:?}")),
        }
        Ok(())
    })();
    t.record("convert: device API errors (limbs >= Q, length, L mismatch, batch mismatch)", res);
}

/// The suite (`--only convert`).
pub fn convert_suite(gpu: &Gpu, seed: u64, t: &mut Tally) {
    let cases: &[(u32, u64, u32, usize)] = &[
        (62, 62, 10, 1),
        (62, 200, 10, 3),
        (62, 1240, 12, 2),
        (62, 1240, 16, 1),
        (62, 4096, 12, 1),
        (62, 4096, 16, 1),
        // 12 coefficients: one partial block of the column CRT.
        (62, 4096, 2, 3),
        // 141 narrow towers: the opt-in path on u64.
        (20, 2800, 2, 1),
    ];
    for (i, &(bits, log_q, log_n, batch)) in cases.iter().enumerate() {
        case::<u64>(gpu, bits, log_q, log_n, batch, seed ^ i as u64, t);
    }
    let cases: &[(u32, u64, u32, usize)] = &[
        (30, 30, 10, 1),
        (30, 100, 10, 3),
        (30, 1240, 12, 2),
        (30, 1240, 16, 1),
        (30, 4096, 12, 1),
        (28, 4096, 13, 1),
        (30, 4096, 2, 3),
        // 200 narrow towers: the column CRT's blocks need more than the
        // default 48 KiB of shared memory (the opt-in path).
        (20, 4000, 2, 3),
    ];
    for (i, &(bits, log_q, log_n, batch)) in cases.iter().enumerate() {
        case::<u32>(gpu, bits, log_q, log_n, batch, seed ^ (100 + i as u64), t);
    }
    big_product::<u64>(gpu, 62, 1240, seed ^ 200, t);
    big_product::<u64>(gpu, 62, 4096, seed ^ 201, t);
    big_product::<u32>(gpu, 30, 1240, seed ^ 202, t);
    big_product::<u32>(gpu, 30, 4096, seed ^ 203, t);
    errors(gpu, t);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fewer coefficients than edge values (N = 2, batch 1: the soak's
    /// first GPU run hit an index panic here): the limbs still fill the
    /// batch, each coefficient below Q.
    #[test]
    fn limbs_below_q_with_fewer_coefficients_than_edges() {
        for (n, towers) in [(2usize, 1usize), (2, 5), (4, 3)] {
            let basis = RnsBasis::<u64>::new(n, 62, towers).unwrap();
            let limbs = limbs_below_q(&basis, 1, &mut SplitMix64::new(9)).unwrap();
            let l = basis.limbs();
            assert_eq!(limbs.len(), n * l);
            for c in limbs.chunks(l) {
                let words: Vec<u32> = c.iter().flat_map(|w| [*w as u32, (*w >> 32) as u32]).collect();
                assert!(BigUint::from_slice(&words) < *basis.modulus());
            }
            assert!(limbs[..l].iter().all(|&w| w == 0), "coefficient 0 is the edge 0");
        }
    }
}
