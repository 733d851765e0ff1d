//! The `polymul` binary end to end, on the CPU path (`--cpu`): inputs are
//! written with `polymul_npy`, the binary runs in a fresh folder, and its
//! output files are compared bit for bit with the `.npy` bytes of the
//! library's CPU results (and with the naive product for small N). Every
//! error case checks the exit code, a single `polymul: ...` line on stderr
//! without a panic, and that no output file (not even a temporary one) is
//! left.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use polymul::dgt::{self, DgtConfig, DgtParams};
use polymul::expert::SplitMix64;
use polymul::expert::emulation;
use polymul::params::arith::{is_prime, pow_mod};
use polymul::rns::RnsBasis;
use polymul::{Coeff, NttParams, cpu};
use polymul_npy::{NpyArray, NpyWord};

const BIN: &str = env!("CARGO_BIN_EXE_polymul");

/// A fresh, empty folder for one test.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("polymul-cli-tests").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the binary in `dir`, with a wisdom path that does not exist (the
/// tests never read the user's own wisdom file).
fn polymul(dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("POLYMUL_BENCH_CHILD")
        .env(
            "POLYMUL_WISDOM",
            Path::new(env!("CARGO_TARGET_TMPDIR")).join("polymul-cli-tests-no-wisdom.json"),
        )
        .output()
        .unwrap()
}

fn ok(out: &Output) -> String {
    assert!(
        out.status.success(),
        "exit {:?}\nstdout: {}\nstderr: {}",
        out.status.code(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone()).unwrap()
}

fn save<W: NpyWord>(dir: &Path, name: &str, shape: &[usize], data: Vec<W>) {
    NpyArray { shape: shape.to_vec(), data }.write_file(dir.join(name)).unwrap();
}

/// The output file equals, byte for byte, the `.npy` file of `expected`.
fn assert_npy<W: NpyWord + std::fmt::Debug + PartialEq>(
    dir: &Path,
    name: &str,
    shape: &[usize],
    expected: Vec<W>,
) {
    let bytes = std::fs::read(dir.join(name)).unwrap();
    let want = NpyArray { shape: shape.to_vec(), data: expected.clone() };
    if bytes != want.to_bytes().unwrap() {
        let got = NpyArray::<u64>::from_bytes(&bytes).unwrap();
        panic!(
            "{name}: got shape {:?}, {} words; expected shape {shape:?}, {expected:?}",
            got.shape,
            got.data.len()
        );
    }
}

/// Fails with `code`, one `polymul:` line on stderr containing `needle`,
/// no panic, and the folder holds exactly the files `keep`.
fn assert_fails(dir: &Path, out: &Output, code: i32, needle: &str, keep: &[&str]) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(code), "stderr: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "not one line: {stderr:?}");
    assert!(stderr.starts_with("polymul: "), "{stderr:?}");
    assert!(stderr.ends_with('\n'), "{stderr:?}");
    assert!(!stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"), "{stderr:?}");
    assert!(stderr.contains(needle), "{stderr:?} does not mention {needle:?}");
    assert!(out.stdout.is_empty(), "stdout: {}", String::from_utf8_lossy(&out.stdout));
    let mut files: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut keep: Vec<String> = keep.iter().map(|s| s.to_string()).collect();
    keep.sort();
    assert_eq!(files, keep, "files left behind");
}

fn random<W: Coeff>(seed: u64, len: usize, q: W) -> Vec<W> {
    SplitMix64::new(seed).coeffs(len, q)
}

fn widen<W: Coeff>(v: &[W]) -> Vec<u64> {
    v.iter().map(|x| x.as_u64()).collect()
}

// ---------------------------------------------------------------------------
// Results
// ---------------------------------------------------------------------------

/// ntt, intt and mul for one word, single and batched, against the library.
fn transforms_and_products<W: Coeff + NpyWord + PartialEq>(bits: u32) {
    let dir = fresh_dir(&format!("results-u{}", W::BITS));
    let word = W::BITS.to_string();
    for (shape, n) in [(vec![64usize], 64usize), (vec![3, 256], 256), (vec![1, 2], 2), (vec![2, 2048], 2048)]
    {
        let len: usize = shape.iter().product();
        let p = NttParams::<W>::with_prime_bits(n, bits).unwrap();
        let a = random(len as u64, len, p.q());
        let b = random(len as u64 + 1, len, p.q());
        save(&dir, "a.npy", &shape, a.clone());
        save(&dir, "b.npy", &shape, b.clone());
        let bits_s = bits.to_string();
        let common = ["--bits", &bits_s, "--cpu", "--word", &word];

        let mut fwd = a.clone();
        emulation::forward(&p, &mut fwd).unwrap();
        ok(&polymul(&dir, &[&["ntt", "a.npy", "--out", "fa.npy"][..], &common].concat()));
        assert_npy(&dir, "fa.npy", &shape, fwd.clone());

        let mut inv = a.clone();
        emulation::inverse(&p, &mut inv).unwrap();
        ok(&polymul(&dir, &[&["intt", "a.npy", "-o", "ia.npy"][..], &common].concat()));
        assert_npy(&dir, "ia.npy", &shape, inv);

        // intt(ntt(a)) == a through the files.
        ok(&polymul(&dir, &[&["intt", "fa.npy", "--out", "back.npy"][..], &common].concat()));
        assert_npy(&dir, "back.npy", &shape, a.clone());

        let c = emulation::polymul(&p, &a, &b).unwrap();
        ok(&polymul(&dir, &[&["mul", "a.npy", "b.npy", "--out", "c.npy"][..], &common].concat()));
        assert_npy(&dir, "c.npy", &shape, c.clone());

        // The naive product, row by row, for the small sizes.
        if n <= 256 {
            let q = p.q().as_u64();
            for r in 0..len / n {
                let row = |v: &[W]| widen(&v[r * n..(r + 1) * n]);
                assert_eq!(
                    widen(&c[r * n..(r + 1) * n]),
                    cpu::negacyclic_naive(&row(&a), &row(&b), q).unwrap()
                );
            }
        }

        // An explicit --q gives the same file.
        let q = p.q().as_u64().to_string();
        ok(&polymul(
            &dir,
            &["mul", "a.npy", "b.npy", "--q", &q, "--cpu", "--word", &word, "--out", "c2.npy"],
        ));
        assert_eq!(std::fs::read(dir.join("c.npy")).unwrap(), std::fs::read(dir.join("c2.npy")).unwrap());
    }
}

#[test]
fn ntt_intt_mul_u64() {
    transforms_and_products::<u64>(62);
    transforms_and_products::<u64>(40);
}

#[test]
fn ntt_intt_mul_u32() {
    transforms_and_products::<u32>(30);
}

#[test]
fn the_word_defaults_to_the_file_dtype() {
    let dir = fresh_dir("word");
    let n = 32;
    let p32 = NttParams::<u32>::with_prime_bits(n, 30).unwrap();
    let a = random(1, n, p32.q());
    let b = random(2, n, p32.q());
    let c = emulation::polymul(&p32, &a, &b).unwrap();
    // A uint32 file computes on u32 words and writes '<u4'.
    save(&dir, "a.npy", &[n], a.clone());
    save(&dir, "b.npy", &[n], b.clone());
    ok(&polymul(&dir, &["mul", "a.npy", "b.npy", "--bits", "30", "--cpu", "--out", "c.npy"]));
    assert_npy(&dir, "c.npy", &[n], c.clone());
    // A uint64 file computes on u64 words ('<u8'), unless --word 32.
    save(&dir, "a64.npy", &[n], widen(&a));
    save(&dir, "b64.npy", &[n], widen(&b));
    ok(&polymul(&dir, &["mul", "a64.npy", "b64.npy", "--bits", "30", "--cpu", "--out", "c64.npy"]));
    assert_npy(
        &dir,
        "c64.npy",
        &[n],
        emulation::polymul(&NttParams::<u64>::new(n, p32.q().into()).unwrap(), &widen(&a), &widen(&b))
            .unwrap(),
    );
    ok(&polymul(
        &dir,
        &["mul", "a64.npy", "b64.npy", "--bits", "30", "--cpu", "--word", "32", "--out", "c32.npy"],
    ));
    assert_npy(&dir, "c32.npy", &[n], c.clone());
    // Mixed files compute on the wider word.
    ok(&polymul(&dir, &["mul", "a.npy", "b64.npy", "--bits", "30", "--cpu", "--out", "mixed.npy"]));
    assert_eq!(std::fs::read(dir.join("mixed.npy")).unwrap(), std::fs::read(dir.join("c64.npy")).unwrap());
    // Signed int64 input (non-negative) is read too: patch the dtype of a '<u8' file.
    let bytes = std::fs::read(dir.join("a64.npy")).unwrap();
    std::fs::write(dir.join("ai64.npy"), replace_once(&bytes, b"'<u8'", b"'<i8'")).unwrap();
    ok(&polymul(&dir, &["mul", "ai64.npy", "b64.npy", "--bits", "30", "--cpu", "--out", "ci.npy"]));
    assert_eq!(std::fs::read(dir.join("ci.npy")).unwrap(), std::fs::read(dir.join("c64.npy")).unwrap());
}

/// RNS: tower-major arrays `(towers * batch, n)`.
#[test]
fn rns_towers() {
    let dir = fresh_dir("rns");
    let (n, batch, towers, bits) = (128usize, 2usize, 3usize, 50u32);
    let basis = RnsBasis::<u64>::new(n, bits, towers).unwrap();
    let shape = [towers * batch, n];
    // Tower t's rows hold residues below q_t.
    let residues = |seed: u64| -> Vec<u64> {
        basis
            .towers()
            .iter()
            .enumerate()
            .flat_map(|(t, p)| random(seed + t as u64, batch * n, p.q()))
            .collect()
    };
    let (a, b) = (residues(10), residues(20));
    save(&dir, "a.npy", &shape, a.clone());
    save(&dir, "b.npy", &shape, b.clone());

    let c = emulation::rns_polymul(&basis, &a, &b).unwrap();
    ok(&polymul(
        &dir,
        &["mul", "a.npy", "b.npy", "--towers", "3", "--bits", "50", "--cpu", "--out", "c.npy"],
    ));
    assert_npy(&dir, "c.npy", &shape, c.clone());
    // Each tower is the naive product modulo its prime.
    let len = batch * n;
    for (t, q) in basis.primes().into_iter().enumerate() {
        for r in 0..batch {
            let at = |v: &[u64]| v[t * len + r * n..t * len + (r + 1) * n].to_vec();
            assert_eq!(at(&c), cpu::negacyclic_naive(&at(&a), &at(&b), q).unwrap(), "tower {t} row {r}");
        }
    }
    // The same primes given explicitly.
    let qs = basis.primes().iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    ok(&polymul(&dir, &["mul", "a.npy", "b.npy", "--q", &qs, "--cpu", "--out", "c2.npy"]));
    assert_eq!(std::fs::read(dir.join("c.npy")).unwrap(), std::fs::read(dir.join("c2.npy")).unwrap());

    // Transforms per tower, and the round trip.
    let mut fwd = a.clone();
    for (p, part) in basis.towers().iter().zip(fwd.chunks_mut(len)) {
        emulation::forward(p, part).unwrap();
    }
    ok(&polymul(&dir, &["ntt", "a.npy", "--towers", "3", "--bits", "50", "--cpu", "--out", "fa.npy"]));
    assert_npy(&dir, "fa.npy", &shape, fwd);
    ok(&polymul(&dir, &["intt", "fa.npy", "--towers", "3", "--bits", "50", "--cpu", "--out", "back.npy"]));
    assert_npy(&dir, "back.npy", &shape, a.clone());

    // u32 towers.
    let basis32 = RnsBasis::<u32>::new(n, 30, 2).unwrap();
    let a32: Vec<u32> = basis32.towers().iter().flat_map(|p| random(5, n, p.q())).collect();
    save(&dir, "a32.npy", &[2, n], a32.clone());
    ok(&polymul(
        &dir,
        &["mul", "a32.npy", "a32.npy", "--towers", "2", "--bits", "30", "--cpu", "--out", "c32.npy"],
    ));
    assert_npy(&dir, "c32.npy", &[2, n], emulation::rns_polymul(&basis32, &a32, &a32).unwrap());
}

#[test]
fn dgt_products() {
    let dir = fresh_dir("dgt");
    for (n, batch) in [(4usize, 1usize), (64, 3), (2048, 2)] {
        let p64 = DgtParams::<u64>::with_prime_bits(n, 62).unwrap();
        let p32 = DgtParams::<u32>::with_prime_bits(n, 30).unwrap();
        let config = DgtConfig::default_for(n.trailing_zeros() - 1);
        let shape = if batch == 1 { vec![n] } else { vec![batch, n] };
        let len = batch * n;

        let (a, b) = (random(1, len, p64.p()), random(2, len, p64.p()));
        save(&dir, "a.npy", &shape, a.clone());
        save(&dir, "b.npy", &shape, b.clone());
        let c = emulation::dgt::polymul(&p64, &config, &a, &b).unwrap();
        ok(&polymul(&dir, &["mul", "a.npy", "b.npy", "--dgt", "--bits", "62", "--cpu", "--out", "c.npy"]));
        assert_npy(&dir, "c.npy", &shape, c.clone());
        if n <= 64 {
            for r in 0..batch {
                let row = |v: &[u64]| v[r * n..(r + 1) * n].to_vec();
                assert_eq!(row(&c), cpu::negacyclic_naive(&row(&a), &row(&b), p64.p()).unwrap());
            }
        }

        let (a, b) = (random(3, len, p32.p()), random(4, len, p32.p()));
        save(&dir, "a32.npy", &shape, a.clone());
        save(&dir, "b32.npy", &shape, b.clone());
        let c = emulation::dgt::polymul(&p32, &config, &a, &b).unwrap();
        let q = p32.p().to_string();
        ok(&polymul(&dir, &["mul", "a32.npy", "b32.npy", "--dgt", "--q", &q, "--cpu", "--out", "c32.npy"]));
        assert_npy(&dir, "c32.npy", &shape, c);
    }

    // DGT towers: tower-major as for the NTT.
    let n = 256;
    let ps = dgt::dgt_primes(40, n, 2).unwrap();
    let config = DgtConfig::default_for(7);
    let a: Vec<u64> = ps.iter().flat_map(|&p| random(p, n, p)).collect();
    let b: Vec<u64> = ps.iter().flat_map(|&p| random(p + 1, n, p)).collect();
    save(&dir, "ta.npy", &[2, n], a.clone());
    save(&dir, "tb.npy", &[2, n], b.clone());
    let mut want = Vec::new();
    for (t, &p) in ps.iter().enumerate() {
        let params = DgtParams::<u64>::new(n, p).unwrap();
        want.extend(
            emulation::dgt::polymul(&params, &config, &a[t * n..(t + 1) * n], &b[t * n..(t + 1) * n])
                .unwrap(),
        );
    }
    ok(&polymul(
        &dir,
        &["mul", "ta.npy", "tb.npy", "--dgt", "--towers", "2", "--bits", "40", "--cpu", "--out", "tc.npy"],
    ));
    assert_npy(&dir, "tc.npy", &[2, n], want);
}

// ---------------------------------------------------------------------------
// params
// ---------------------------------------------------------------------------

/// The integers of a line, in order.
fn integers(line: &str) -> Vec<u64> {
    line.split(|c: char| !c.is_ascii_digit()).filter(|s| !s.is_empty()).map(|s| s.parse().unwrap()).collect()
}

#[test]
fn params_lists_ntt_primes_with_their_roots() {
    let dir = fresh_dir("params-ntt");
    for (n, bits, count) in [(1024usize, 30u32, 3usize), (1 << 16, 62, 5), (2, 20, 1)] {
        let stdout = ok(&polymul(
            &dir,
            &["params", "--n", &n.to_string(), "--bits", &bits.to_string(), "--count", &count.to_string()],
        ));
        let lines: Vec<&str> = stdout.lines().collect();
        assert_eq!(lines.len(), 2 + count, "{stdout}");
        assert!(lines[0].contains(&format!("N = {n}")), "{stdout}");
        let two_n = 2 * n as u64;
        let mut last = u64::MAX;
        for (i, line) in lines[2..].iter().enumerate() {
            let nums = integers(line);
            let (idx, q, psi) = (nums[0], nums[1], nums[2]);
            assert_eq!(idx, i as u64);
            assert!(is_prime(q), "{q}");
            assert_eq!(q % two_n, 1, "{q}");
            assert_eq!(64 - q.leading_zeros(), bits);
            assert!(q < last, "largest first");
            last = q;
            assert_eq!(pow_mod(psi, n as u64, q).unwrap(), q - 1, "ψ has order 2N");
            if n <= 1024 {
                assert_eq!(psi, NttParams::<u64>::new(n, q).unwrap().psi(), "NttParams' ψ");
            }
            assert_eq!(line.contains("u32"), bits <= 30);
        }
        assert_eq!(
            lines[2..].iter().map(|l| integers(l)[1]).collect::<Vec<_>>(),
            polymul::params::ntt_primes(bits, n, count).unwrap()
        );
    }
}

#[test]
fn params_lists_dgt_primes_and_writes_json() {
    let dir = fresh_dir("params-dgt");
    let n = 1024usize;
    let stdout = ok(&polymul(&dir, &["params", "--n", "1024", "--bits", "30", "--count", "2", "--dgt"]));
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 4, "{stdout}");
    for line in &lines[2..] {
        let nums = integers(line);
        let (p, xi, g) = (nums[1], (nums[2], nums[3]), (nums[4], nums[5]));
        assert!(is_prime(p));
        assert_eq!((p + 1) % n as u64, 0);
        let d = DgtParams::<u64>::new(n, p).unwrap();
        assert_eq!((xi, g), (d.xi(), d.g()));
    }

    // JSON, to a file and to stdout.
    ok(&polymul(&dir, &["params", "--n", "4096", "--bits", "62", "--count", "3", "--json", "p.json"]));
    let json = std::fs::read_to_string(dir.join("p.json")).unwrap();
    assert!(
        json.contains("\"transform\": \"ntt\"")
            && json.contains("\"n\": 4096")
            && json.contains("\"bits\": 62")
    );
    let qs: Vec<u64> = json.lines().filter(|l| l.contains("\"q\"")).map(|l| integers(l)[0]).collect();
    assert_eq!(qs, polymul::params::ntt_primes(62, 4096, 3).unwrap());
    for (q, line) in qs.iter().zip(json.lines().filter(|l| l.contains("\"psi\""))) {
        let psi = integers(line)[1];
        assert_eq!(pow_mod(psi, 4096, *q).unwrap(), q - 1);
    }
    let stdout = ok(&polymul(&dir, &["params", "--n", "1024", "--bits", "30", "--dgt", "--json", "-"]));
    assert!(stdout.contains("\"transform\": \"dgt\"") && stdout.contains("\"xi\": ["), "{stdout}");
    let p = integers(stdout.lines().find(|l| l.contains("\"p\"")).unwrap())[0];
    assert_eq!(p, dgt::dgt_primes(30, 1024, 1).unwrap()[0]);

    let out = polymul(&dir, &["params", "--n", "1000", "--bits", "30"]);
    assert_fails(&dir, &out, 2, "power of two", &["p.json"]);
    let out = polymul(&dir, &["params", "--n", "1024", "--bits", "63"]);
    assert_fails(&dir, &out, 2, "63 bits", &["p.json"]);
    let out = polymul(&dir, &["params", "--n", "1048576", "--bits", "20"]);
    assert_fails(&dir, &out, 2, "more bits or a smaller N", &["p.json"]);
}

// ---------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------

fn replace_once(bytes: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    let at = bytes.windows(from.len()).position(|w| w == from).unwrap();
    [&bytes[..at], to, &bytes[at + from.len()..]].concat()
}

/// A folder with good inputs: `a.npy`, `b.npy` (N = 16, u64, 30-bit values
/// below the 30-bit prime) and `a2.npy` (shape (2, 16)).
fn error_dir(name: &str) -> (PathBuf, u64) {
    let dir = fresh_dir(name);
    let q = polymul::params::ntt_primes(30, 16, 1).unwrap()[0];
    save(&dir, "a.npy", &[16], random(1, 16, q));
    save(&dir, "b.npy", &[16], random(2, 16, q));
    save(&dir, "a2.npy", &[2, 16], random(3, 32, q));
    (dir, q)
}

const INPUTS: [&str; 3] = ["a.npy", "a2.npy", "b.npy"];

fn with(extra: &[&str]) -> Vec<String> {
    INPUTS.iter().chain(extra).map(|s| s.to_string()).collect()
}

fn assert_fails_keeping(dir: &Path, out: &Output, code: i32, needle: &str, extra: &[&str]) {
    let keep = with(extra);
    assert_fails(dir, out, code, needle, &keep.iter().map(String::as_str).collect::<Vec<_>>());
}

#[test]
fn missing_and_malformed_files() {
    let (dir, _) = error_dir("bad-files");
    let out = polymul(&dir, &["ntt", "nope.npy", "--bits", "30", "--cpu", "--out", "o.npy"]);
    assert_fails_keeping(&dir, &out, 2, "nope.npy", &[]);

    // Truncated: the data cut short, and the header cut short.
    let bytes = std::fs::read(dir.join("a.npy")).unwrap();
    std::fs::write(dir.join("short.npy"), &bytes[..bytes.len() - 5]).unwrap();
    let out = polymul(&dir, &["ntt", "short.npy", "--bits", "30", "--cpu", "--out", "o.npy"]);
    assert_fails_keeping(&dir, &out, 2, "short.npy", &["short.npy"]);
    std::fs::write(dir.join("short.npy"), &bytes[..40]).unwrap();
    let out = polymul(&dir, &["intt", "short.npy", "--bits", "30", "--cpu", "--out", "o.npy"]);
    assert_fails_keeping(&dir, &out, 2, "truncated", &["short.npy"]);
    // Not a .npy file at all.
    std::fs::write(dir.join("text.npy"), b"1 2 3 4\n").unwrap();
    let out = polymul(&dir, &["mul", "a.npy", "text.npy", "--bits", "30", "--cpu", "--out", "o.npy"]);
    assert_fails_keeping(&dir, &out, 2, "not a .npy file", &["short.npy", "text.npy"]);

    // Wrong dtype: float64.
    std::fs::write(dir.join("float.npy"), replace_once(&bytes, b"'<u8'", b"'<f8'")).unwrap();
    let out = polymul(&dir, &["ntt", "float.npy", "--bits", "30", "--cpu", "--out", "o.npy"]);
    assert_fails_keeping(&dir, &out, 2, "dtype", &["short.npy", "text.npy", "float.npy"]);
    // A 3-D array.
    let bytes3 = replace_once(&bytes, b"(16,)", b"(2,2,4)");
    std::fs::write(dir.join("cube.npy"), bytes3).unwrap();
    let out = polymul(&dir, &["ntt", "cube.npy", "--bits", "30", "--cpu", "--out", "o.npy"]);
    assert_fails_keeping(&dir, &out, 2, "1-D", &["short.npy", "text.npy", "float.npy", "cube.npy"]);
}

#[test]
fn bad_values_and_shapes() {
    let (dir, q) = error_dir("bad-values");
    // A coefficient equal to q, in a 1-D and a 2-D array.
    let mut big = random(4, 16, q);
    big[5] = q;
    save(&dir, "big.npy", &[16], big);
    let qs = q.to_string();
    let out = polymul(&dir, &["ntt", "big.npy", "--q", &qs, "--cpu", "--out", "o.npy"]);
    assert_fails_keeping(
        &dir,
        &out,
        2,
        &format!("big.npy[5] = {q} is not reduced modulo q = {q}"),
        &["big.npy"],
    );
    let mut big2 = random(5, 32, q);
    big2[16 + 3] = u64::MAX;
    save(&dir, "big2.npy", &[2, 16], big2);
    let out = polymul(&dir, &["mul", "a2.npy", "big2.npy", "--bits", "30", "--cpu", "--out", "o.npy"]);
    assert_fails_keeping(&dir, &out, 2, "big2.npy[1, 3]", &["big.npy", "big2.npy"]);
    // ... and in the second tower of an RNS array (q_1 < q_0 = q).
    let qs2 = polymul::params::ntt_primes(30, 16, 2).unwrap();
    let mut tower = random(6, 32, qs2[1]);
    tower[16 + 7] = qs2[1];
    save(&dir, "tower.npy", &[2, 16], tower);
    let out =
        polymul(&dir, &["ntt", "tower.npy", "--towers", "2", "--bits", "30", "--cpu", "--out", "o.npy"]);
    assert_fails_keeping(&dir, &out, 2, "RNS tower 1 of 2", &["big.npy", "big2.npy", "tower.npy"]);
    let keep = ["big.npy", "big2.npy", "tower.npy"];
    // DGT: the check is the CLI's, same message.
    let p = dgt::dgt_primes(30, 16, 1).unwrap()[0];
    save(&dir, "dbig.npy", &[16], vec![p; 16]);
    let out =
        polymul(&dir, &["mul", "dbig.npy", "dbig.npy", "--dgt", "--bits", "30", "--cpu", "--out", "o.npy"]);
    let keep: Vec<&str> = keep.iter().copied().chain(["dbig.npy"]).collect();
    assert_fails_keeping(&dir, &out, 2, "dbig.npy[0]", &keep);

    // N not a power of two.
    save(&dir, "n12.npy", &[12], vec![1u64; 12]);
    let keep: Vec<&str> = keep.iter().copied().chain(["n12.npy"]).collect();
    let out = polymul(&dir, &["ntt", "n12.npy", "--bits", "30", "--cpu", "--out", "o.npy"]);
    assert_fails_keeping(&dir, &out, 2, "N = 12 is not supported: N must be a power of two", &keep);
    let out =
        polymul(&dir, &["mul", "n12.npy", "n12.npy", "--dgt", "--bits", "30", "--cpu", "--out", "o.npy"]);
    assert_fails_keeping(&dir, &out, 2, "power of two", &keep);
    // An empty batch.
    save(&dir, "empty.npy", &[0, 16], Vec::<u64>::new());
    let keep: Vec<&str> = keep.iter().copied().chain(["empty.npy"]).collect();
    let out = polymul(&dir, &["ntt", "empty.npy", "--bits", "30", "--cpu", "--out", "o.npy"]);
    assert_fails_keeping(&dir, &out, 2, "no polynomial", &keep);

    // mul with mismatched shapes.
    let out = polymul(&dir, &["mul", "a.npy", "a2.npy", "--bits", "30", "--cpu", "--out", "o.npy"]);
    assert_fails_keeping(&dir, &out, 2, "a.npy has shape (16,) but a2.npy has shape (2, 16)", &keep);
    // Rows that are not a whole number of towers.
    save(&dir, "three.npy", &[3, 16], random(7, 48, qs2[1]));
    let keep: Vec<&str> = keep.iter().copied().chain(["three.npy"]).collect();
    let out =
        polymul(&dir, &["ntt", "three.npy", "--towers", "2", "--bits", "30", "--cpu", "--out", "o.npy"]);
    assert_fails_keeping(&dir, &out, 2, "tower-major", &keep);
}

#[test]
fn bad_moduli_and_words() {
    let (dir, q) = error_dir("bad-moduli");
    let cases: [(&[&str], &str); 9] = [
        // Not prime, not NTT-friendly (with the command that lists primes
        // that fit), duplicated, not a DGT prime.
        (&["ntt", "a.npy", "--q", "1000001", "--cpu", "--out", "o.npy"], "not prime"),
        (&["ntt", "a.npy", "--q", "2305843009213693951", "--cpu", "--out", "o.npy"], "not NTT-friendly"),
        (&["ntt", "a.npy", "--q", "2305843009213693951", "--cpu", "--out", "o.npy"], "`polymul params --n "),
        (&["ntt", "a2.npy", "--q", &format!("{q},{q}"), "--cpu", "--out", "o.npy"], "appears twice"),
        (
            &["mul", "a.npy", "b.npy", "--dgt", "--q", &q.to_string(), "--cpu", "--out", "o.npy"],
            "polymul params --dgt",
        ),
        // Widths: 62-bit primes on 32-bit words, an unsupported width.
        (&["ntt", "a.npy", "--bits", "62", "--word", "32", "--cpu", "--out", "o.npy"], "--word 64"),
        (&["ntt", "a.npy", "--bits", "63", "--cpu", "--out", "o.npy"], "63 bits"),
        (
            &["ntt", "a.npy", "--q", "4611686018427365377", "--word", "32", "--cpu", "--out", "o.npy"],
            "--word 64",
        ),
        (&["ntt", "a.npy", "--towers", "0", "--bits", "30", "--cpu", "--out", "o.npy"], "at least 1"),
    ];
    for (args, needle) in cases {
        let out = polymul(&dir, args);
        assert_fails_keeping(&dir, &out, 2, needle, &[]);
    }
    // A u64 value that does not fit --word 32.
    save(&dir, "wide.npy", &[16], vec![1u64 << 40; 16]);
    let out = polymul(&dir, &["ntt", "wide.npy", "--bits", "30", "--word", "32", "--cpu", "--out", "o.npy"]);
    assert_fails_keeping(&dir, &out, 2, "does not fit a 32-bit word", &["wide.npy"]);
}

/// Without a GPU the data commands run on the CPU backend, say so once on
/// stderr, and write what `--cpu` writes.
#[test]
fn no_gpu_falls_back_to_the_cpu() {
    if polymul::Gpu::new().is_ok() {
        eprintln!("a GPU is present: the CPU fallback cannot be checked here");
        return;
    }
    let (dir, _) = error_dir("no-gpu");
    for args in [
        &["ntt", "a.npy", "--bits", "30", "--out", "o.npy"][..],
        &["intt", "a2.npy", "--towers", "2", "--bits", "40", "--out", "o.npy"],
        &["mul", "a.npy", "b.npy", "--bits", "30", "--out", "o.npy"],
        &["mul", "a.npy", "b.npy", "--dgt", "--bits", "30", "--out", "o.npy"],
    ] {
        let out = polymul(&dir, args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains("no CUDA GPU") && stderr.contains("running on the CPU backend"), "{stderr}");
        let fallback = std::fs::read(dir.join("o.npy")).unwrap();
        let cpu: Vec<&str> = args.iter().copied().chain(["--cpu"]).collect();
        let out = polymul(&dir, &cpu);
        assert!(out.status.success() && out.stderr.is_empty(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(std::fs::read(dir.join("o.npy")).unwrap(), fallback, "{args:?}");
    }
}

#[test]
fn failed_runs_leave_an_existing_output_alone_and_unwritable_outputs_fail() {
    let (dir, q) = error_dir("outputs");
    std::fs::write(dir.join("o.npy"), b"previous").unwrap();
    let mut big = random(4, 16, q);
    big[0] = q + 1;
    save(&dir, "big.npy", &[16], big);
    let out = polymul(&dir, &["ntt", "big.npy", "--bits", "30", "--cpu", "--out", "o.npy"]);
    assert_fails_keeping(&dir, &out, 2, "not reduced", &["o.npy", "big.npy"]);
    assert_eq!(std::fs::read(dir.join("o.npy")).unwrap(), b"previous");
    // Writing into a folder that does not exist is a failure at run time.
    let out = polymul(&dir, &["ntt", "a.npy", "--bits", "30", "--cpu", "--out", "missing/o.npy"]);
    assert_fails_keeping(&dir, &out, 1, "missing/o.npy", &["o.npy", "big.npy"]);
    // The output may replace an input.
    ok(&polymul(&dir, &["ntt", "a.npy", "--bits", "30", "--cpu", "--out", "a.npy"]));
    ok(&polymul(&dir, &["intt", "a.npy", "--bits", "30", "--cpu", "--out", "a.npy"]));
    assert_npy(&dir, "a.npy", &[16], random(1, 16, q));
}

#[test]
fn usage_errors_and_help() {
    let (dir, _) = error_dir("usage");
    // clap's own usage errors: exit code 2, nothing written.
    for args in [
        &["ntt", "a.npy", "--bits", "30", "--cpu"][..],
        &["ntt", "a.npy", "--cpu", "--out", "o.npy"],
        &["ntt", "a.npy", "--q", "17", "--bits", "30", "--out", "o.npy"],
        &["ntt", "a.npy", "--towers", "2", "--q", "17", "--out", "o.npy"],
        &["mul", "a.npy", "--bits", "30", "--out", "o.npy"],
        &["ntt", "a.npy", "--bits", "30", "--word", "16", "--out", "o.npy"],
        &["bench", "--only", "ntt,bogus"],
        &["frobnicate"],
    ] {
        let out = polymul(&dir, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
    }
    let help = ok(&polymul(&dir, &["--help"]));
    for cmd in ["params", "ntt", "intt", "mul", "bench"] {
        assert!(help.contains(cmd), "{help}");
    }
    for (cmd, flags) in [
        ("params", &["--n", "--bits", "--count", "--dgt", "--json"][..]),
        ("ntt", &["--q", "--bits", "--towers", "--word", "--cpu", "--out", "tower-major"]),
        ("intt", &["--q", "--bits", "--towers", "--word", "--cpu", "--out", "tower-major"]),
        ("mul", &["--dgt", "--q", "--bits", "--towers", "--word", "--cpu", "--out", "tower-major"]),
        ("bench", &["--quick", "--cpu", "--out", "--only"]),
    ] {
        let help = ok(&polymul(&dir, &[cmd, "--help"]));
        for f in flags {
            assert!(help.contains(f), "{cmd} --help lacks {f}:\n{help}");
        }
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), INPUTS.len());
}

#[test]
fn bench_runs_the_cpu_suite() {
    let dir = fresh_dir("bench");
    let stdout = ok(&polymul(&dir, &["bench", "--cpu", "--quick", "--out", "results"]));
    assert!(stdout.contains("CPU reference"), "{stdout}");
    assert!(stdout.contains("CPU backend (issue 19) against concrete-ntt"), "{stdout}");
    assert!(stdout.contains("| u32 | 30 | 2^16 | polymul | concrete-ntt on ψ |"), "{stdout}");
    assert!(stdout.contains("| u64 | 62 | 2^17 | polymul |"), "{stdout}");
    let md = std::fs::read_to_string(dir.join("results/cpu.md")).unwrap();
    assert!(md.contains("polymul bench --cpu --quick --out results"), "{md}");
}

/// `tune` needs a GPU: on a machine without one it is a one-line runtime
/// error and writes no wisdom file.
#[test]
fn tune_without_a_gpu_is_a_one_line_error() {
    if polymul::Gpu::new().is_ok() {
        return;
    }
    let dir = fresh_dir("tune");
    let out = polymul(&dir, &["tune", "--quick", "--out", "wisdom.json"]);
    assert_fails(&dir, &out, 1, "GPU", &[]);
}

/// `mul --modulus-bits` on uint64 limb arrays, (N, L) and (batch, N, L), on
/// the CPU: equals the big-integer schoolbook product modulo Q; a limb
/// count that does not match Q and a coefficient ≥ Q are usage errors.
#[test]
fn mul_on_big_integer_limbs() {
    let dir = fresh_dir("mul_limbs");
    let n = 16;
    for (word, bits, log_q, batch) in [("64", 62u32, 200u64, 1usize), ("32", 30, 130, 2), ("64", 62, 1240, 2)]
    {
        let basis = match word {
            "64" => RnsBasis::<u64>::with_modulus_bits(n, bits, log_q).unwrap().primes(),
            _ => RnsBasis::<u32>::with_modulus_bits(n, bits, log_q).unwrap().primes(),
        };
        // The limbs do not depend on the word: build them with u64 towers of the same primes.
        let basis = RnsBasis::<u64>::from_primes(n, &basis).unwrap();
        let l = basis.limbs();
        let mut rng = SplitMix64::new(log_q);
        let mut limbs = || {
            let res: Vec<u64> = basis.towers().iter().flat_map(|p| rng.coeffs(n * batch, p.q())).collect();
            basis.reconstruct(&res).unwrap()
        };
        let (mut la, lb) = (limbs(), limbs());
        // The top coefficient is Q − 1.
        let top = basis.to_limbs(&vec![basis.modulus() - 1u32; n]).unwrap();
        la[..l].copy_from_slice(&top[..l]);
        let shape: Vec<usize> = if batch == 1 { vec![n, l] } else { vec![batch, n, l] };
        for (name, data) in [("a.npy", &la), ("b.npy", &lb)] {
            NpyArray { shape: shape.clone(), data: data.clone() }.write_file_nd(dir.join(name), 3).unwrap();
        }
        let lq = log_q.to_string();
        let bs = bits.to_string();
        ok(&polymul(
            &dir,
            &[
                "mul",
                "a.npy",
                "b.npy",
                "--modulus-bits",
                &lq,
                "--bits",
                &bs,
                "--word",
                word,
                "--cpu",
                "--out",
                "c.npy",
            ],
        ));
        let got = NpyArray::<u64>::read_file_nd(dir.join("c.npy"), 3).unwrap();
        assert_eq!(got.shape, shape);
        let (a, b) = (basis.from_limbs(&la).unwrap(), basis.from_limbs(&lb).unwrap());
        let mut want = Vec::new();
        for p in 0..batch {
            let s = p * n..(p + 1) * n;
            want.extend(cpu::negacyclic_naive_big(&a[s.clone()], &b[s], basis.modulus()).unwrap());
        }
        assert_eq!(got.data, basis.to_limbs(&want).unwrap(), "word {word}, log2 Q {log_q}");
    }
    // L does not match Q: the files (1240 bits) have 20 limbs, 200 bits need 4.
    let out = polymul(&dir, &["mul", "a.npy", "b.npy", "--modulus-bits", "200", "--cpu", "--out", "d.npy"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("limb(s) per coefficient"));
    // A coefficient not below Q.
    let basis = RnsBasis::<u64>::with_modulus_bits(n, 62, 200).unwrap();
    let mut bad = vec![0u64; n * basis.limbs()];
    bad[3 * basis.limbs() + basis.limbs() - 1] = u64::MAX;
    NpyArray { shape: vec![n, basis.limbs()], data: bad }.write_file_nd(dir.join("bad.npy"), 3).unwrap();
    let out =
        polymul(&dir, &["mul", "bad.npy", "bad.npy", "--modulus-bits", "200", "--cpu", "--out", "e.npy"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.npy[3]") && err.contains("not below Q"), "{err}");
}
