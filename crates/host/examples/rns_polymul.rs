//! Polynomial multiplication modulo a large Q (here 500 bits) through an RNS
//! basis of 62-bit towers: big-integer coefficients in, residues through the
//! NTT per tower (GPU if present, else the CPU), CRT back, checked against
//! the big-integer schoolbook product.
//!
//! ```sh
//! cargo run --release -p polymul --example rns_polymul
//! ```

use num_bigint::BigUint;
use polymul::expert::SplitMix64;
use polymul::prelude::*;
use polymul::rns::{RnsBasis, RnsPlan};
use polymul::{CpuRnsPlan, Gpu, cpu};

fn main() -> Result<(), polymul::Error> {
    let n = 1 << 10;
    let basis = RnsBasis::<u64>::with_modulus_bits(n, 62, 500)?;
    let q = basis.modulus().clone();
    println!("N = {n}, Q has {} bits: {} towers of 62 bits", q.bits(), basis.len());
    let mut rng = SplitMix64::new(42);
    let mut big = || -> BigUint {
        let limbs: Vec<u32> = (0..20).map(|_| rng.next_u64() as u32).collect();
        BigUint::new(limbs) % &q
    };
    let a: Vec<BigUint> = (0..n).map(|_| big()).collect();
    let b: Vec<BigUint> = (0..n).map(|_| big()).collect();
    let (ra, rb) = (basis.to_residues(&a)?, basis.to_residues(&b)?);
    let rc = match Gpu::new() {
        Ok(gpu) => {
            println!("GPU: {}", gpu.info().name);
            RnsPlan::new(&gpu, &basis)?.polymul(&ra, &rb)?
        }
        Err(e) => {
            println!("{e}\n(no GPU: the CPU path)");
            CpuRnsPlan::new(&basis)?.polymul(&ra, &rb)?
        }
    };
    let c = basis.from_residues(&rc)?;
    let want = cpu::negacyclic_naive_big(&a, &b, &q)?;
    println!("c[0] = {}…", &c[0].to_string()[..20]);
    println!("equal to the big-integer schoolbook product mod Q: {}", c == want);
    Ok(())
}
