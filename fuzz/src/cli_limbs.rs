//! Target `cli_limbs`: `polymul mul --limbs` / `--modulus-bits` on
//! arbitrary limb arrays, through the command line's own code
//! ([`polymul_cli::limbs::Limbs::from_bytes`], the `.npy` parsing and shape
//! checks of `Limbs::read` without the file, then
//! [`polymul_cli::limbs::product`] with `--cpu`: the modulus, `L`, the
//! coefficient checks and the planner's CPU multiplier's
//! `polymul_limbs`), judged against the schoolbook negacyclic product of
//! the big-integer polynomials modulo `Q` (`num-bigint`, independent of
//! polymul's RNS conversions).
//!
//! Input layout (zeros past the end):
//!
//! | field | type | use |
//! |---|---|---|
//! | `flags` | u8 | bits 0–1: `--word` (0, 3: none, i.e. 64; 1: `64`; 2: `32`); bits 2–3: the modulus (0: `--modulus-bits`; 1: `--q` of NTT primes the oracle finds; 2: `--q` of raw words; 3: `--bits` without `--limbs`, which must be refused); bit 4: raw `.npy` bytes instead of built arrays; bit 5: `b` is `a`; bits 6–7: the arrays' rank (0: `(N, L)`; 1–3: `(batch, N, L)` with that batch) |
//! | `n` | u8 | N = 2^(v mod 8) (1 to 128); with bit 7 set, N = (v & 0x7f) + 1 (any N, powers of two or not) |
//! | modulus | | `--modulus-bits`: `log_q` u16 (below 0xff00: `v mod 1600`; above: `2^(23 + v mod 41)`, only refusals) and the prime width u8 (0: the default); `--q` of NTT primes: width u8 (20 + mod 43), count u8 (mod 5; 0 is an empty list), one rank u8 each (mod 8: the rank-th largest NTT prime of that width for N; bit 7: repeat the previous prime); `--q` raw: count u8 (mod 5), one u64 each |
//! | `l` | u8 | limbs per coefficient: mod 8 = 6: `L + 1`, 7: `L − 1` (else `L + 2` when that is 0); otherwise the `L` of `Q` |
//! | coefficients | u64 × L each | `a` then `b` (built arrays): the first word's top bits `111`: `Q − 1`; `110`: 0; `101`: the raw limbs (often ≥ `Q`); `100`: `Q` + the low byte; otherwise the limbs reduced mod `Q` |
//! | raw mode | | `len_a` u16, then `len_a mod (rest + 1)` bytes of `a`'s file, the rest `b`'s |
//!
//! What must hold:
//!
//! * no panic; the inputs unchanged;
//! * an error is a usage error (exit code 2: the CPU run has no machine
//!   failures) with a one-line message;
//! * it is an error whenever the shapes differ, the modulus is `--bits`,
//!   the basis cannot be made (N not a power of two in range, a bad or
//!   repeated prime, a prime too wide for the word, too many primes), `L`
//!   is not that of `Q`, or a coefficient of either array is `≥ Q`;
//! * otherwise it is `Ok`, of the inputs' length, every coefficient below
//!   `Q`, equal polynomial by polynomial to the schoolbook product modulo
//!   `Q`; `Q` is the product of the `--q` primes, and for
//!   `--modulus-bits` the fewest primes of that width (checked by the
//!   oracle: prime, `≡ 1 (mod 2N)`, distinct, of the width) with at least
//!   `log_q` bits.

use crate::input::Input;
use crate::oracle;
use num_bigint::BigUint;
use polymul::Coeff;
use polymul::rns::RnsBasis;
use polymul_cli::error::USAGE;
use polymul_cli::io::Word;
use polymul_cli::limbs::{self, Limbs};
use polymul_cli::run::{Job, ModulusSpec, Op};
use std::path::{Path, PathBuf};

/// What an input came to (for the unit tests: the seeds reach each).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// A limb array was not a usable `.npy` file or shape (refused).
    Unreadable,
    /// Refused, as it had to be.
    Refused,
    /// The product, equal to the schoolbook product.
    Product,
}

/// Runs the checks on one input.
pub fn check(data: &[u8]) {
    run(data);
}

/// The checks of one input, and what it came to.
pub fn run(data: &[u8]) -> Outcome {
    oracle::self_check();
    let mut i = Input::new(data);
    let flags = i.u8();
    let word = match flags & 3 {
        1 => Some(Word::W64),
        2 => Some(Word::W32),
        _ => None,
    };
    let n_raw = i.u8();
    let n = if n_raw & 0x80 != 0 { usize::from(n_raw & 0x7f) + 1 } else { 1 << (n_raw % 8) };
    let modulus = match flags >> 2 & 3 {
        0 => {
            let v = i.u16();
            let log_q = if v < 0xff00 { u64::from(v % 1600) } else { 1 << (23 + u64::from(v) % 41) };
            let bits = i.u8();
            ModulusSpec::ModulusBits { log_q, bits: (bits != 0).then_some(u32::from(bits)) }
        }
        1 => {
            let width = 20 + u32::from(i.u8()) % 43;
            let count = usize::from(i.u8() % 5);
            let mut primes: Vec<u64> = Vec::with_capacity(count);
            for _ in 0..count {
                let pick = i.u8();
                match primes.last() {
                    Some(&p) if pick & 0x80 != 0 => primes.push(p),
                    _ => primes.push(ntt_prime(width, n, usize::from(pick % 8)).unwrap_or(4)),
                }
            }
            ModulusSpec::Primes(primes)
        }
        2 => {
            let count = usize::from(i.u8() % 5);
            ModulusSpec::Primes((0..count).map(|_| i.u64()).collect())
        }
        _ => ModulusSpec::Bits { bits: 40, towers: None },
    };
    let l_pick = i.u8() % 8;
    let job = Job {
        op: Op::Mul,
        inputs: Vec::new(),
        modulus,
        word,
        cpu: true,
        wisdom: false,
        out: PathBuf::new(),
        limbs: true,
    };
    // The basis as the command line makes it (the checks below judge it).
    let basis = match word.unwrap_or(Word::W64) {
        Word::W32 => basis_for::<u32>(&job.modulus, n),
        Word::W64 => basis_for::<u64>(&job.modulus, n),
    };
    let q = basis.as_ref().map(|(_, q)| q.clone());
    let l_of_q =
        q.as_ref().map_or(1, |q| usize::try_from(q.bits().div_ceil(64)).unwrap_or(usize::MAX).max(1));
    let l = match l_pick {
        6 => l_of_q + 1,
        7 if l_of_q > 1 => l_of_q - 1,
        7 => l_of_q + 2,
        _ => l_of_q,
    };
    let same = flags & 0x20 != 0;
    let (pa, pb) = (Path::new("a.npy"), Path::new("b.npy"));
    let (a, b) = if flags & 0x10 != 0 {
        let len_a = usize::from(i.u16());
        let rest = i.rest();
        let (fa, fb) = rest.split_at(len_a % (rest.len() + 1));
        let fb = if same { fa } else { fb };
        match (Limbs::from_bytes(pa, fa), Limbs::from_bytes(pb, fb)) {
            (Ok(a), Ok(b)) => (a, b),
            (ra, rb) => {
                for e in [ra.err(), rb.err()].into_iter().flatten() {
                    assert_usage(&e);
                }
                return Outcome::Unreadable;
            }
        }
    } else {
        let batch = usize::from(flags >> 6);
        let shape = if batch == 0 { vec![n, l] } else { vec![batch, n, l] };
        let count = batch.max(1) * n;
        let a = built(&mut i, pa, &shape, count, l, q.as_ref());
        let b = if same {
            Limbs { path: pb.to_path_buf(), ..a.clone() }
        } else {
            built(&mut i, pb, &shape, count, l, q.as_ref())
        };
        (a, b)
    };
    let inputs = [a, b];
    let before = inputs.clone();
    let got = limbs::product(&job, &inputs);
    assert_eq!(inputs, before, "the inputs changed");
    let [a, b] = &inputs;

    // What must be refused.
    let refused = |why: &str| {
        let e = got.as_ref().err().unwrap_or_else(|| panic!("accepted although {why}: {job:?}"));
        assert_usage(e);
        Outcome::Refused
    };
    if a.shape != b.shape {
        return refused("the shapes differ");
    }
    if matches!(job.modulus, ModulusSpec::Bits { .. }) {
        return refused("the modulus is --bits");
    }
    let d = a.shape.len();
    let (n, l) = (a.shape[d - 2], a.shape[d - 1]);
    let (primes, q) = match word.unwrap_or(Word::W64) {
        Word::W32 => basis_for::<u32>(&job.modulus, n),
        Word::W64 => basis_for::<u64>(&job.modulus, n),
    }
    .map_or((None, None), |(p, q)| (Some(p), Some(q)));
    let (Some(primes), Some(q)) = (primes, q) else {
        return refused("the basis cannot be made");
    };
    check_basis(&job, word, n, &primes, &q);
    let l_of_q = usize::try_from(q.bits().div_ceil(64)).unwrap_or(usize::MAX);
    if l != l_of_q {
        return refused("L is not that of Q");
    }
    let (ca, cb) = (coefficients(&a.data, l), coefficients(&b.data, l));
    if ca.iter().chain(&cb).any(|c| *c >= q) {
        let e = got.as_ref().err().unwrap_or_else(|| panic!("accepted a coefficient ≥ Q: {job:?}"));
        assert_usage(e);
        assert!(e.message.contains("not below Q"), "{}", e.message);
        return Outcome::Refused;
    }

    // A valid input: the product.
    let c = match got {
        Ok(c) => c,
        Err(e) => panic!("refused a valid input ({job:?}, shape {:?}): {}", a.shape, e.message),
    };
    assert_eq!(c.len(), a.data.len(), "result length");
    let cc = coefficients(&c, l);
    assert!(cc.iter().all(|x| *x < q), "a result coefficient ≥ Q");
    for (k, ((pa, pb), pc)) in ca.chunks(n).zip(cb.chunks(n)).zip(cc.chunks(n)).enumerate() {
        assert_eq!(
            pc,
            schoolbook(pa, pb, &q).as_slice(),
            "polynomial {k}: N = {n}, Q = {q}, primes {primes:?}"
        );
    }
    Outcome::Product
}

/// The primes and `Q` of the command line's basis for `spec` on `W` words,
/// or `None` when it refuses them.
fn basis_for<W: Coeff>(spec: &ModulusSpec, n: usize) -> Option<(Vec<u64>, BigUint)> {
    let basis = match *spec {
        ModulusSpec::ModulusBits { log_q, bits } => {
            let bits = bits.unwrap_or(if W::BITS == 32 { 30 } else { 62 });
            RnsBasis::<W>::with_modulus_bits(n, bits, log_q)
        }
        ModulusSpec::Primes(ref primes) => RnsBasis::<W>::from_primes(n, primes),
        ModulusSpec::Bits { .. } => return None,
    };
    basis.ok().map(|b| (b.primes(), b.modulus().clone()))
}

/// The basis the command line used is the one asked for (oracle checks).
fn check_basis(job: &Job, word: Option<Word>, n: usize, primes: &[u64], q: &BigUint) {
    let max_bits = if word == Some(Word::W32) { 30 } else { 62 };
    let product = primes.iter().fold(BigUint::from(1u32), |acc, &p| acc * p);
    assert_eq!(&product, q, "Q is the product of the primes");
    let mut seen = primes.to_vec();
    seen.sort_unstable();
    seen.dedup();
    assert_eq!(seen.len(), primes.len(), "repeated primes {primes:?}");
    for &p in primes {
        assert!(oracle::is_prime(p), "{p} is not prime");
        assert!(oracle::bits(p) <= max_bits, "{p} is too wide for the word");
        assert_eq!(u128::from(p) % (2 * n as u128), 1, "{p} is not 1 mod 2N, N = {n}");
    }
    match job.modulus {
        ModulusSpec::Primes(ref given) => assert_eq!(given, primes, "the primes given"),
        ModulusSpec::ModulusBits { log_q, bits } => {
            let width = bits.unwrap_or(max_bits);
            assert!(primes.iter().all(|&p| oracle::bits(p) == width), "widths of {primes:?}, not {width}");
            assert!(q.bits() >= log_q, "Q has {} bits, fewer than {log_q}", q.bits());
            let fewer = &primes[..primes.len() - 1];
            let smaller = fewer.iter().fold(BigUint::from(1u32), |acc, &p| acc * p);
            assert!(fewer.is_empty() || smaller.bits() < log_q, "more primes than needed: {primes:?}");
        }
        ModulusSpec::Bits { .. } => unreachable!("refused before"),
    }
}

/// The `rank`-th largest prime `p ≡ 1 (mod 2N)` of exactly `width` bits
/// (the oracle's own search).
fn ntt_prime(width: u32, n: usize, rank: usize) -> Option<u64> {
    let step = 2 * u64::try_from(n).ok()?;
    let top = (1u64 << width) - 1;
    let low = 1u64 << (width - 1);
    let mut c = top - (top - 1) % step;
    let mut left = rank;
    while c >= low {
        if oracle::is_prime(c) {
            if left == 0 {
                return Some(c);
            }
            left -= 1;
        }
        c = c.checked_sub(step)?;
    }
    None
}

/// An array of `count` coefficients of `l` limbs (see the layout) as the
/// bytes of a `.npy` file of `shape`, read back by the command line's
/// reader.
fn built(
    i: &mut Input<'_>,
    path: &Path,
    shape: &[usize],
    count: usize,
    l: usize,
    q: Option<&BigUint>,
) -> Limbs {
    let mut data = Vec::with_capacity(count * l);
    for _ in 0..count {
        let raw: Vec<u64> = (0..l).map(|_| i.u64()).collect();
        let tag = raw[0] >> 61;
        let value = match (tag, q) {
            (0b111, Some(q)) => q - 1u32,
            (0b110, _) => BigUint::ZERO,
            (0b100, Some(q)) => q + (raw[0] & 0xff),
            (0b101, _) | (_, None) => from_limbs(&raw),
            (_, Some(q)) => from_limbs(&raw) % q,
        };
        data.extend(to_limbs(&value, l));
    }
    let bytes = npy_bytes(shape, &data);
    let limbs =
        Limbs::from_bytes(path, &bytes).unwrap_or_else(|e| panic!("a valid file refused: {}", e.message));
    assert_eq!((limbs.shape.as_slice(), limbs.data.as_slice()), (shape, data.as_slice()), "read back");
    limbs
}

/// A `.npy` file (format 1.0, `<u8`, C order) of `shape` holding `data`.
fn npy_bytes(shape: &[usize], data: &[u64]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(usize::to_string).collect();
    let mut header = format!("{{'descr': '<u8', 'fortran_order': False, 'shape': ({}), }}", dims.join(", "));
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend(u16::try_from(header.len()).unwrap_or(u16::MAX).to_le_bytes());
    out.extend(header.as_bytes());
    for w in data {
        out.extend(w.to_le_bytes());
    }
    out
}

/// The coefficient of little-endian `u64` limbs.
fn from_limbs(limbs: &[u64]) -> BigUint {
    BigUint::from_slice(&limbs.iter().flat_map(|&w| [w as u32, (w >> 32) as u32]).collect::<Vec<_>>())
}

/// `x` as `l` little-endian `u64` limbs (the high part cut off when it
/// does not fit: only for values the checks refuse anyway).
fn to_limbs(x: &BigUint, l: usize) -> Vec<u64> {
    let mut out = x.to_u64_digits();
    out.resize(l, 0);
    out
}

/// The coefficients of a limb array.
fn coefficients(data: &[u64], l: usize) -> Vec<BigUint> {
    data.chunks(l).map(from_limbs).collect()
}

/// `a · b mod (X^N + 1, Q)`, schoolbook, in big integers.
fn schoolbook(a: &[BigUint], b: &[BigUint], q: &BigUint) -> Vec<BigUint> {
    let n = a.len();
    let mut pos = vec![BigUint::ZERO; n];
    let mut neg = vec![BigUint::ZERO; n];
    for (i, x) in a.iter().enumerate() {
        for (j, y) in b.iter().enumerate() {
            if i + j < n {
                pos[i + j] += x * y;
            } else {
                neg[i + j - n] += x * y;
            }
        }
    }
    pos.into_iter().zip(neg).map(|(p, m)| (p % q + q - m % q) % q).collect()
}

/// An error of the command line for bad input: exit code 2, one line.
fn assert_usage(e: &polymul_cli::error::CliError) {
    assert_eq!(e.code, USAGE, "not a usage error: {}", e.message);
    assert!(!e.message.trim().is_empty(), "an empty message");
    assert!(!e.line().contains('\n'), "a message of several lines: {}", e.line());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed(name: &str) -> Vec<u8> {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("seeds/cli_limbs").join(name);
        std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// The seeds reach the product (and the refusals) they were made for:
    /// the target exercises the whole path, not only its checks.
    #[test]
    fn seeds_reach_what_they_were_made_for() {
        for (name, want) in [
            ("modulus_bits_200_n8", Outcome::Product),
            ("word32_modulus_bits_100_batch2", Outcome::Product),
            ("q_three_40_bit_primes_batch3_same", Outcome::Product),
            ("raw_npy_q50_n4", Outcome::Product),
            ("unreduced_n2", Outcome::Refused),
        ] {
            assert_eq!(run(&seed(name)), want, "{name}");
        }
        assert_eq!(run(&[]), Outcome::Refused, "all zeros: N = 1");
    }

    /// How the inputs of `fuzz/corpus/cli_limbs` (a fuzzing run's) end:
    /// `cargo test --manifest-path fuzz/Cargo.toml --lib --target-dir
    /// target/fuzz corpus_outcomes -- --ignored --nocapture`.
    #[test]
    #[ignore = "needs a corpus from a fuzzing run"]
    fn corpus_outcomes() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/cli_limbs");
        let mut counts = std::collections::BTreeMap::new();
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())).flatten() {
            let data = std::fs::read(entry.path()).unwrap_or_default();
            *counts.entry(format!("{:?}", run(&data))).or_insert(0usize) += 1;
        }
        println!("{}: {counts:?}", dir.display());
    }

    #[test]
    fn schoolbook_wraps_with_a_minus_sign() {
        // (1 + X)·X = X + X^2 = X − 1 mod (X^2 + 1, 17)
        let v = |x: &[u32]| x.iter().map(|&c| BigUint::from(c)).collect::<Vec<_>>();
        assert_eq!(schoolbook(&v(&[1, 1]), &v(&[0, 1]), &BigUint::from(17u32)), v(&[16, 1]));
        let bytes = npy_bytes(&[2, 3, 1], &[1, 2, 3, 4, 5, 6]);
        assert_eq!(bytes.len() % 64, 48, "header padded to 64 bytes");
        assert_eq!(
            polymul_npy::NpyArray::<u64>::from_bytes_nd(&bytes, 3).ok().map(|a| a.shape),
            Some(vec![2, 3, 1])
        );
    }
}
