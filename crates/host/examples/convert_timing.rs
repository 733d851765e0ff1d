//! Times the CPU limb conversions (RNS decomposition and CRT
//! reconstruction, every core) for N = 2^16 and log2 Q = 1240 and 4096,
//! against the num-bigint references, and checks they agree.
//!
//! `cargo run --release -p polymul --example convert_timing`

use polymul::expert::SplitMix64;
use polymul::rns::RnsBasis;
use std::time::Instant;

fn run<W: polymul::Coeff>(bits: u32, log_q: u64) -> polymul::Result<()> {
    let n = 1 << 16;
    let basis = RnsBasis::<W>::with_modulus_bits(n, bits, log_q)?;
    let mut rng = SplitMix64::new(log_q);
    let residues: Vec<W> = basis.towers().iter().flat_map(|p| rng.coeffs(n, p.q())).collect();
    let best = |f: &mut dyn FnMut()| {
        (0..5)
            .map(|_| {
                let t = Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1e3
            })
            .fold(f64::INFINITY, f64::min)
    };
    let mut limbs = Vec::new();
    let crt_ms = best(&mut || limbs = basis.reconstruct(&residues).unwrap());
    let mut back = Vec::new();
    let dec_ms = best(&mut || back = basis.decompose(&limbs).unwrap());
    assert_eq!(back, residues, "round trip");
    let t = Instant::now();
    let big = basis.from_residues(&residues)?;
    let ref_crt = t.elapsed().as_secs_f64() * 1e3;
    let t = Instant::now();
    let ref_res = basis.to_residues(&big)?;
    let ref_dec = t.elapsed().as_secs_f64() * 1e3;
    assert_eq!(ref_res, residues);
    assert_eq!(basis.to_limbs(&big)?, limbs, "CRT == num-bigint");
    println!(
        "u{} {}x{bits}-bit, log2 Q = {} (L = {}): decompose {dec_ms:.1} ms, CRT {crt_ms:.1} ms \
         (best of 5, {} threads); num-bigint: to_residues {ref_dec:.0} ms, from_residues {ref_crt:.0} ms",
        W::BITS,
        basis.len(),
        basis.modulus().bits(),
        basis.limbs(),
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    Ok(())
}

fn main() -> polymul::Result<()> {
    run::<u64>(62, 1240)?;
    if std::env::args().any(|a| a == "--quick") {
        return Ok(());
    }
    run::<u32>(30, 1240)?;
    run::<u64>(62, 4096)?;
    run::<u32>(30, 4096)?;
    Ok(())
}
