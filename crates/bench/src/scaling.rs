//! The `scaling` section (issue 35): the same work on 1, 2, 4 … GPUs of
//! the host through one [`MultiPlan`], with the copy rates it is bounded by
//! measured in the same run.
//!
//! - **Copies**: each GPU's pinned host ↔ device rates, the host's own
//!   pageable ↔ pinned rate (shared by every GPU's host-slice pieces), and
//!   peer copies from GPU 0 to each other GPU.
//! - **Device-resident**: a `u64` N = 2^16 batch (1024 polynomials, 256
//!   with `--quick`) multiplied in place on [`polymul::SpreadVec`]s, and
//!   an RNS product of 40 × 62-bit towers at N = 2^17 split by towers
//!   ([`MultiPlan::rns`]); wall-clock time from queueing on every GPU to
//!   every GPU's synchronisation, median after warm-up. Speed-up: the one
//!   GPU row's time over this row's (issue 35's goals: ≥ 1.9× / 3.6× for
//!   the batch on 2 / 4 GPUs, ≥ 1.7× / 3.0× for the RNS product).
//! - **Limbs**: the same RNS product on big-integer limbs resident on GPU
//!   0 (`MultiPlan::polymul_limbs_into`: every GPU converts a slice of the
//!   coefficients and multiplies its towers, the words exchanged by peer
//!   copies), against a model with nothing overlapped: the one-GPU
//!   conversions (its limb time less its residue time) divided among the
//!   GPUs, plus the slowest GPU's towers alone, plus the slowest GPU's
//!   copies at the measured peer rate (its limb slice in and out, and the
//!   residues it exchanges: its slice's other towers out, its towers of
//!   the other slices in, both operands over and the product back).
//! - **Limbs host → host**: four such polynomials' limbs from host slices
//!   to host slices (`MultiPlan::polymul_limbs`: each GPU's coefficient
//!   slice up and down over its own bus), against the copy floor as below.
//! - **Host → host**: the same batch from host slices to host slices,
//!   against the floor its copies allow: the slower of the bus (each GPU
//!   moves its share's two operands up and result down at its own pinned
//!   rates, the GPUs at once) and the host (every operand and the result
//!   cross pageable ↔ pinned memory once, at the host's rate, shared).
//!   Goal: within 1.3× of that floor.

use crate::report::Table;
use crate::split::wall;
use polymul::expert::GpuTiming;
use polymul::prelude::*;
use polymul::rns::RnsBasis;
use polymul::{Gpu, MultiPlan, NttParams};

/// Median seconds the host spends in `queue` (work queued on the GPUs,
/// not waited for: `sync` runs after each timing), after one warm-up.
fn queued(
    reps: usize,
    mut queue: impl FnMut() -> polymul::Result<()>,
    sync: impl Fn() -> polymul::Result<()>,
) -> Result<f64, String> {
    let mut v = Vec::with_capacity(reps);
    for i in 0..=reps.max(1) {
        let t0 = std::time::Instant::now();
        queue().map_err(|e| e.to_string())?;
        let t = t0.elapsed().as_secs_f64();
        sync().map_err(|e| e.to_string())?;
        if i > 0 {
            v.push(t);
        }
    }
    v.sort_by(f64::total_cmp);
    Ok(v[v.len() / 2])
}

/// GPU counts of the section: 1, 2, 4, … up to every GPU (and every GPU
/// where that is not a power of two).
fn counts(gpus: usize) -> Vec<usize> {
    let mut v: Vec<usize> =
        std::iter::successors(Some(1usize), |k| Some(k * 2)).take_while(|&k| k <= gpus).collect();
    if v.last() != Some(&gpus) {
        v.push(gpus);
    }
    v
}

/// The section's tables: copy rates, then the scaling rows.
pub fn tables(quick: bool) -> Result<Vec<Table>, String> {
    let s = |e: polymul::Error| e.to_string();
    let gpus = Gpu::all().map_err(s)?;
    let reps = if quick { 5 } else { 15 };
    let mut copies = Table::new(
        "Multi-GPU: copy rates (issue 35)",
        &["copy", "from", "to", "MiB", "GB/s", "over the GPUs' link"],
    );
    copies.note = "Pinned host ↔ device copies of each GPU alone; the host's pageable ↔ pinned copies on every \
                   core (what every GPU's host-slice pieces share); peer copies from GPU 0 (cuMemcpyPeerAsync, \
                   peer access enabled where the devices allow). Median of the repetitions."
        .into();
    let bytes = 256usize << 20;
    let mib = (bytes >> 20).to_string();
    let mut bus = Vec::new();
    for g in &gpus {
        let (up, down) = g.host_copy_gbs(bytes, reps).map_err(s)?;
        let o = g.info().ordinal;
        copies.rows.push(vec![
            "pinned H2D".into(),
            "host".into(),
            format!("GPU {o}"),
            mib.clone(),
            format!("{up:.1}"),
            "—".into(),
        ]);
        copies.rows.push(vec![
            "pinned D2H".into(),
            format!("GPU {o}"),
            "host".into(),
            mib.clone(),
            format!("{down:.1}"),
            "—".into(),
        ]);
        bus.push((up, down));
    }
    let (to_pinned, from_pinned) = gpus[0].host_staging_gbs(bytes, reps).map_err(s)?;
    copies.rows.push(vec![
        "pageable → pinned".into(),
        "host".into(),
        "host".into(),
        mib.clone(),
        format!("{to_pinned:.1}"),
        "—".into(),
    ]);
    copies.rows.push(vec![
        "pinned → pageable".into(),
        "host".into(),
        "host".into(),
        mib.clone(),
        format!("{from_pinned:.1}"),
        "—".into(),
    ]);
    let mut peer = vec![f64::INFINITY];
    for g in gpus.iter().skip(1) {
        let (gbs, direct) = gpus[0].peer_copy_gbs(g, bytes, reps).map_err(s)?;
        peer.push(gbs);
        let o = g.info().ordinal;
        copies.rows.push(vec![
            "peer".into(),
            "GPU 0".into(),
            format!("GPU {o}"),
            mib.clone(),
            format!("{gbs:.1}"),
            if direct { "yes" } else { "no" }.into(),
        ]);
    }
    for row in &copies.rows {
        eprintln!("  scaling copies: {}", row.join(" | "));
    }

    let mut t = Table::new(
        "Multi-GPU scaling (issue 35)",
        &["work", "GPUs", "ms", "GB/s", "speed-up", "goal", "floor ms", "of floor"],
    );
    t.note = "One MultiPlan over the first k GPUs. Device-resident rows: wall-clock from queueing on every GPU to \
              the last GPU's synchronisation (GB/s: two operands read and the result written, once each), on GPU \
              handles no other thread has used (the plans replay graphs of repeated calls). \
              Host → host: host slices in and out; its floor is the slower of the bus (each GPU's share up and \
              down at its own pinned rates, all at once) and the host's pageable ↔ pinned copies (all the words, \
              shared). Limbs: big-integer coefficients (39 words each) on GPU 0, checked against the CPU; \
              its floor is a model with nothing overlapped: the one-GPU conversions divided among the GPUs, \
              the slowest GPU's towers alone, and the slowest GPU's peer copies at the measured rate. \
              Speed-up against the 1-GPU row of the same work in this run."
        .into();
    let batch = if quick { 256 } else { 1024 };
    let n = 1usize << 16;
    let p = NttParams::<u64>::with_prime_bits(n, 62).map_err(s)?;
    let a = crate::check::split_coeffs(batch * n, p.q(), 1);
    let b = crate::check::split_coeffs(batch * n, p.q(), 2);
    let bytes = (batch * n * 8) as f64;
    let goal = |k: usize, two: f64, four: f64| match k {
        2 => format!("≥ {two}×"),
        4 => format!("≥ {four}×"),
        _ => "—".into(),
    };
    let push = |t: &mut Table,
                work: &str,
                k: usize,
                secs: f64,
                one: f64,
                goal: String,
                floor: Option<f64>,
                moved: f64| {
        let gbs = moved / secs / 1e9;
        let (floor_ms, of) = match floor {
            Some(f) => (format!("{:.2}", f * 1e3), format!("{:.2}×", secs / f)),
            None => ("—".into(), "—".into()),
        };
        let row = vec![
            work.to_string(),
            k.to_string(),
            format!("{:.3}", secs * 1e3),
            if gbs.is_nan() { "—".into() } else { format!("{gbs:.0}") },
            if one.is_nan() { "—".into() } else { format!("{:.2}×", one / secs) },
            goal,
            floor_ms,
            of,
        ];
        eprintln!("  scaling: {}", row.join(" | "));
        t.rows.push(row);
    };
    let mut one = (0.0, 0.0, 0.0, 0.0, 0.0);
    let basis = RnsBasis::<u64>::new(1 << 17, 62, 40).map_err(s)?;
    let primes = basis.primes();
    let ra: Vec<u64> = primes.iter().flat_map(|&q| crate::check::split_coeffs(1 << 17, q, 3)).collect();
    let rb: Vec<u64> = primes.iter().flat_map(|&q| crate::check::split_coeffs(1 << 17, q, 4)).collect();
    let rns_bytes = 3.0 * (40usize << 17) as f64 * 8.0;
    // The same product on limbs (L = 39 words per coefficient), resident on
    // the first GPU: decomposition and CRT there, towers by peer copies.
    let la = basis.reconstruct(&ra).map_err(s)?;
    let lb = basis.reconstruct(&rb).map_err(s)?;
    let limb_bytes = 3.0 * la.len() as f64 * 8.0;
    let cpu = polymul::CpuRnsPlan::new(&basis).map_err(s)?;
    let want_limbs = basis.reconstruct(&cpu.polymul(&ra, &rb).map_err(s)?).map_err(s)?;
    // Four polynomials of limbs (the one above four times) host → host.
    let (ha, hb, hwant) = (la.repeat(4), lb.repeat(4), want_limbs.repeat(4));
    let host_limb_bytes = ha.len() as f64 * 8.0;
    let label = format!("u64 N=2^16 × {batch}");
    for k in counts(gpus.len()) {
        // Device-resident rows on handles only this thread uses: their plans
        // replay graphs of repeated calls (a GPU that a host call's thread per
        // device has used launches plainly from then on, gpu/threads.rs).
        let fresh = Gpu::all().map_err(s)?;
        let fresh = &fresh[..k];
        let mut multi = MultiPlan::ntt(fresh, p.clone()).map_err(s)?;
        multi.set_min_words_per_device(0);
        // Device-resident.
        let (mut x, mut y) = (multi.upload(&a).map_err(s)?, multi.upload(&b).map_err(s)?);
        let dev = wall(reps, || {
            multi.polymul_in_place(&mut x, &mut y).map_err(s)?;
            multi.synchronize().map_err(s)
        })?;
        // The host's part of it: queueing on every GPU (synchronised
        // outside the timing).
        let dev_queue = queued(reps, || multi.polymul_in_place(&mut x, &mut y), || multi.synchronize())?;
        drop((x, y));
        // One share alone on GPU 0 (the others idle): what the split would
        // take with nothing added.
        let plan0 = &multi.plans()[0];
        let per = batch.div_ceil(k) * n;
        let (mut x, mut y) = (plan0.upload(&a[..per]).map_err(s)?, plan0.upload(&b[..per]).map_err(s)?);
        let dev_alone = wall(reps, || {
            plan0.polymul_in_place(&mut x, &mut y).map_err(s)?;
            plan0.synchronize().map_err(s)
        })?;
        drop((x, y));
        // Host → host (a thread per device).
        let mut multi = MultiPlan::ntt(&gpus[..k], p.clone()).map_err(s)?;
        multi.set_min_words_per_device(0);
        let mut out = vec![0u64; a.len()];
        let host = wall(reps.min(7), || multi.polymul_into(&a[..], &b[..], &mut out[..]).map_err(s))?;
        // RNS by towers: one product of 40 towers at N = 2^17.
        let rns = MultiPlan::rns(fresh, &basis).map_err(s)?;
        let (mut rx, mut ry) = (rns.upload(&ra).map_err(s)?, rns.upload(&rb).map_err(s)?);
        let rns_s = wall(reps * 4, || {
            rns.polymul_in_place(&mut rx, &mut ry).map_err(s)?;
            rns.synchronize().map_err(s)
        })?;
        let rns_queue = queued(reps * 4, || rns.polymul_in_place(&mut rx, &mut ry), || rns.synchronize())?;
        drop((rx, ry));
        // The limb product (decomposition, towers, CRT).
        let (lx, ly) = (rns.upload_limbs(&la).map_err(s)?, rns.upload_limbs(&lb).map_err(s)?);
        let mut lout = rns.zeros_limbs(1).map_err(s)?;
        let mut scratch = rns.limb_scratch(1).map_err(s)?;
        let limbs_s = wall(reps * 4, || {
            rns.polymul_limbs_into(&lx, &ly, &mut lout, &mut scratch).map_err(s)?;
            rns.synchronize().map_err(s)
        })?;
        if rns.download_limbs(&lout).map_err(s)? != want_limbs {
            return Err(format!("the limb product on {k} GPUs differs from the CPU's"));
        }
        drop((lx, ly, lout, scratch));
        // Each GPU's towers alone (the others idle), the slowest; and the
        // slowest GPU's copies of the limb product at GPU 0's peer rate to
        // it: limbs of its slice (two operands in, the product out) and
        // residues (its slice's other towers out and its towers of the
        // other slices in: two operands over, the product back).
        let mut rns_alone = 0.0f64;
        let mut limbs_copies = 0.0f64;
        let coeffs = (1usize << 17) as f64 / k as f64;
        let mut first = 0;
        for (i, plan) in rns.plans().iter().enumerate() {
            let towers = plan.moduli().len();
            let words = (first << 17)..((first + towers) << 17);
            first += towers;
            let (mut x, mut y) =
                (plan.upload(&ra[words.clone()]).map_err(s)?, plan.upload(&rb[words]).map_err(s)?);
            let t = wall(reps * 4, || {
                plan.polymul_in_place(&mut x, &mut y).map_err(s)?;
                plan.synchronize().map_err(s)
            })?;
            rns_alone = rns_alone.max(t);
            let limb_words = if i == 0 { 0.0 } else { 3.0 * 39.0 * coeffs };
            let exchanged = 3.0 * coeffs * ((40 - towers) + towers * (k - 1)) as f64;
            let rate = if i == 0 { peer.get(1).copied().unwrap_or(f64::INFINITY) } else { peer[i] };
            limbs_copies = limbs_copies.max((limb_words + exchanged) * 8.0 / (rate * 1e9));
        }
        // The limb product host → host (last: its thread per GPU turns the
        // plans' graph captures off): each GPU's slice up and down over its
        // own bus.
        let mut hout = Vec::new();
        let limbs_host = wall(reps.min(5), || {
            hout = rns.polymul_limbs(&ha, &hb).map_err(s)?;
            Ok(())
        })?;
        if hout != hwant {
            return Err(format!("the host limb product on {k} GPUs differs from the CPU's"));
        }
        if k == 1 {
            one = (dev, host, rns_s, limbs_s, limbs_host);
        }
        // The conversions' own time: the one-GPU limb product less its
        // residue product.
        let conversions = (one.3 - one.2).max(0.0);
        // The floor of a host → host call moving `bytes` per operand on k
        // GPUs: the slower of the bus (each GPU's share of two operands up
        // and the result down, at its own pinned rates, all at once) and
        // the host (everything across pageable ↔ pinned once, shared).
        let host_floor = |bytes: f64| {
            let share = bytes / k as f64;
            let bus_s = bus[..k]
                .iter()
                .map(|(up, down)| 2.0 * share / (up * 1e9) + share / (down * 1e9))
                .fold(0.0, f64::max);
            let host_s = 2.0 * bytes / (to_pinned * 1e9) + bytes / (from_pinned * 1e9);
            bus_s.max(host_s)
        };
        let (dev_goal, rns_goal) = (goal(k, 1.9, 3.6), goal(k, 1.7, 3.0));
        let work = format!("{label} polymul, device-resident");
        push(&mut t, &work, k, dev, one.0, dev_goal, None, 3.0 * bytes);
        if k > 1 {
            let work = format!("{label} polymul, device-resident: one share alone on GPU 0");
            push(&mut t, &work, k, dev_alone, one.0, "—".into(), None, 3.0 * bytes / k as f64);
            let work = format!("{label} polymul, device-resident: the host's queueing on every GPU");
            push(&mut t, &work, k, dev_queue, f64::NAN, "—".into(), None, f64::NAN);
        }
        let work = format!("{label} polymul_into, host → host");
        let floor = Some(host_floor(bytes));
        push(&mut t, &work, k, host, one.1, "≤ 1.3× floor".into(), floor, 3.0 * bytes);
        if k == 1 {
            // The plain plan, for what a MultiPlan of one GPU adds.
            let plain = polymul::NttPlan::new(&gpus[0], p.clone()).map_err(s)?;
            let t1 = wall(reps.min(7), || plain.polymul_into(&a[..], &b[..], &mut out[..]).map_err(s))?;
            let work = format!("{label} polymul_into, host → host, NttPlan alone");
            push(&mut t, &work, 1, t1, host, "—".into(), floor, 3.0 * bytes);
        }
        let work = "RNS 40 × 62-bit, N=2^17, by towers, device-resident";
        push(&mut t, work, k, rns_s, one.2, rns_goal, None, rns_bytes);
        if k > 1 {
            let work = "RNS 40 × 62-bit by towers: each GPU's towers alone, the slowest";
            push(&mut t, work, k, rns_alone, one.2, "—".into(), None, rns_bytes / k as f64);
            let work = "RNS 40 × 62-bit by towers: the host's queueing on every GPU";
            push(&mut t, work, k, rns_queue, f64::NAN, "—".into(), None, f64::NAN);
        }
        let work =
            "RNS 40 × 62-bit, N=2^17, limbs → limbs (conversions split by coefficients), limbs on GPU 0";
        let floor = (k > 1).then_some(conversions / k as f64 + rns_alone + limbs_copies);
        push(&mut t, work, k, limbs_s, one.3, "—".into(), floor, limb_bytes);
        let work = "RNS 40 × 62-bit, N=2^17 × 4, limbs → limbs, host → host";
        let floor = Some(host_floor(host_limb_bytes));
        push(&mut t, work, k, limbs_host, one.4, "—".into(), floor, 3.0 * host_limb_bytes);
        if k == 1 {
            // The plain plan (its pieces' copies pipelined), for what the
            // multi-device path adds on one GPU.
            let plain = polymul::RnsPlan::new(&gpus[0], &basis).map_err(s)?;
            let t1 = wall(reps.min(5), || plain.polymul_limbs(&ha, &hb).map(drop).map_err(s))?;
            let work = "RNS 40 × 62-bit, N=2^17 × 4, limbs → limbs, host → host, RnsPlan alone";
            push(&mut t, work, 1, t1, limbs_host, "—".into(), floor, 3.0 * host_limb_bytes);
        }
    }
    // Where a split pays: device-resident products of growing batches on
    // one GPU and on every GPU (what `MIN_WORDS_PER_DEVICE` rests on).
    let mut w = Table::new(
        "Multi-GPU: where a split by batch pays (issue 35)",
        &[
            "work",
            "words per GPU",
            "1 GPU µs",
            &format!("{} GPUs µs", gpus.len()),
            "speed-up",
            "the rule spreads",
        ],
    );
    w.note = format!(
        "Device-resident polymul_in_place, u64 N=2^12 and 2^16, median wall-clock from queueing to the last \
         synchronisation. The rule: a call spreads over as many GPUs as get at least {} words each.",
        polymul::multi::MIN_WORDS_PER_DEVICE
    );
    if gpus.len() > 1 {
        // As the device-resident rows above: handles only this thread uses.
        let gpus = Gpu::all().map_err(s)?;
        for log_n in [12u32, 16] {
            let n = 1usize << log_n;
            let p = NttParams::<u64>::with_prime_bits(n, 62).map_err(s)?;
            let sa = crate::check::split_coeffs(1 << 23, p.q(), 5);
            let sb = crate::check::split_coeffs(1 << 23, p.q(), 6);
            for log_words in 16..=23 {
                let batch = (1usize << log_words) / n;
                if batch == 0 {
                    continue;
                }
                let (a, b) = (&sa[..batch * n], &sb[..batch * n]);
                let time = |k: usize| -> Result<f64, String> {
                    let mut multi = MultiPlan::ntt(&gpus[..k], p.clone()).map_err(s)?;
                    multi.set_min_words_per_device(0);
                    let (mut x, mut y) = (multi.upload(a).map_err(s)?, multi.upload(b).map_err(s)?);
                    wall(reps * 4, || {
                        multi.polymul_in_place(&mut x, &mut y).map_err(s)?;
                        multi.synchronize().map_err(s)
                    })
                };
                let (t1, tk) = (time(1)?, time(gpus.len())?);
                let rule = MultiPlan::ntt(&gpus, p.clone()).map_err(s)?.devices_for(batch);
                let row = vec![
                    format!("u64 N=2^{log_n} × {batch}"),
                    format!("2^{}", log_words - gpus.len().trailing_zeros()),
                    format!("{:.1}", t1 * 1e6),
                    format!("{:.1}", tk * 1e6),
                    format!("{:.2}×", t1 / tk),
                    format!("{rule} GPU(s)"),
                ];
                eprintln!("  scaling sweep: {}", row.join(" | "));
                w.rows.push(row);
            }
        }
    }
    Ok(vec![copies, t, w])
}
