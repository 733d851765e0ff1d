//! The code of README.md's "Use it from your crate", kept compiling and
//! running here (`cargo xtask downstream` runs it).

use polymul::prelude::*;
use polymul::{CpuPlan, Error, Gpu, NttParams, NttPlan};

fn main() -> Result<(), Error> {
    let params = NttParams::<u64>::with_prime_bits(1 << 10, 62)?; // q ≡ 1 (mod 2N)
    let (a, b) = (vec![1u64; 1 << 10], vec![2u64; 1 << 10]);
    let c = CpuPlan::new(params.clone())?.polymul(&a, &b)?; // a·b mod (X^N + 1, q), on the CPU
    match Gpu::new() {
        Ok(gpu) => assert_eq!(NttPlan::new(&gpu, params)?.polymul(&a, &b)?, c),
        Err(e) => println!("{e}"), // no GPU: the CPU result stands
    }
    Ok(())
}
