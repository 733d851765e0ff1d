//! The reduction check of device operands without a host wait (issue 54,
//! `check_reduced_async` / `take_reduced_error`): reduced words pass, one
//! unreduced word in any tower (the first word, the last, one equal to its
//! own tower's prime but below another tower's) is reported once, after
//! the check kernel ran, and nothing is reported before a check runs.

use super::{Tally, s};
use polymul::prelude::*;
use polymul::rns::{RnsBasis, RnsPlan};
use polymul::{Coeff, Error, Gpu};

fn case<W: Coeff>(gpu: &Gpu, bits: u32) -> Result<(), String> {
    let n = 1usize << 12;
    let basis = RnsBasis::<W>::new(n, bits, 3).map_err(s)?;
    let plan = RnsPlan::new(gpu, &basis).map_err(s)?;
    let q: Vec<u64> = basis.primes();
    let good: Vec<W> = q
        .iter()
        .flat_map(|&p| (0..2 * n as u64).map(move |i| W::from_u64(if i % 3 == 0 { p - 1 } else { i % p })))
        .collect();
    plan.take_reduced_error().map_err(|e| format!("before any check: {e}"))?;
    let d = plan.upload(&good).map_err(s)?;
    plan.check_reduced_async(&d).map_err(s)?;
    plan.synchronize().map_err(s)?;
    plan.take_reduced_error().map_err(|e| format!("reduced words: {e}"))?;
    // Tower t's words start at t · 2n; the smallest prime's tower is
    // checked with a word equal to its prime (below the others').
    let smallest = (0..q.len()).min_by_key(|&t| q[t]).unwrap_or(0);
    let at = [(0usize, q[0]), (3 * 2 * n - 1, q[2]), (smallest * 2 * n + 5, q[smallest])];
    for (i, v) in at {
        let mut bad = good.clone();
        bad[i] = W::from_u64(v);
        // `Gpu::upload` does not check words against a modulus (the
        // plan's `upload` would refuse this one).
        let mut d = plan.zeros(2).map_err(s)?;
        let raw = gpu.upload(&bad).map_err(s)?;
        plan.check_reduced_async(&raw).map_err(s)?;
        plan.forward(&mut d).map_err(s)?;
        plan.synchronize().map_err(s)?;
        match plan.take_reduced_error() {
            Err(Error::UnreducedDeviceInput) => {}
            r => return Err(format!("word {i} = {v}: expected UnreducedDeviceInput, got {r:?}")),
        }
        plan.take_reduced_error().map_err(|e| format!("word {i}: reported twice: {e}"))?;
    }
    Ok(())
}

/// The suite.
pub fn reduced_suite(gpu: &Gpu, t: &mut Tally) {
    t.record("reduced: u32 30-bit towers", case::<u32>(gpu, 30));
    t.record("reduced: u64 62-bit towers", case::<u64>(gpu, 62));
}
