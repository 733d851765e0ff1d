//! Choosing the NTT kernel, the modular reduction and the shared-memory tile
//! explicitly, and timing each choice with CUDA events on a batch.
//!
//! ```sh
//! cargo run --release -p polymul --example choose_kernel
//! ```

use polymul::expert::GpuTiming;
use polymul::expert::SplitMix64;
use polymul::expert::{NttKernel, PlanOptions, Reduction};
use polymul::prelude::*;
use polymul::{Gpu, NttParams, NttPlan};

fn main() -> Result<(), polymul::Error> {
    let gpu = match Gpu::new() {
        Ok(gpu) => gpu,
        Err(e) => {
            println!("{e}\n(this example needs a GPU)");
            return Ok(());
        }
    };
    let (n, batch) = (1 << 16, 64);
    let params = NttParams::<u64>::with_prime_bits(n, 62)?;
    let d = PlanOptions::default();
    let choices = [
        PlanOptions { kernel: NttKernel::Radix2Global, reduction: Reduction::Barrett4, ..d },
        PlanOptions { kernel: NttKernel::Tiled, reduction: Reduction::Barrett4, radix: Some(4), ..d },
        PlanOptions { kernel: NttKernel::Tiled, radix: Some(16), tile_bytes: Some(16 << 10), ..d },
        PlanOptions { kernel: NttKernel::TwoD, radix: Some(8), ..d },
        d,
    ];
    for options in choices {
        let plan = NttPlan::with_options(&gpu, params.clone(), options)?;
        let mut data = plan.upload(&SplitMix64::new(1).coeffs(n * batch, params.q()))?;
        let t = gpu.time(3, 10, || plan.forward(&mut data))?;
        println!(
            "{options:?} ({} ran): {:.3} µs per NTT",
            plan.kernel_for(batch).name(),
            t.median_us / batch as f64
        );
    }
    Ok(())
}
