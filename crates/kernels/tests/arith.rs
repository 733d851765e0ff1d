//! The kernels' modular arithmetic against `%` on u128.

use polymul_kernels::Word;
use polymul_kernels::arith::{Barrett4, ModulusError, add_mod, half_mod, sub_mod};

fn is_prime(n: u64) -> bool {
    n >= 2
        && (2..)
            .take_while(|d| d * d <= n)
            .all(|d| !n.is_multiple_of(d))
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

fn check_all_pairs<W: Word>(q: W) {
    let r = Barrett4::new(q).unwrap();
    let qu = q.as_u64();
    for a in 0..qu {
        for b in 0..qu {
            let (aw, bw) = (W::from_u64(a), W::from_u64(b));
            assert_eq!(r.mul(aw, bw).as_u64(), a * b % qu, "{a}·{b} mod {qu}");
            assert_eq!(add_mod(aw, bw, q).as_u64(), (a + b) % qu);
            assert_eq!(sub_mod(aw, bw, q).as_u64(), (a + qu - b) % qu);
        }
        let h = half_mod(W::from_u64(a), q).as_u64();
        assert_eq!(2 * h % qu, a, "half of {a} mod {qu}");
    }
}

#[test]
fn exhaustive_small_moduli() {
    for q in (5u64..600).filter(|&q| q % 2 == 1) {
        check_all_pairs::<u32>(q as u32);
        check_all_pairs::<u64>(q);
    }
    // Odd composites work too: Barrett does not need primality.
    check_all_pairs::<u64>(1023);
}

fn random_products<W: Word>(q: u64, count: usize, seed: u64) {
    let r = Barrett4::new(W::from_u64(q)).unwrap();
    let mut rng = Rng(seed);
    let edges = [0, 1, 2, q / 2, q - 2, q - 1];
    for &a in &edges {
        for &b in &edges {
            let got = r.mul(W::from_u64(a), W::from_u64(b)).as_u64();
            assert_eq!(
                got as u128,
                a as u128 * b as u128 % q as u128,
                "{a}·{b} mod {q}"
            );
        }
    }
    for _ in 0..count {
        let (a, b) = (rng.next() % q, rng.next() % q);
        let got = r.mul(W::from_u64(a), W::from_u64(b)).as_u64();
        assert_eq!(
            got as u128,
            a as u128 * b as u128 % q as u128,
            "{a}·{b} mod {q}"
        );
    }
}

#[test]
fn random_and_edge_products_u32() {
    // The largest primes of 28, 29 and 30 bits, and the largest odd 30-bit q.
    for bits in [28u32, 29, 30] {
        let mut q = (1u64 << bits) - 1;
        while !is_prime(q) {
            q -= 2;
        }
        random_products::<u32>(q, 300_000, bits as u64);
    }
    random_products::<u32>((1 << 30) - 1, 300_000, 7);
    // The paper's example.
    random_products::<u32>(994_705_409, 100_000, 11);
    let r = Barrett4::new(994_705_409u32).unwrap();
    assert_eq!(
        r.mul(994_674_970, 994_705_408) as u64,
        994_674_970u64 * 994_705_408 % 994_705_409
    );
}

#[test]
fn random_and_edge_products_u64() {
    for q in [
        (1u64 << 62) - 57, // largest 62-bit prime
        (1u64 << 61) - 1,
        (1u64 << 60) - 93,
        (1u64 << 62) - 1, // largest odd 62-bit q
        4611686018427322369,
    ] {
        random_products::<u64>(q, 300_000, q);
    }
}

#[test]
fn constructor_rejects_bad_moduli() {
    assert_eq!(Barrett4::new(0u64), Err(ModulusError::Even));
    assert_eq!(Barrett4::new(1024u32), Err(ModulusError::Even));
    assert_eq!(Barrett4::new(3u64), Err(ModulusError::TooSmall { min: 5 }));
    assert_eq!(
        Barrett4::new((1u32 << 30) + 1),
        Err(ModulusError::TooWide {
            bits: 31,
            max_bits: 30
        })
    );
    assert_eq!(
        Barrett4::new((1u64 << 62) + 1),
        Err(ModulusError::TooWide {
            bits: 63,
            max_bits: 62
        })
    );
    assert!(Barrett4::new((1u64 << 62) - 1).is_ok());
    assert!(Barrett4::new((1u32 << 30) - 1).is_ok());
}

#[test]
fn wide_helpers() {
    assert_eq!(u64::MAX.mul_wide(u64::MAX), (1, u64::MAX - 1));
    assert_eq!(u32::MAX.mul_wide(2), (u32::MAX - 1, 1));
    assert_eq!(u64::shr_wide(0, 1, 64), 1);
    assert_eq!(u64::shr_wide(0, 1, 1), 1 << 63);
    assert_eq!(u32::shr_wide(0x8000_0000, 0x1, 31), 3);
    assert_eq!(u32::shr_wide(5, 0, 0), 5);
}
