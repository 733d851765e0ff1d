//! RNS polymul modulo a large `Q` (HEAAN's size: N = 2^16, log2 Q ≈ 1240):
//! 62-bit towers on 64-bit words against 30- and 28-bit towers on 32-bit
//! words, all towers in one launch per step against a plan per tower, and
//! the host's conversion cost (residues in, CRT out) on its own.

use crate::plot::{self, Series};
use crate::report::Table;
use polymul::expert::GpuTiming;
use polymul::expert::kernels::rns::crt_cols::CrtColsVariant;
use polymul::expert::{NttKernel, PlanOptions, RowTwiddles, SplitMix64};
use polymul::prelude::*;
use polymul::rns::{CrtChoice, RnsBasis, RnsPlan};
use polymul::{Coeff, Gpu, NttPlan};
use std::time::Instant;

/// The ring of the measurement: N and the bits of Q.
pub const LOG_N: u32 = 16;
/// Bits of Q: HEAAN's default.
pub const LOG_Q: u64 = 1240;

/// Polynomial pairs per batched measurement.
pub const BATCH: usize = 8;

struct Row {
    cells: Vec<String>,
    label: String,
    per_tower_us: f64,
    one_launch_us: f64,
    fused_us: f64,
}

fn rows<W: Coeff>(gpu: &Gpu, bits: u32, copy_gbs: f64, quick: bool) -> Result<Vec<Row>, String> {
    rows_inner::<W>(gpu, bits, copy_gbs, quick).map_err(|e| e.to_string())?
}

fn rows_inner<W: Coeff>(
    gpu: &Gpu,
    bits: u32,
    copy_gbs: f64,
    quick: bool,
) -> polymul::Result<Result<Vec<Row>, String>> {
    let n = 1usize << LOG_N;
    let basis = RnsBasis::<W>::with_modulus_bits(n, bits, LOG_Q)?;
    let k = basis.len();
    let plan = RnsPlan::with_options(gpu, &basis, crate::env_options::plan_options())?;
    let fused = RnsPlan::with_options(
        gpu,
        &basis,
        PlanOptions { fused_polymul: true, ..crate::env_options::plan_options() },
    )?;
    // The lazy row passes' twiddles both ways in one binary: read from the
    // tables' thread-ordered region, or computed from two small tables
    // (`RowTwiddles`); the default plan above reads tables.
    let rows_plan = |row_twiddles| {
        RnsPlan::with_options(gpu, &basis, PlanOptions { row_twiddles, ..crate::env_options::plan_options() })
    };
    let (tables_plan, computed_plan) = (rows_plan(RowTwiddles::Tables)?, rows_plan(RowTwiddles::Computed)?);
    let per_tower: Vec<NttPlan<W>> = basis
        .towers()
        .iter()
        .map(|p| NttPlan::with_options(gpu, p.clone(), crate::env_options::plan_options()))
        .collect::<polymul::Result<_>>()?;
    let mut out = Vec::new();
    for batch in [1usize, BATCH] {
        let (warm, reps) = crate::repetitions(batch, quick);
        let mut rng = SplitMix64::new(bits as u64 ^ batch as u64);
        let len = n * batch;
        let mut residues =
            || -> Vec<W> { basis.towers().iter().flat_map(|p| rng.coeffs(len, p.q())).collect() };
        let (ra, rb) = (residues(), residues());
        let (mut a, mut b) = (plan.upload(&ra)?, plan.upload(&rb)?);
        let one = gpu.time(warm, reps, || plan.polymul_in_place(&mut a, &mut b))?.median_us;
        let fu = gpu.time(warm, reps, || fused.polymul_in_place(&mut a, &mut b))?.median_us;
        let tab = gpu.time(warm, reps, || tables_plan.polymul_in_place(&mut a, &mut b))?.median_us;
        let com = gpu.time(warm, reps, || computed_plan.polymul_in_place(&mut a, &mut b))?.median_us;
        // The same work as k separate plans: k launches per step.
        let mut ta = Vec::with_capacity(k);
        let mut tb = Vec::with_capacity(k);
        for (i, p) in per_tower.iter().enumerate() {
            ta.push(p.upload(&ra[i * len..(i + 1) * len])?);
            tb.push(p.upload(&rb[i * len..(i + 1) * len])?);
        }
        let sep = gpu
            .time(warm, reps, || {
                for (p, (x, y)) in per_tower.iter().zip(ta.iter_mut().zip(tb.iter_mut())) {
                    p.polymul_in_place(x, y)?;
                }
                Ok(())
            })?
            .median_us;
        // Global-memory bytes of one tower's polymul: 3 transforms of
        // `passes` read+write passes, plus the pointwise pass (2 reads, 1 write).
        let w = std::mem::size_of::<W>();
        let passes = plan.global_passes(batch);
        let bytes = (k * batch * (3 * passes as usize * 2 * n + 3 * n) * w) as f64;
        let gbs = bytes / (one * 1e3);
        // Host conversion, once per configuration (batch 1): residues of
        // random coefficients below Q in, CRT reconstruction out.
        let (to_ms, from_ms) = if batch == 1 {
            let t0 = Instant::now();
            let big = basis.from_residues(&ra)?;
            let from_ms = t0.elapsed().as_secs_f64() * 1e3;
            let t1 = Instant::now();
            let back = basis.to_residues(&big)?;
            let to_ms = t1.elapsed().as_secs_f64() * 1e3;
            if back != ra {
                return Ok(Err(format!("u{} {bits}-bit: CRT round trip changed the residues", W::BITS)));
            }
            (format!("{to_ms:.0}"), format!("{from_ms:.0}"))
        } else {
            ("".into(), "".into())
        };
        let per = |us: f64| us / batch as f64;
        eprintln!(
            "  rns u{} {k}x{bits}-bit batch {batch}: per-tower plans {:.1}, one launch {:.1}, fused {:.1}, \
             row twiddles from tables {:.1} ({} B), computed {:.1} ({} B) µs per polymul",
            W::BITS,
            per(sep),
            per(one),
            per(fu),
            per(tab),
            tables_plan.twiddle_bytes(),
            per(com),
            computed_plan.twiddle_bytes(),
        );
        out.push(Row {
            cells: vec![
                format!("u{}", W::BITS),
                bits.to_string(),
                k.to_string(),
                basis.modulus().bits().to_string(),
                batch.to_string(),
                format!("{:.1}", per(sep)),
                format!("{:.1}", per(one)),
                format!("{:.1}", per(fu)),
                format!("{:.1}", per(tab)),
                format!("{:.1}", per(com)),
                format!("{:.2}", sep / one),
                format!("{:.3}", per(one) / k as f64),
                format!("{gbs:.0}"),
                format!("{:.0}", 100.0 * gbs / copy_gbs),
                format!("{}", plan.kernel_for(batch).name()),
                to_ms,
                from_ms,
            ],
            label: format!("u{} {k}×{bits}b ×{batch}", W::BITS),
            per_tower_us: per(sep),
            one_launch_us: per(one),
            fused_us: per(fu),
        });
    }
    Ok(Ok(out))
}

/// The RNS table and its figure (`rns.svg`).
pub fn table(gpu: &Gpu, copy_gbs: f64, device: &str, quick: bool) -> Result<(Table, String), String> {
    let mut t = Table::new(
        &format!("RNS polymul modulo Q, N = 2^{LOG_N}, log2 Q ≥ {LOG_Q}"),
        &[
            "word",
            "tower bits",
            "towers",
            "Q bits",
            "pairs",
            "µs per RNS polymul, a plan per tower",
            "µs per RNS polymul, one launch per step",
            "µs per RNS polymul, one launch per step, fused",
            "µs, one launch, row twiddles from tables",
            "µs, one launch, row twiddles computed",
            "speed-up of one launch",
            "µs per tower (one launch)",
            "GB/s (one launch)",
            "% of copy",
            "kernel (auto)",
            "host: residues in, ms",
            "host: CRT out, ms",
        ],
    );
    t.note = format!(
        "Device-resident residues, tower-major; the products are timed on the GPU only (CUDA events, median). \
         'A plan per tower' runs the same default plan tower by tower (one launch per step per tower); 'one \
         launch per step' covers every tower in each launch (towers on the grid's y axis). GB/s counts each \
         tower's 3 transforms (every pass reads and writes N words) and the pointwise pass; % of copy is \
         against the {copy_gbs:.0} GB/s measured in the same run. Host conversion: one polynomial of N \
         coefficients below Q, one run, on this machine's CPU (single thread, num-bigint). 'Row twiddles \
         from tables / computed': the default plan with `RowTwiddles::Tables` / `Computed` (the lazy row \
         passes read each tower's thread-ordered twiddle region, or compute the twiddles from two small \
         tables; the default RNS plan reads tables). {}",
        batched_rows(gpu, quick).unwrap_or_else(|e| format!("Batched u32 row: {e}."))
    );
    let mut all = Vec::new();
    all.extend(rows::<u64>(gpu, 62, copy_gbs, quick)?);
    all.extend(rows::<u32>(gpu, 30, copy_gbs, quick)?);
    all.extend(rows::<u32>(gpu, 28, copy_gbs, quick)?);
    let cats: Vec<String> = all.iter().map(|r| r.label.clone()).collect();
    let series = vec![
        Series { name: "a plan per tower".into(), values: all.iter().map(|r| r.per_tower_us).collect() },
        Series { name: "one launch per step".into(), values: all.iter().map(|r| r.one_launch_us).collect() },
        Series { name: "one launch, fused".into(), values: all.iter().map(|r| r.fused_us).collect() },
    ];
    let short = device.split(" (").next().unwrap_or(device);
    let svg = plot::grouped_bar_chart(
        &format!("RNS polymul, N = 2^{LOG_N}, log2 Q ≈ {LOG_Q}: µs per product ({short})"),
        "µs per RNS polymul",
        &cats,
        &series,
    );
    t.rows = all.into_iter().map(|r| r.cells).collect();
    Ok((t, svg))
}

/// The batched transform with both row-twiddle sources: `u32`, N = 2^16,
/// 512 polynomials, forward and inverse, the lazy kernels with
/// `RowTwiddles::Tables` and `Computed` (does computing them relieve L2 for
/// a batch too?). A sentence for the table's note.
fn batched_rows(gpu: &Gpu, quick: bool) -> polymul::Result<String> {
    const BATCHED: usize = 512;
    let n = 1usize << LOG_N;
    let p = polymul::NttParams::<u32>::with_prime_bits(n, 30)?;
    let (warm, reps) = crate::repetitions(BATCHED, quick);
    let data: Vec<u32> = SplitMix64::new(512).coeffs(n * BATCHED, p.q());
    let mut out = format!("Batched u32 N = 2^{LOG_N} × {BATCHED}, lazy kernels, µs forward / inverse:");
    for (tag, row_twiddles) in [("tables", RowTwiddles::Tables), ("computed", RowTwiddles::Computed)] {
        let o = PlanOptions { kernel: NttKernel::Lazy, row_twiddles, ..crate::env_options::plan_options() };
        let plan = NttPlan::with_options(gpu, p.clone(), o)?;
        let mut d = plan.upload(&data)?;
        let f = gpu.time(warm, reps, || plan.forward(&mut d))?.median_us;
        let i = gpu.time(warm, reps, || plan.inverse(&mut d))?.median_us;
        eprintln!(
            "  batched u32 2^{LOG_N} x {BATCHED}, row twiddles {tag}: forward {f:.1}, inverse {i:.1} µs"
        );
        out += &format!(" {tag} {f:.1} / {i:.1}{}", if tag == "tables" { ";" } else { "." });
    }
    Ok(out)
}

/// Bits of Q of the conversion measurements besides [`LOG_Q`].
pub const LOG_Q_LARGE: u64 = 4096;

fn convert_row<W: Coeff>(
    gpu: &Gpu,
    bits: u32,
    log_q: u64,
    copy_gbs: f64,
    quick: bool,
) -> polymul::Result<Result<Vec<String>, String>> {
    let n = 1usize << LOG_N;
    let basis = RnsBasis::<W>::with_modulus_bits(n, bits, log_q)?;
    let (k, l) = (basis.len(), basis.limbs());
    let plan = RnsPlan::with_options(gpu, &basis, crate::env_options::plan_options())?;
    let (warm, reps) = crate::repetitions(1, quick);
    let mut rng = SplitMix64::new(log_q ^ bits as u64);
    let mut residues = || -> Vec<W> { basis.towers().iter().flat_map(|p| rng.coeffs(n, p.q())).collect() };
    let (ra, rb) = (residues(), residues());
    // CPU path (every core): CRT of random residues, then their decomposition.
    let t0 = Instant::now();
    let la = basis.reconstruct(&ra)?;
    let cpu_crt_ms = t0.elapsed().as_secs_f64() * 1e3;
    let t1 = Instant::now();
    let back = basis.decompose(&la)?;
    let cpu_dec_ms = t1.elapsed().as_secs_f64() * 1e3;
    if back != ra {
        return Ok(Err(format!(
            "u{} {bits}-bit log2 Q {log_q}: CPU round trip changed the residues",
            W::BITS
        )));
    }
    let lb = basis.reconstruct(&rb)?;
    // Device-resident conversions.
    let (da, db) = (plan.upload_limbs(&la)?, plan.upload_limbs(&lb)?);
    let (mut xa, mut xb) = (plan.zeros(1)?, plan.zeros(1)?);
    let dec = gpu.time(warm, reps, || plan.decompose(&da, &mut xa))?.median_us;
    if gpu.download(&xa)? != ra {
        return Ok(Err(format!("u{} {bits}-bit log2 Q {log_q}: GPU decomposition != CPU", W::BITS)));
    }
    let mut out = plan.zeros_limbs(1)?;
    let crt = gpu.time(warm, reps, || plan.reconstruct(&xa, &mut out))?.median_us;
    if plan.download_limbs(&out)? != la {
        return Ok(Err(format!("u{} {bits}-bit log2 Q {log_q}: GPU CRT != CPU", W::BITS)));
    }
    let (mut pa, mut pb) = (plan.upload(&ra)?, plan.upload(&rb)?);
    let product = gpu.time(warm, reps, || plan.polymul_in_place(&mut pa, &mut pb))?.median_us;
    let whole_dev =
        gpu.time(warm, reps, || plan.polymul_limbs_into(&da, &db, &mut out, &mut xa, &mut xb))?.median_us;
    // Host limbs to host limbs (uploads, allocations, conversions, product,
    // download): wall clock, median.
    let mut host = Vec::new();
    let mut got = Vec::new();
    for i in 0..warm.min(2) + reps.min(20) {
        let t = Instant::now();
        got = plan.polymul_limbs(&la, &lb)?;
        if i >= warm.min(2) {
            host.push(t.elapsed().as_secs_f64() * 1e3);
        }
    }
    let host_ms = polymul::expert::median(&mut host);
    // Its copies alone: both operands up (validated), the result down.
    let (mut up, mut down) = (Vec::new(), Vec::new());
    for _ in 0..reps.min(10) {
        let t = Instant::now();
        let (ua, ub) = (plan.upload_limbs(&la)?, plan.upload_limbs(&lb)?);
        up.push(t.elapsed().as_secs_f64() * 1e3);
        let t = Instant::now();
        std::hint::black_box(plan.download_limbs(&ua)?);
        down.push(t.elapsed().as_secs_f64() * 1e3);
        drop(ub);
    }
    let (up_ms, down_ms) = (polymul::expert::median(&mut up), polymul::expert::median(&mut down));
    if got != polymul::expert::emulation::rns_polymul_limbs(&basis, &la, &lb)? {
        return Ok(Err(format!("u{} {bits}-bit log2 Q {log_q}: GPU limb product != CPU", W::BITS)));
    }
    let w = std::mem::size_of::<W>();
    let bytes = (n * l * 8 + k * n * w) as f64; // one pass over limbs and residues
    let gbs = |us: f64| bytes / (us * 1e3);
    eprintln!(
        "  convert u{} {k}x{bits}-bit Q {} bits (L = {l}): decompose {dec:.1} µs, CRT {crt:.1} µs, product {product:.1} µs, \
         limbs→limbs on device {whole_dev:.1} µs, host→host {host_ms:.2} ms; CPU decompose {cpu_dec_ms:.1} ms, CRT {cpu_crt_ms:.1} ms",
        W::BITS,
        basis.modulus().bits()
    );
    Ok(Ok(vec![
        format!("u{}", W::BITS),
        bits.to_string(),
        k.to_string(),
        basis.modulus().bits().to_string(),
        l.to_string(),
        format!("{dec:.1}"),
        format!("{:.0}", gbs(dec)),
        format!("{:.0}%", 100.0 * gbs(dec) / copy_gbs),
        format!("{crt:.1}"),
        format!("{:.0}", gbs(crt)),
        format!("{:.0}%", 100.0 * gbs(crt) / copy_gbs),
        format!("{product:.1}"),
        format!("{whole_dev:.1}"),
        format!("{host_ms:.2}"),
        format!("{up_ms:.2}"),
        format!("{down_ms:.2}"),
        format!("{cpu_dec_ms:.1}"),
        format!("{cpu_crt_ms:.1}"),
    ]))
}

/// The limb conversions table: device-resident decomposition and CRT
/// beside the RNS product, the whole product on device limbs and host limbs
/// to host limbs, and the CPU path, for N = 2^16 and log2 Q = 1240 and 4096.
pub fn convert_table(gpu: &Gpu, copy_gbs: f64, quick: bool) -> Result<Table, String> {
    let mut t = Table::new(
        &format!("Big integers in and out: RNS decomposition and CRT, N = 2^{LOG_N}, one polynomial"),
        &[
            "word",
            "tower bits",
            "towers",
            "Q bits",
            "limbs L",
            "decompose µs",
            "decompose GB/s",
            "decompose % of copy",
            "CRT µs",
            "CRT GB/s",
            "CRT % of copy",
            "RNS polymul µs (residues)",
            "limbs → limbs µs (device)",
            "host limbs → host limbs ms",
            "of which: upload both ms",
            "download ms",
            "CPU decompose ms",
            "CPU CRT ms",
        ],
    );
    t.note =
        "Device-resident limbs (N·L little-endian u64 words, coefficient-major) and residues (tower-major), \
              CUDA events, median. GB/s counts one pass over the limbs (8·N·L bytes) and the residues \
              (K·N words); % of copy: that rate against the device-to-device copy bandwidth measured in this run. 'limbs → limbs (device)' decomposes both operands, multiplies (one launch per \
              step over all towers) and reconstructs; 'host limbs → host limbs' adds the validation, \
              allocations, uploads and the download (wall clock, median; the uploads go through pinned staging memory, copied by every core); 'of which': both operands' validation and upload, and the result's download, timed alone. CPU: the kernels' bodies on every \
              core of this machine, one run. CRT kernel: rns_crt_cols_<word> (each coefficient's limbs split over \
              ⌈L / 8⌉ threads; split digits, except 192-bit accumulators for u32 from L = 32; the next table times each kernel) for L ≥ 20, rns_crt_<word> (one thread per coefficient) below. Goals (H100): each conversion ≤ 100 µs device-resident, host → \
              host ≤ 5 ms."
            .into();
    let mut add = |r: polymul::Result<Result<Vec<String>, String>>| -> Result<(), String> {
        t.rows.push(r.map_err(|e| e.to_string())??);
        Ok(())
    };
    for log_q in [LOG_Q, LOG_Q_LARGE] {
        add(convert_row::<u64>(gpu, 62, log_q, copy_gbs, quick))?;
        add(convert_row::<u32>(gpu, 30, log_q, copy_gbs, quick))?;
    }
    Ok(t)
}

/// The CRT kernels forced one by one on the same residues, in one run:
/// the one-thread kernel and every arithmetic of the column kernel, each
/// checked against the CPU path.
fn crt_variant_rows<W: Coeff>(
    gpu: &Gpu,
    bits: u32,
    log_q: u64,
    quick: bool,
) -> polymul::Result<Result<Vec<Vec<String>>, String>> {
    let n = 1usize << LOG_N;
    let basis = RnsBasis::<W>::with_modulus_bits(n, bits, log_q)?;
    let (k, l) = (basis.len(), basis.limbs());
    let plan = RnsPlan::with_options(gpu, &basis, crate::env_options::plan_options())?;
    let (warm, reps) = crate::repetitions(1, quick);
    let mut rng = SplitMix64::new(log_q ^ bits as u64 ^ 0xc47);
    let res: Vec<W> = basis.towers().iter().flat_map(|p| rng.coeffs(n, p.q())).collect();
    let want = basis.reconstruct(&res)?;
    let dres = plan.upload(&res)?;
    let mut out = plan.zeros_limbs(1)?;
    let mut choices =
        vec![(CrtChoice::Auto, "auto".to_string()), (CrtChoice::Rows, "rows (rns_crt)".to_string())];
    for v in CrtColsVariant::ALL {
        choices.push((CrtChoice::Columns(v), format!("columns, {}", v.name())));
    }
    let mut rows = Vec::new();
    let mut auto_us = 0.0;
    for (choice, name) in choices {
        let us = gpu.time(warm, reps, || plan.reconstruct_with(choice, &dres, &mut out))?.median_us;
        if plan.download_limbs(&out)? != want {
            return Ok(Err(format!("u{} {bits}-bit log2 Q {log_q}: GPU CRT ({name}) != CPU", W::BITS)));
        }
        if choice == CrtChoice::Auto {
            auto_us = us;
        }
        eprintln!("  CRT u{} {k}x{bits}-bit L = {l}: {name} {us:.1} µs", W::BITS);
        rows.push(vec![
            format!("u{}", W::BITS),
            bits.to_string(),
            k.to_string(),
            basis.modulus().bits().to_string(),
            l.to_string(),
            name,
            format!("{us:.1}"),
            format!("{:.2}", us / auto_us),
        ]);
    }
    Ok(Ok(rows))
}

/// The CRT kernels side by side (`bench --only rns`): the automatic
/// choice, the one-thread kernel and each column-kernel arithmetic for
/// N = 2^16 at log2 Q = 1240 and 4096, every result checked against the CPU.
pub fn crt_variants_table(gpu: &Gpu, quick: bool) -> Result<Table, String> {
    let mut t = Table::new(
        &format!("CRT kernels forced one by one, N = 2^{LOG_N}, one polynomial"),
        &["word", "tower bits", "towers", "Q bits", "limbs L", "kernel", "CRT µs", "vs auto"],
    );
    t.note =
        "The same device-resident residues reconstructed by each CRT kernel (RnsPlan::reconstruct_with), \
              CUDA events, median; every result equals the CPU path's. auto: what RnsPlan::reconstruct runs \
              (columns from L = 20, rows below; split digits, except acc192 for u32 from L = 32). columns, split: 32-bit partial \
              products into 64-bit accumulators with carry counts; columns, acc192: the first version's \
              192-bit accumulators of 64 x 64-bit products (rns/crt_cols.rs)."
            .into();
    for log_q in [LOG_Q, LOG_Q_LARGE] {
        for r in
            [crt_variant_rows::<u64>(gpu, 62, log_q, quick), crt_variant_rows::<u32>(gpu, 30, log_q, quick)]
        {
            t.rows.extend(r.map_err(|e| e.to_string())??);
        }
    }
    Ok(t)
}
