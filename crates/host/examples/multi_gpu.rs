//! One plan over every GPU of the host (`MultiPlan`): a batch of products
//! spread by polynomials, and an RNS product spread by towers, each
//! checked against the CPU backend. Without a GPU the same `MultiPlan`
//! runs over two CPU plans (the split and reassembly are the same code).
//!
//! ```sh
//! cargo run --release -p polymul --example multi_gpu
//! ```

use polymul::expert::SplitMix64;
use polymul::prelude::*;
use polymul::rns::RnsBasis;
use polymul::{CpuPlan, CpuRnsPlan, Gpu, MultiPlan, NttParams};

fn main() -> Result<(), polymul::Error> {
    let n = 1 << 14;
    let params = NttParams::<u64>::with_prime_bits(n, 62)?;
    let q = params.q();
    let batch = 256;
    let mut rng = SplitMix64::new(7);
    let a = rng.coeffs(batch * n, q);
    let b = rng.coeffs(batch * n, q);
    let want = CpuPlan::new(params.clone())?.polymul(&a, &b)?;

    let basis = RnsBasis::<u64>::new(n, 62, 12)?;
    let ra: Vec<u64> = basis.primes().iter().flat_map(|&p| rng.coeffs(n, p)).collect();
    let rb: Vec<u64> = basis.primes().iter().flat_map(|&p| rng.coeffs(n, p)).collect();
    let rns_want = CpuRnsPlan::new(&basis)?.polymul(&ra, &rb)?;

    match Gpu::all() {
        Ok(gpus) => {
            println!("{} GPU(s): {}", gpus.len(), gpus[0].info().name);
            // By batch: one NttPlan per GPU; host slices in and out, each GPU
            // running its share's copies and kernels from a thread of its own.
            let plan = MultiPlan::ntt(&gpus, params)?;
            println!("{batch} polynomials of N = {n} on {} GPU(s)", plan.devices_for(batch));
            let t0 = std::time::Instant::now();
            let c = plan.polymul(&a, &b)?;
            println!("host → host: {:.2} ms, equal to the CPU backend: {}", ms(t0), c == want);
            // Device-resident: spread once, multiply many times.
            let (mut x, mut y) = (plan.upload(&a)?, plan.upload(&b)?);
            println!("spread over GPU ordinals {:?}", x.ordinals());
            plan.polymul_in_place(&mut x, &mut y)?;
            println!("device-resident: equal to the CPU backend: {}", plan.download(&x)? == want);
            // By towers: the 12 towers cut among the GPUs.
            let rns = MultiPlan::rns(&gpus, &basis)?;
            let towers: Vec<usize> = rns.plans().iter().map(|p| p.basis().len()).collect();
            println!("RNS towers per GPU: {towers:?}, equal: {}", rns.polymul(&ra, &rb)? == rns_want);
        }
        Err(e) => {
            println!("{e}\n(no GPU: the same MultiPlan over two CPU plans)");
            let plan = MultiPlan::by_batch(vec![CpuPlan::new(params.clone())?, CpuPlan::new(params)?])?;
            println!("equal to one CPU plan: {}", plan.polymul(&a, &b)? == want);
            let halves = [&basis.primes()[..6], &basis.primes()[6..]]
                .iter()
                .map(|p| CpuRnsPlan::new(&RnsBasis::from_primes(n, p)?))
                .collect::<polymul::Result<Vec<_>>>()?;
            let rns = MultiPlan::by_towers(halves)?;
            println!("RNS by towers, equal: {}", rns.polymul(&ra, &rb)? == rns_want);
        }
    }
    Ok(())
}

fn ms(t0: std::time::Instant) -> f64 {
    t0.elapsed().as_secs_f64() * 1e3
}
