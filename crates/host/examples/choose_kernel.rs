//! Choosing the NTT kernel, the modular reduction and the shared-memory tile
//! explicitly, and timing each choice with CUDA events on a batch.
//!
//! ```sh
//! cargo run --release -p polymul --example choose_kernel
//! ```

use polymul::random::SplitMix64;
use polymul::{Gpu, NttKernel, NttParams, NttPlan, PlanOptions, Reduction};

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
    let choices = [
        PlanOptions { kernel: NttKernel::Radix2Global, reduction: Reduction::Barrett4, tile_bytes: None },
        PlanOptions { kernel: NttKernel::Tiled, reduction: Reduction::Barrett4, tile_bytes: None },
        PlanOptions { kernel: NttKernel::Tiled, reduction: Reduction::Shoup, tile_bytes: Some(16 << 10) },
        PlanOptions::default(),
    ];
    for options in choices {
        let plan = NttPlan::with_options(&gpu, params.clone(), options)?;
        let mut data = plan.upload(&SplitMix64::new(1).coeffs(n * batch, params.q()))?;
        let t = gpu.time(3, 10, || plan.forward(&mut data))?;
        println!("{options:?}: {:.2} µs per NTT", t.median_us / batch as f64);
    }
    Ok(())
}
