//! The CPU backend (`cpu::CpuPlan`, `cpu::CpuRnsPlan`, `Multiplier::cpu`)
//! against the reference (`emulation::forward`, `emulation::inverse`, `emulation::polymul`,
//! `emulation::rns_polymul`) and the naive product, bit for bit: proptest over
//! random N, words, prime widths, batches and operands (0 and q−1 mixed in),
//! plus the typed errors of bad input.
//!
//! Run with `cargo test -p polymul --test cpu_backend`.

use polymul::Backend;
use polymul::cpu::{self, CpuPlan, CpuRnsPlan};
use polymul::expert::SplitMix64;
use polymul::expert::emulation;
use polymul::params::{MIN_PRIME_BITS, NttParams, ntt_primes};
use polymul::planner::{Modulus, Multiplier};
use polymul::prelude::*;
use polymul::rns::RnsBasis;
use polymul::{Coeff, Error};
use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence};

fn config(cases: u32) -> Config {
    Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/cpu_backend.txt",
        ))),
        ..Config::default()
    }
}

/// `len` words below `q`: random, with 0, 1 and q−1 mixed in (`edge` in
/// 0..4: none, all q−1, all 0, a mix).
fn words<W: Coeff>(rng: &mut SplitMix64, len: usize, q: W, edge: u8) -> Vec<W> {
    let q64 = q.as_u64();
    (0..len)
        .map(|_| {
            let r = rng.next_u64();
            let v = match (edge, r % 8) {
                (1, _) => q64 - 1,
                (2, _) => 0,
                (3, 0) => 0,
                (3, 1) => q64 - 1,
                (3, 2) => 1,
                _ => (r >> 8) % q64,
            };
            W::from_u64(v)
        })
        .collect()
}

/// The backend equals the reference on forward, inverse and product, and
/// the naive product for small N.
fn agrees<W: Coeff>(log_n: u32, bits: u32, batch: usize, edge: u8, seed: u64) -> Result<(), TestCaseError> {
    let n = 1usize << log_n;
    // Small widths have no prime ≡ 1 (mod 2N) for large N: skip those.
    let Ok(primes) = ntt_primes(bits, n, 1) else { return Ok(()) };
    let p = NttParams::<W>::new(n, primes[0]).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let plan = CpuPlan::new(p.clone()).map_err(|e| TestCaseError::fail(e.to_string()))?;
    let mut rng = SplitMix64::new(seed);
    let a = words(&mut rng, batch * n, p.q(), edge);
    let b = words(&mut rng, batch * n, p.q(), 3);
    let (mut x, mut y) = (a.clone(), a.clone());
    plan.forward(&mut x).unwrap();
    emulation::forward(&p, &mut y).unwrap();
    prop_assert_eq!(&x, &y, "forward, N = 2^{}, {} bits, u{}", log_n, bits, W::BITS);
    let (mut x, mut y) = (a.clone(), a.clone());
    plan.inverse(&mut x).unwrap();
    emulation::inverse(&p, &mut y).unwrap();
    prop_assert_eq!(&x, &y, "inverse");
    let c = plan.polymul(&a, &b).unwrap();
    prop_assert_eq!(&c, &emulation::polymul(&p, &a, &b).unwrap(), "polymul");
    if n <= 64 {
        for k in 0..batch {
            let r = k * n..(k + 1) * n;
            let wide = |v: &[W]| v.iter().map(|x| x.as_u64()).collect::<Vec<u64>>();
            let naive =
                cpu::negacyclic_naive(&wide(&a[r.clone()]), &wide(&b[r.clone()]), p.q().as_u64()).unwrap();
            prop_assert_eq!(wide(&c[r]), naive, "naive");
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(config(48))]

    #[test]
    fn u64_backend_equals_the_reference(
        log_n in 1u32..=12,
        bits in MIN_PRIME_BITS..=62,
        batch in 1usize..=3,
        edge in 0u8..4,
        seed in any::<u64>(),
    ) {
        agrees::<u64>(log_n, bits, batch, edge, seed)?;
    }

    #[test]
    fn u32_backend_equals_the_reference(
        log_n in 1u32..=12,
        bits in MIN_PRIME_BITS..=30,
        batch in 1usize..=3,
        edge in 0u8..4,
        seed in any::<u64>(),
    ) {
        agrees::<u32>(log_n, bits, batch, edge, seed)?;
    }
}

proptest! {
    #![proptest_config(config(8))]

    #[test]
    fn rns_backend_equals_the_reference(
        log_n in 4u32..=10,
        towers in 1usize..=4,
        batch in 1usize..=3,
        seed in any::<u64>(),
    ) {
        let n = 1usize << log_n;
        let basis = RnsBasis::<u64>::new(n, 62, towers).unwrap();
        let plan = CpuRnsPlan::new(&basis).unwrap();
        let mut rng = SplitMix64::new(seed);
        let fresh = |rng: &mut SplitMix64| -> Vec<u64> {
            basis.primes().iter().flat_map(|&q| words(rng, batch * n, q, 3)).collect()
        };
        let (a, b) = (fresh(&mut rng), fresh(&mut rng));
        prop_assert_eq!(plan.polymul(&a, &b).unwrap(), emulation::rns_polymul(&basis, &a, &b).unwrap());
        let len = batch * n;
        let (mut x, mut y) = (a.clone(), a.clone());
        plan.forward(&mut x).unwrap();
        for (t, part) in basis.towers().iter().zip(y.chunks_mut(len)) {
            emulation::forward(t, part).unwrap();
        }
        prop_assert_eq!(&x, &y);
        plan.inverse(&mut x).unwrap();
        prop_assert_eq!(&x, &a);
    }
}

/// The largest sizes the GPU suites check (2^13 … 2^17), both words, the
/// widest primes: one random case each.
#[test]
fn large_n_equals_the_reference() {
    for log_n in [13u32, 15, 17] {
        agrees::<u64>(log_n, 62, 1, 3, u64::from(log_n)).unwrap();
        agrees::<u32>(log_n, 30, 1, 3, u64::from(log_n)).unwrap();
    }
    agrees::<u64>(14, 40, 2, 1, 7).unwrap();
    agrees::<u32>(16, 25, 2, 2, 8).unwrap();
}

#[test]
fn bad_input_is_a_typed_error_and_leaves_data_alone() {
    let n = 64;
    let p = NttParams::<u64>::with_prime_bits(n, 62).unwrap();
    let q = p.q();
    let plan = CpuPlan::new(p).unwrap();
    let mut short = vec![1u64; n + 3];
    assert!(matches!(plan.forward(&mut short), Err(Error::NotAMultipleOfN { got: 67, n: 64, .. })));
    assert!(matches!(plan.inverse(&mut [][..]), Err(Error::NotAMultipleOfN { got: 0, .. })));
    let mut big = vec![1u64; 2 * n];
    big[n + 5] = q;
    let before = big.clone();
    match plan.forward(&mut big) {
        Err(Error::CoefficientOutOfRange { index, value, .. }) => assert_eq!((index, value), (n + 5, q)),
        other => panic!("{other:?}"),
    }
    assert_eq!(big, before);
    assert!(matches!(
        plan.polymul(&big, &vec![0u64; 2 * n]),
        Err(Error::CoefficientOutOfRange { what: "a", .. })
    ));
    assert!(matches!(plan.polymul(&vec![0u64; n], &vec![0u64; 2 * n]), Err(Error::LengthMismatch { .. })));
    assert!(matches!(CpuPlan::<u32>::try_new(n, q), Err(Error::ModulusTooWide { .. })));
    assert!(matches!(CpuPlan::<u64>::try_new(n, 1_000_001), Err(Error::NotPrime { .. })));
    assert!(matches!(CpuPlan::<u64>::try_new(1000, q), Err(Error::InvalidN { .. })));

    let basis = RnsBasis::<u32>::new(n, 30, 2).unwrap();
    let rns = CpuRnsPlan::new(&basis).unwrap();
    let mut data = vec![0u32; 2 * n];
    data[n + 1] = basis.primes()[1] as u32;
    assert!(
        matches!(rns.forward(&mut data), Err(Error::CoefficientOutOfRange { index, .. }) if index == n + 1)
    );
    assert!(matches!(rns.forward(&mut vec![0u32; n]), Err(Error::NotAMultipleOfN { .. })));
}

#[test]
fn plans_are_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<CpuPlan<u32>>();
    check::<CpuPlan<u64>>();
    check::<CpuRnsPlan<u64>>();
    check::<Multiplier<u64>>();
}

#[test]
fn a_cpu_multiplier_multiplies_and_refuses_device_buffers() {
    let n = 1 << 10;
    let m = Multiplier::<u64>::cpu(n, Modulus::Rns { bits: 50, towers: 2 }).unwrap();
    assert!(matches!(m.backend(), Backend::Cpu { .. }));
    assert!(m.backend().to_string().starts_with("CPU backend"));
    assert!(m.gpu().is_none() && m.plan().is_none() && m.cpu_plan().is_some());
    let basis = RnsBasis::<u64>::from_primes(n, m.primes()).unwrap();
    let mut rng = SplitMix64::new(5);
    let a: Vec<u64> = m.primes().iter().flat_map(|&q| words(&mut rng, 3 * n, q, 3)).collect();
    assert_eq!(m.polymul(&a, &a).unwrap(), emulation::rns_polymul(&basis, &a, &a).unwrap());
    let mut x = a.clone();
    m.forward(&mut x).unwrap();
    m.inverse(&mut x).unwrap();
    assert_eq!(x, a);
    assert!(matches!(m.upload(&a), Err(Error::NeedsGpu { what: "upload" })));
    assert!(matches!(m.zeros(1), Err(Error::NeedsGpu { what: "zeros" })));
    assert!(m.synchronize().is_ok());
    // Errors of the modulus are the basis's.
    assert!(matches!(Multiplier::<u32>::cpu(n, Modulus::Bits(31)), Err(Error::ModulusTooWide { .. })));
    assert!(matches!(Multiplier::<u64>::cpu(n, Modulus::Primes(vec![])), Err(Error::EmptyBasis)));
    assert!(matches!(Multiplier::<u64>::cpu(1000, Modulus::Bits(62)), Err(Error::InvalidN { .. })));
}

/// `auto` gives a working multiplier on any machine: the GPU's or the CPU's
/// product equals the reference.
#[test]
fn auto_multiplies_on_whatever_is_there() {
    let n = 1 << 8;
    let m = Multiplier::<u32>::auto(n, Modulus::Bits(30), 2, None).unwrap();
    let p = NttParams::<u32>::new(n, m.primes()[0]).unwrap();
    let a = words(&mut SplitMix64::new(9), 2 * n, p.q(), 3);
    assert_eq!(m.polymul(&a, &a).unwrap(), emulation::polymul(&p, &a, &a).unwrap());
}
