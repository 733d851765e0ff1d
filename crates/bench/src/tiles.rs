//! How large a shared-memory tile each N and word size wants on this GPU:
//! the tiled kernel (Shoup, the automatic radix) with tiles from 2 KiB to 128 KiB.

use crate::report::Table;
use polymul::expert::GpuTiming;
use polymul::expert::{NttKernel, PlanOptions, SplitMix64};
use polymul::prelude::*;
use polymul::{Coeff, Gpu, NttParams, NttPlan};

/// Tile sizes tried, in KiB.
pub const TILE_KIB: [usize; 7] = [2, 4, 8, 16, 32, 64, 128];

fn rows<W: Coeff>(gpu: &Gpu, bits: u32, log_n: u32, quick: bool, t: &mut Table) -> polymul::Result<()> {
    let n = 1usize << log_n;
    let batch = (1usize << 25) / n;
    let mut results = Vec::new();
    for kib in TILE_KIB {
        let tile_bytes = kib * 1024;
        if tile_bytes > gpu.info().max_shared_per_block {
            continue;
        }
        let p = NttParams::<W>::with_prime_bits(n, bits)?;
        let opts = PlanOptions {
            kernel: NttKernel::Tiled,
            tile_bytes: Some(tile_bytes),
            ..crate::env_options::plan_options()
        };
        let plan = match NttPlan::with_options(gpu, p, opts) {
            Ok(plan) => plan,
            // A tile too small for two passes over this N: not a candidate.
            Err(polymul::Error::InvalidN { .. }) => continue,
            Err(e) => return Err(e),
        };
        let q = plan.params().q();
        let mut rng = SplitMix64::new(kib as u64);
        let mut single = plan.upload(&rng.coeffs(n, q))?;
        let mut many = plan.upload(&rng.coeffs(n * batch, q))?;
        let (r1, rb) = if quick { (30, 5) } else { (100, 15) };
        let lat = gpu.time(5, r1, || plan.forward(&mut single))?.median_us;
        let per = gpu.time(2, rb, || plan.forward(&mut many))?.median_us / batch as f64;
        let words = tile_bytes / std::mem::size_of::<W>();
        let passes = if n > words { 2 } else { 1 };
        results.push((kib, passes, lat, per));
    }
    let best = results.iter().map(|r| r.3).fold(f64::INFINITY, f64::min);
    for (kib, passes, lat, per) in results {
        t.rows.push(vec![
            format!("u{}", W::BITS),
            format!("2^{log_n}"),
            kib.to_string(),
            passes.to_string(),
            format!("{lat:.1}"),
            format!("{per:.4}"),
            if per == best { "best".into() } else { format!("{:.2}", per / best) },
        ]);
    }
    Ok(())
}

/// The sweep for `u64`/62-bit and `u32`/30-bit over several N.
pub fn table(gpu: &Gpu, quick: bool) -> polymul::Result<Table> {
    let mut t = Table::new(
        "Shared-memory tile size (tiled kernel, Shoup, the automatic radix)",
        &["word", "N", "tile KiB", "passes", "µs single", "µs per NTT (batched)", "batched vs best"],
    );
    t.note =
        "Tiles above 48 KiB use the device's opt-in dynamic shared memory. A tile holds N/passes words; \
              the best tile per row group is marked. Batched rows use 2^25 coefficients in total."
            .into();
    for log_n in [11u32, 12, 13, 14, 16, 17] {
        rows::<u64>(gpu, 62, log_n, quick, &mut t)?;
        rows::<u32>(gpu, 30, log_n, quick, &mut t)?;
    }
    Ok(t)
}
