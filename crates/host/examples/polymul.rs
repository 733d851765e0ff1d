//! Multiply two random polynomials in Z_q[X]/(X^N + 1) on the GPU, check the
//! result against the CPU, and fall back to the CPU path without a GPU.
//!
//! ```sh
//! cargo run --release -p polymul --example polymul
//! ```

use polymul::expert::SplitMix64;
use polymul::prelude::*;
use polymul::{CpuPlan, Gpu, NttParams, NttPlan};

fn main() -> Result<(), polymul::Error> {
    let n = 1 << 14;
    // The largest 62-bit prime q ≡ 1 (mod 2N), with its roots and twiddles.
    let params = NttParams::<u64>::with_prime_bits(n, 62)?;
    let q = params.q();
    let mut rng = SplitMix64::new(2026);
    let (a, b) = (rng.coeffs(n, q), rng.coeffs(n, q));

    let reference = CpuPlan::new(params.clone())?.polymul(&a, &b)?;
    match Gpu::new() {
        Ok(gpu) => {
            let plan = NttPlan::new(&gpu, params)?;
            let c = plan.polymul(&a, &b)?;
            println!("GPU: {} ({:?})", gpu.info().name, plan.options());
            println!("c[0..4] = {:?}", &c[..4]);
            println!("equal to the CPU result: {}", c == reference);
            assert_eq!(c, reference);
        }
        Err(e) => {
            println!("{e}");
            println!("CPU result: c[0..4] = {:?}", &reference[..4]);
        }
    }
    Ok(())
}
