//! polymul as a dependency: multiplies two polynomials in Z_q[X]/(X^N + 1),
//! checks the NTT product against the schoolbook one, and repeats it on the
//! GPU when there is one. Without a GPU it says so and succeeds.

use polymul::prelude::*;
use polymul::{CpuPlan, Error, Gpu, NttParams, NttPlan, cpu};

fn main() -> Result<(), Error> {
    let n = 1 << 10;
    let params = NttParams::<u64>::with_prime_bits(n, 62)?; // q ≡ 1 (mod 2N), 62 bits
    let q = params.q();
    let a: Vec<u64> = (0..n as u64).map(|i| i * i % q).collect();
    let b: Vec<u64> = (0..n as u64).map(|i| (i + 7) % q).collect();
    let c = CpuPlan::new(params.clone())?.polymul(&a, &b)?; // a·b mod (X^N + 1, q), on the CPU
    if c != cpu::negacyclic_naive(&a, &b, q)? {
        eprintln!("CPU NTT product differs from the schoolbook product");
        std::process::exit(1);
    }
    println!("CPU: N = {n}, q = {q}: the NTT product equals the schoolbook product");
    match Gpu::new() {
        Ok(gpu) => {
            let plan = NttPlan::new(&gpu, params)?;
            let on_gpu = plan.polymul(&a, &b)?;
            if on_gpu != c {
                eprintln!("GPU product differs from the CPU product");
                std::process::exit(1);
            }
            println!("GPU ({}): the product equals the CPU product", gpu.info().name);
        }
        Err(Error::NoGpu { detail }) => println!("no CUDA GPU found ({detail}): CPU only"),
        Err(e) => return Err(e),
    }
    println!("downstream example: ok");
    Ok(())
}
