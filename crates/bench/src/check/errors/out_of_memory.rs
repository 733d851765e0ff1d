//! The `errors` suite's out-of-device-memory checks: a batch larger than
//! the card, and every allocation of every plan type while the card is
//! full; afterwards the same plans and context still compute the CPU's
//! product.

use super::{check, dgt_cpu};
use crate::check::{Tally, eq, s};
use crate::host_ext::{dgt_forward_host, forward_host, inverse_host};
use polymul::dgt::{self, DgtConfig, DgtParams, DgtPlan};
use polymul::expert::{DgtPipeline, SplitMix64, emulation};
use polymul::planner::{Modulus, Multiplier};
use polymul::prelude::*;
use polymul::rns::{RnsBasis, RnsPlan};
use polymul::{DeviceVec, Error, Gpu, NttParams, NttPlan};

fn oom(e: &Error) -> bool {
    matches!(e, Error::OutOfDeviceMemory { .. })
}

/// Out of device memory through every plan type.
///
/// 1. A batch larger than the card, asked of `zeros` where the batch limit
///    (`u32::MAX / N` words per tower) allows one: RNS and DGT plans with
///    enough towers, and an RNS multiplier.
/// 2. The card full (1 GiB buffers, then ever smaller ones, held): every
///    allocation of every plan type — `zeros`, `upload`, the host
///    products, the DGT plan's scratch on its first `forward`, and a new
///    plan's tables — fails with `OutOfDeviceMemory`.
///
/// After each, with the memory back, the same plans and context compute
/// the CPU's product.
pub(super) fn out_of_memory(gpu: &Gpu, t: &mut Tally) {
    let total = gpu.info().total_memory;
    let n = 1usize << 12;
    let max_batch = u32::MAX as usize / n;
    // u64: a tower's largest batch is 32 GiB; enough towers to pass the card.
    let towers64 = total / (max_batch * n * 8) + 2;
    let towers32 = total / (max_batch * n * 4) + 2;
    let mut rng = SplitMix64::new(99);

    let rns = RnsBasis::<u64>::new(n, 62, towers64).and_then(|b| RnsPlan::new(gpu, &b).map(|p| (b, p)));
    let dgt_params: polymul::Result<Vec<DgtParams<u32>>> =
        dgt::dgt_primes(30, n, towers32).and_then(|ps| ps.iter().map(|&p| DgtParams::new(n, p)).collect());
    let cfg = DgtConfig::default_for(11);
    let dgtp = dgt_params.and_then(|ps| DgtPlan::with_towers(gpu, &ps, cfg).map(|p| (ps, p)));
    let mul = Multiplier::<u64>::with_wisdom(gpu, n, Modulus::Rns { bits: 62, towers: towers64 }, 1, None);
    let (Ok((basis, rns)), Ok((dgt_ps, dgtp)), Ok(mul)) = (rns, dgtp, mul) else {
        return t.record("errors: out-of-memory plans", Err("could not build the plans".into()));
    };
    let ntt = match NttParams::<u64>::with_prime_bits(n, 62).and_then(|p| NttPlan::new(gpu, p)) {
        Ok(p) => p,
        Err(e) => return t.record("errors: out-of-memory NTT plan", Err(s(e))),
    };
    let q = ntt.params().q();
    let (a, b) = (rng.coeffs(n, q), rng.coeffs(n, q));
    let res_a: Vec<u64> = basis.towers().iter().flat_map(|p| rng.coeffs(n, p.q())).collect();
    let dgt_a: Vec<u32> = dgt_ps.iter().flat_map(|p| rng.coeffs(n, p.p())).collect();
    let mul_a: Vec<u64> = mul.primes().iter().flat_map(|&q| rng.coeffs(n, q)).collect();
    let mul_basis = RnsBasis::<u64>::from_primes(n, mul.primes());

    // Each plan right: after an out-of-memory error it must still be.
    let all_right = |when: &str| -> Result<(), String> {
        eq(
            &format!("NTT {when}"),
            &ntt.polymul(&a, &b).map_err(s)?,
            &emulation::polymul(ntt.params(), &a, &b).map_err(s)?,
        )?;
        eq(
            &format!("RNS {when}"),
            &rns.polymul(&res_a, &res_a).map_err(s)?,
            &emulation::rns_polymul(&basis, &res_a, &res_a).map_err(s)?,
        )?;
        eq(
            &format!("DGT {when}"),
            &dgtp.polymul(&dgt_a, &dgt_a).map_err(s)?,
            &dgt_cpu(&dgt_ps, &cfg, &dgt_a, &dgt_a)?,
        )?;
        let mb = mul_basis.as_ref().map_err(s)?;
        eq(
            &format!("Multiplier {when}"),
            &mul.polymul(&mul_a, &mul_a).map_err(s)?,
            &emulation::rns_polymul(mb, &mul_a, &mul_a).map_err(s)?,
        )
    };

    // 1. Batches larger than the card.
    let bigger = |e: &Error, bytes_at_least: usize| matches!(e, Error::OutOfDeviceMemory { bytes, .. } if *bytes >= bytes_at_least);
    check(
        t,
        &format!("RnsPlan::zeros of {towers64} towers × 32 GiB (larger than the card)"),
        rns.zeros(max_batch),
        |e| bigger(e, total),
    );
    check(
        t,
        &format!("DgtPlan::zeros of {towers32} towers × 16 GiB (larger than the card)"),
        dgtp.zeros(max_batch),
        |e| bigger(e, total),
    );
    check(
        t,
        &format!("Multiplier::zeros of {towers64} towers × 32 GiB (larger than the card)"),
        mul.zeros(max_batch),
        |e| bigger(e, total),
    );
    t.record(
        "errors: every plan right after a batch larger than the card",
        all_right("after a batch larger than the card"),
    );

    // 2. The card full. DGT data buffers made first: on the full card the
    // forward of Coala's pipeline needs a larger scratch buffer than its
    // plan has yet; the fused pipeline's needs none, so it runs.
    let coala = DgtPlan::with_pipeline(gpu, &dgt_ps, cfg, DgtPipeline::Coala);
    let (mut dgt_data, coala, mut coala_data) = match (dgtp.zeros(64), coala) {
        (Ok(d), Ok(c)) => match c.zeros(64) {
            Ok(cd) => (d, c, cd),
            Err(e) => return t.record("errors: DGT data buffer (Coala's pipeline)", Err(s(e))),
        },
        (Err(e), _) | (_, Err(e)) => return t.record("errors: DGT data buffer", Err(s(e))),
    };
    let mut hog: Vec<DeviceVec<u64>> = Vec::new();
    let mut words = 1usize << 27; // 1 GiB, then halves down to 256 bytes
    while words >= 32 && hog.len() < 100_000 {
        match gpu.zeros::<u64>(words) {
            Ok(v) => hog.push(v),
            Err(Error::OutOfDeviceMemory { .. }) => words /= 2,
            Err(e) => {
                drop(hog);
                return t.record("errors: filling the card", Err(s(e)));
            }
        }
    }
    let held: usize = hog.iter().map(|v| v.len() * 8).sum();
    t.record(
        &format!(
            "errors: the card filled ({} buffers, {:.1} GiB held)",
            hog.len(),
            held as f64 / (1u64 << 30) as f64
        ),
        if held > total / 2 { Ok(()) } else { Err(format!("only {held} of {total} bytes")) },
    );
    let batch64 = vec![1u64; 64 * n]; // 2 MiB: more than is left
    let rns_batch = vec![1u64; 64 * n * towers64];
    let dgt_batch = vec![1u32; 128 * n * towers32];
    check(t, "card full: NttPlan::zeros", ntt.zeros(64), oom);
    check(t, "card full: NttPlan::upload", ntt.upload(&batch64), oom);
    check(t, "card full: NttPlan::polymul", ntt.polymul(&batch64, &batch64), oom);
    check(t, "card full: NttPlan::forward_host", forward_host(&ntt, &batch64), oom);
    check(t, "card full: NttPlan::inverse_host", inverse_host(&ntt, &batch64), oom);
    let big = NttParams::<u64>::with_prime_bits(1 << 20, 62);
    check(t, "card full: NttPlan::new (its twiddle tables)", big.and_then(|p| NttPlan::new(gpu, p)), oom);
    check(t, "card full: RnsPlan::zeros", rns.zeros(64), oom);
    check(t, "card full: RnsPlan::upload", rns.upload(&rns_batch), oom);
    check(t, "card full: RnsPlan::polymul", rns.polymul(&rns_batch, &rns_batch), oom);
    check(t, "card full: DgtPlan::zeros", dgtp.zeros(128), oom);
    check(t, "card full: DgtPlan::upload", dgtp.upload(&dgt_batch), oom);
    check(t, "card full: DgtPlan::polymul", dgtp.polymul(&dgt_batch, &dgt_batch), oom);
    check(t, "card full: DgtPlan::forward_host", dgt_forward_host(&dgtp, &dgt_batch), oom);
    check(t, "card full: Multiplier::zeros", mul.zeros(64), oom);
    check(t, "card full: Multiplier::upload", mul.upload(&rns_batch), oom);
    check(t, "card full: Multiplier::polymul", mul.polymul(&rns_batch, &rns_batch), oom);
    let planned = Multiplier::<u64>::with_wisdom(gpu, 1 << 20, Modulus::Bits(62), 1, None);
    check(t, "card full: Multiplier::with_wisdom (a new plan)", planned, oom);
    // Last (it frees the plan's old, smaller scratch before it asks).
    check(
        t,
        "card full: DgtPlan::forward, Coala's pipeline (its scratch buffer)",
        coala.forward(&mut coala_data),
        oom,
    );
    t.record(
        "card full: DgtPlan::forward, fused pipeline (no scratch: runs)",
        dgtp.forward(&mut dgt_data).and_then(|_| dgtp.synchronize()).map_err(s),
    );
    drop(hog);
    drop((dgt_data, coala_data));
    t.record(
        "errors: every plan and the context right after the card was full",
        all_right("after the card was full"),
    );
}
