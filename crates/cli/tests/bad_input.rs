//! Bad input to every command of the `polymul` binary, end to end (`--cpu`
//! where a GPU would be needed): bad N, bad moduli, malformed, truncated,
//! wrong-dtype and huge-header `.npy` files, unreduced coefficients, shape
//! mismatches, missing inputs, unwritable outputs. Every case must exit
//! non-zero with one `polymul: ...` line on stderr, no panic, nothing on
//! stdout, and leave the folder exactly as it was (no output file, not even
//! a partial or temporary one). `docs/bad-input.md` lists the cases.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use polymul::expert::SplitMix64;
use polymul_npy::{NpyArray, NpyWord};

const BIN: &str = env!("CARGO_BIN_EXE_polymul");
const N: usize = 16;

/// A fresh, empty folder for one test.
fn fresh_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("polymul-cli-bad-input").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs the binary in `dir` (no wisdom, no bench child, no GPU lookups
/// beyond what the command does).
fn polymul(dir: &Path, args: &[&str]) -> Output {
    polymul_with_wisdom(dir, args, &no_wisdom())
}

/// A wisdom path that does not exist (the planner's rule): the tests never
/// read the user's own wisdom file.
fn no_wisdom() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("polymul-cli-bad-input-no-wisdom.json")
}

/// Runs the binary in `dir` with `POLYMUL_WISDOM=wisdom`.
fn polymul_with_wisdom(dir: &Path, args: &[&str], wisdom: &Path) -> Output {
    Command::new(BIN)
        .args(args)
        .current_dir(dir)
        .env_remove("POLYMUL_BENCH_CHILD")
        .env("POLYMUL_WISDOM", wisdom)
        .output()
        .unwrap()
}

/// Every entry of `dir`, recursively, as relative paths, sorted.
fn tree(dir: &Path) -> Vec<String> {
    fn walk(root: &Path, dir: &Path, out: &mut Vec<String>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let path = e.unwrap().path();
            out.push(path.strip_prefix(root).unwrap().to_string_lossy().into_owned());
            if path.is_dir() {
                walk(root, &path, out);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Runs `args` in `dir` and checks the failure: exit `code`, one line
/// `polymul: ...` on stderr containing `needle`, no panic, empty stdout, and
/// the folder's contents (names and bytes) unchanged.
fn fails(dir: &Path, args: &[&str], code: i32, needle: &str) {
    fails_with_wisdom(dir, args, &no_wisdom(), code, needle)
}

/// [`fails`] with `POLYMUL_WISDOM=wisdom`.
fn fails_with_wisdom(dir: &Path, args: &[&str], wisdom: &Path, code: i32, needle: &str) {
    let before: Vec<(String, Option<Vec<u8>>)> =
        tree(dir).into_iter().map(|p| (p.clone(), std::fs::read(dir.join(&p)).ok())).collect();
    let out = polymul_with_wisdom(dir, args, wisdom);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let what = format!("polymul {}", args.join(" "));
    assert_eq!(out.status.code(), Some(code), "{what}: stderr {stderr:?}");
    assert_eq!(stderr.lines().count(), 1, "{what}: not one line: {stderr:?}");
    assert!(stderr.starts_with("polymul: ") && stderr.ends_with('\n'), "{what}: {stderr:?}");
    assert!(!stderr.contains("panicked") && !stderr.contains("RUST_BACKTRACE"), "{what}: {stderr:?}");
    assert!(stderr.contains(needle), "{what}: {stderr:?} does not mention {needle:?}");
    assert!(out.stdout.is_empty(), "{what}: stdout {:?}", String::from_utf8_lossy(&out.stdout));
    let after: Vec<(String, Option<Vec<u8>>)> =
        tree(dir).into_iter().map(|p| (p.clone(), std::fs::read(dir.join(&p)).ok())).collect();
    let names = |v: &[(String, Option<Vec<u8>>)]| v.iter().map(|(p, _)| p.clone()).collect::<Vec<_>>();
    assert_eq!(names(&after), names(&before), "{what}: files left behind or removed");
    assert!(after == before, "{what}: a file changed");
}

/// A usage error clap reports itself (its message spans several lines):
/// exit 2, no panic, nothing written.
fn clap_refuses(dir: &Path, args: &[&str]) {
    let before = tree(dir);
    let out = polymul(dir, args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
    assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
    assert!(stderr.contains("error:"), "{args:?}: {stderr}");
    assert_eq!(tree(dir), before, "{args:?}: files left behind");
}

fn save<W: NpyWord>(dir: &Path, name: &str, shape: &[usize], data: Vec<W>) {
    NpyArray { shape: shape.to_vec(), data }.write_file(dir.join(name)).unwrap();
}

/// A `.npy` file from its parts: version `major`.0, `header` padded as NumPy
/// does, then `data`.
fn npy_raw(major: u8, header: &str, data: &[u8]) -> Vec<u8> {
    let len_bytes = if major == 1 { 2 } else { 4 };
    let mut h = header.to_string();
    while !(8 + len_bytes + h.len() + 1).is_multiple_of(64) {
        h.push(' ');
    }
    h.push('\n');
    let mut out = b"\x93NUMPY".to_vec();
    out.extend_from_slice(&[major, 0]);
    if major == 1 {
        out.extend_from_slice(&(h.len() as u16).to_le_bytes());
    } else {
        out.extend_from_slice(&(h.len() as u32).to_le_bytes());
    }
    out.extend_from_slice(h.as_bytes());
    out.extend_from_slice(data);
    out
}

fn dict(descr: &str, fortran: &str, shape: &str) -> String {
    format!("{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape}, }}")
}

fn le64(values: &[u64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_le_bytes()).collect()
}

/// The 30-bit NTT prime the `--bits 30` runs use for N = 16.
fn q30() -> u64 {
    polymul::params::ntt_primes(30, N, 1).unwrap()[0]
}

/// The second one (tower 1 of `--towers 2 --bits 30`).
fn q30_second() -> u64 {
    polymul::params::ntt_primes(30, N, 2).unwrap()[1]
}

fn dgt30() -> u64 {
    polymul::dgt::dgt_primes(30, N, 1).unwrap()[0]
}

fn random(seed: u64, len: usize, q: u64) -> Vec<u64> {
    SplitMix64::new(seed).coeffs(len, q)
}

/// A folder with good inputs: `a.npy`, `b.npy` (N = 16, reduced modulo
/// every 30-bit NTT and DGT prime used here) and `a2.npy` (shape (2, 16)).
fn inputs(name: &str) -> PathBuf {
    let dir = fresh_dir(name);
    let small = q30().min(q30_second()).min(dgt30());
    save(&dir, "a.npy", &[N], random(1, N, small));
    save(&dir, "b.npy", &[N], random(2, N, small));
    save(&dir, "a2.npy", &[2, N], random(3, 2 * N, small));
    dir
}

/// The argument lists of every data command on `file` (as the first and,
/// for `mul`, also the second operand) with a valid modulus, `--cpu` and
/// `--out o.npy`.
fn data_commands(file: &str) -> Vec<Vec<String>> {
    let common = ["--bits", "30", "--cpu", "--out", "o.npy"];
    let v = |head: &[&str]| head.iter().chain(&common).map(|s| s.to_string()).collect::<Vec<_>>();
    vec![
        v(&["ntt", file]),
        v(&["intt", file]),
        v(&["mul", file, "b.npy"]),
        v(&["mul", "a.npy", file]),
        v(&["mul", file, "b.npy", "--dgt"]),
    ]
}

/// The data commands on `file` alone (`mul FILE FILE`): what gets past
/// the shape comparison of `mul` to the checks of N and of the batch.
fn same_shape_commands(file: &str) -> Vec<Vec<String>> {
    data_commands(file)
        .into_iter()
        .filter(|a| a[0] != "mul")
        .chain([
            ["mul", file, file, "--bits", "30", "--cpu", "--out", "o.npy"].map(String::from).to_vec(),
            ["mul", file, file, "--dgt", "--bits", "30", "--cpu", "--out", "o.npy"]
                .map(String::from)
                .to_vec(),
        ])
        .collect()
}

fn for_every_data_command(dir: &Path, file: &str, code: i32, needle: &str) {
    for args in data_commands(file) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        fails(dir, &args, code, needle);
    }
}

// ---------------------------------------------------------------------------
// params
// ---------------------------------------------------------------------------

#[test]
fn params_bad_n() {
    let dir = fresh_dir("params-n");
    for n in ["0", "1", "3", "12", "33554432"] {
        fails(&dir, &["params", "--n", n, "--bits", "30"], 2, &format!("N = {n} is not supported"));
    }
    for n in ["0", "2", "12", "4194304"] {
        fails(&dir, &["params", "--dgt", "--n", n, "--bits", "30"], 2, &format!("N = {n} is not supported"));
    }
    clap_refuses(&dir, &["params", "--n", "-4", "--bits", "30"]);
    clap_refuses(&dir, &["params", "--n", "sixteen", "--bits", "30"]);
}

#[test]
fn params_bad_bits() {
    let dir = fresh_dir("params-bits");
    for bits in ["0", "19", "63", "64"] {
        fails(
            &dir,
            &["params", "--n", "16", "--bits", bits],
            2,
            &format!("primes of {bits} bits are not supported"),
        );
        fails(&dir, &["params", "--dgt", "--n", "16", "--bits", bits], 2, "are not supported");
    }
}

/// No prime of the form exists: for the DGT with N above 2^bits this used
/// to panic (an integer underflow).
#[test]
fn params_no_such_primes() {
    let dir = fresh_dir("params-none");
    fails(&dir, &["params", "--n", "1048576", "--bits", "20"], 2, "only 0 prime(s) of 20 bits");
    fails(&dir, &["params", "--dgt", "--n", "2097152", "--bits", "20"], 2, "only 0 prime(s) of 20 bits");
    fails(&dir, &["params", "--n", "4096", "--bits", "20", "--count", "100000"], 2, "use more bits");
}

#[test]
fn params_bad_count() {
    let dir = fresh_dir("params-count");
    clap_refuses(&dir, &["params", "--n", "16", "--bits", "30", "--count", "0"]);
    clap_refuses(&dir, &["params", "--n", "16", "--bits", "30", "--count", "100001"]);
}

#[test]
fn params_json_unwritable() {
    let dir = fresh_dir("params-json");
    std::fs::write(dir.join("file"), "x").unwrap();
    std::fs::create_dir(dir.join("folder")).unwrap();
    let args = |out: &'static str| ["params", "--n", "16", "--bits", "30", "--json", out];
    fails(&dir, &args("folder"), 1, "cannot write folder");
    fails(&dir, &args("."), 1, "cannot write .");
    fails(&dir, &args("file/p.json"), 1, "cannot write file/p.json");
    fails(&dir, &args("missing/p.json"), 1, "cannot write missing/p.json");
}

// ---------------------------------------------------------------------------
// ntt, intt, mul: N and the modulus
// ---------------------------------------------------------------------------

#[test]
fn data_commands_bad_n() {
    let dir = inputs("data-n");
    save(&dir, "n12.npy", &[12], vec![1u64; 12]);
    save(&dir, "n1.npy", &[1], vec![1u64]);
    save(&dir, "n0.npy", &[0], Vec::<u64>::new());
    save(&dir, "n2x12.npy", &[2, 12], vec![1u64; 24]);
    for (file, n) in [("n12.npy", 12), ("n1.npy", 1), ("n0.npy", 0), ("n2x12.npy", 12)] {
        for args in same_shape_commands(file) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            fails(&dir, &args, 2, &format!("N = {n} is not supported"));
        }
    }
}

/// N = 2 and N = 2^22: fine for the NTT (2^22 is below 2^24), outside the
/// DGT's 4 ..= 2^21.
#[test]
fn mul_dgt_n_outside_the_dgt_range() {
    let dir = inputs("dgt-n");
    save(&dir, "n2.npy", &[2], vec![1u32; 2]);
    save(&dir, "big.npy", &[1 << 22], vec![1u32; 1 << 22]);
    let mul = |f: &'static str| ["mul", f, f, "--dgt", "--bits", "30", "--cpu", "--out", "o.npy"];
    fails(&dir, &mul("n2.npy"), 2, "N = 2 is not supported: N must be a power of two from 4 to 2097152");
    fails(&dir, &mul("big.npy"), 2, "N = 4194304 is not supported");
}

#[test]
fn data_commands_bad_q() {
    let dir = inputs("data-q");
    let q62 = polymul::params::ntt_primes(62, N, 1).unwrap()[0].to_string();
    let cases: [(&str, &str); 8] = [
        ("0", "q = 0 is not a usable modulus"),
        ("1", "q = 1 is not a usable modulus"),
        ("4", "q = 4 is not a usable modulus"),
        ("1000001", "q = 1000001 is not prime"),
        ("2147483647", "not NTT-friendly for N = 16"),
        ("18446744073709551615", "has 64 bits"),
        (&q62, "pass --word 64"),
        ("99999999999999999999", "error:"),
    ];
    for cmd in [&["ntt", "a.npy"][..], &["intt", "a.npy"], &["mul", "a.npy", "b.npy"]] {
        for (q, needle) in cases {
            let mut args = cmd.to_vec();
            args.extend(["--q", q, "--cpu", "--out", "o.npy"]);
            if q == q62 {
                args.extend(["--word", "32"]);
            }
            if needle == "error:" {
                clap_refuses(&dir, &args);
            } else {
                fails(&dir, &args, 2, needle);
            }
        }
    }
}

#[test]
fn mul_dgt_bad_prime() {
    let dir = inputs("dgt-q");
    let mul = |q: String| {
        let args: Vec<String> = ["mul", "a.npy", "b.npy", "--dgt", "--q", &q, "--cpu", "--out", "o.npy"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args
    };
    let run = |q: String, needle: &str| {
        let args = mul(q);
        fails(&dir, &args.iter().map(String::as_str).collect::<Vec<_>>(), 2, needle);
    };
    // An NTT prime is not of the DGT's form; nor is a prime ≡ 1 (mod 4).
    run(q30().to_string(), "does not suit a DGT of length N = 16");
    run("13".into(), "p = 13 does not suit a DGT");
    run("1000001".into(), "is not prime");
    run("0".into(), "is not prime");
    let wide = polymul::dgt::dgt_primes(31, N, 1).unwrap()[0];
    let args = mul(wide.to_string());
    let mut args: Vec<&str> = args.iter().map(String::as_str).collect();
    args.extend(["--word", "32"]);
    fails(&dir, &args, 2, "pass --word 64");
}

#[test]
fn data_commands_bad_rns_bases() {
    let dir = inputs("rns-basis");
    let (q0, q1) = (q30().to_string(), q30_second().to_string());
    let dup = format!("{q0},{q1},{q0}");
    for cmd in [&["ntt", "a2.npy"][..], &["intt", "a2.npy"], &["mul", "a2.npy", "a2.npy"]] {
        let with = |extra: &[&str]| -> Vec<String> {
            cmd.iter().chain(extra).chain(&["--cpu", "--out", "o.npy"]).map(|s| s.to_string()).collect()
        };
        let run = |extra: &[&str], needle: &str| {
            let args = with(extra);
            fails(&dir, &args.iter().map(String::as_str).collect::<Vec<_>>(), 2, needle);
        };
        run(&["--q", &dup], &format!("the prime {q0} appears twice"));
        run(&["--towers", "0", "--bits", "30"], "--towers must be at least 1");
        // Used to ask the allocator for a trillion primes (an abort).
        run(&["--towers", "1000000000000", "--bits", "30"], "1000000000000 primes asked for");
        // Three towers of a two-row array.
        run(
            &["--towers", "3", "--bits", "30"],
            "2 rows are not a whole number of polynomials for 3 RNS towers",
        );
        run(&["--q", &format!("{q0},{q0}")], "appears twice");
    }
    let dgt = |extra: &[&str]| -> Vec<String> {
        ["mul", "a2.npy", "a2.npy", "--dgt"]
            .iter()
            .chain(extra)
            .chain(&["--cpu", "--out", "o.npy"])
            .map(|s| s.to_string())
            .collect()
    };
    let args = dgt(&["--towers", "1000000000000", "--bits", "30"]);
    fails(&dir, &args.iter().map(String::as_str).collect::<Vec<_>>(), 2, "primes asked for");
    let p = dgt30().to_string();
    let args = dgt(&["--q", &format!("{p},{p}")]);
    fails(&dir, &args.iter().map(String::as_str).collect::<Vec<_>>(), 2, "appears twice");
    // More primes than one basis takes (refused before the duplicate
    // check), in `--q` arguments of 10,000 primes (an argument is at most
    // 128 KiB on Linux).
    let chunk = vec![q0.as_str(); 10_000].join(",");
    let mut args = vec!["ntt", "a2.npy", "--q", "17"];
    for _ in 0..polymul::params::MAX_PRIME_COUNT / 10_000 {
        args.extend(["--q", &chunk]);
    }
    args.extend(["--cpu", "--out", "o.npy"]);
    fails(&dir, &args, 2, "100001 primes asked for");
}

// ---------------------------------------------------------------------------
// ntt, intt, mul: the data
// ---------------------------------------------------------------------------

#[test]
fn data_commands_coefficient_not_below_q() {
    let dir = inputs("data-coefficients");
    let q = q30();
    let mut big = random(4, N, q);
    big[5] = q;
    save(&dir, "big.npy", &[N], big);
    for args in data_commands("big.npy").into_iter().take(4) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        fails(&dir, &args, 2, &format!("big.npy[5] = {q} is not reduced modulo q = {q}"));
    }
    let p = dgt30();
    save(&dir, "dbig.npy", &[2, N], vec![p; 2 * N]);
    fails(
        &dir,
        &["mul", "a2.npy", "dbig.npy", "--dgt", "--bits", "30", "--cpu", "--out", "o.npy"],
        2,
        "dbig.npy[0, 0]",
    );
    // In tower 1 of an RNS array: the second prime, located by row.
    let q1 = q30_second();
    let mut t = random(5, 2 * N, q1);
    t[N + 2] = q1;
    save(&dir, "tower.npy", &[2, N], t);
    for cmd in ["ntt", "intt"] {
        fails(
            &dir,
            &[cmd, "tower.npy", "--towers", "2", "--bits", "30", "--cpu", "--out", "o.npy"],
            2,
            "tower.npy[1, 2]",
        );
    }
    fails(
        &dir,
        &["mul", "a2.npy", "tower.npy", "--towers", "2", "--bits", "30", "--cpu", "--out", "o.npy"],
        2,
        "(row 1 is in RNS tower 1 of 2)",
    );
    // A u64 value that does not fit --word 32.
    save(&dir, "wide.npy", &[N], vec![1u64 << 40; N]);
    fails(
        &dir,
        &["ntt", "wide.npy", "--bits", "30", "--word", "32", "--cpu", "--out", "o.npy"],
        2,
        "does not fit a 32-bit word",
    );
}

#[test]
fn mul_shape_mismatch() {
    let dir = inputs("shapes");
    save(&dir, "n32.npy", &[32], vec![1u64; 32]);
    for extra in [&[][..], &["--dgt"]] {
        for (a, b, needle) in [
            ("a.npy", "a2.npy", "a.npy has shape (16,) but a2.npy has shape (2, 16)"),
            ("a2.npy", "a.npy", "a2.npy has shape (2, 16) but a.npy has shape (16,)"),
            ("a.npy", "n32.npy", "has shape (32,)"),
        ] {
            let mut args = vec!["mul", a, b, "--bits", "30", "--cpu", "--out", "o.npy"];
            args.extend(extra);
            fails(&dir, &args, 2, needle);
        }
    }
}

#[test]
fn data_commands_empty_batch() {
    let dir = inputs("empty");
    save(&dir, "empty.npy", &[0, N], Vec::<u64>::new());
    for args in same_shape_commands("empty.npy") {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        fails(&dir, &args, 2, "it holds no polynomial");
    }
    fails(
        &dir,
        &["ntt", "empty.npy", "--towers", "2", "--bits", "30", "--cpu", "--out", "o.npy"],
        2,
        "no polynomial",
    );
}

#[test]
fn data_commands_missing_or_unreadable_input() {
    let dir = inputs("missing");
    std::fs::create_dir(dir.join("folder.npy")).unwrap();
    for_every_data_command(&dir, "nope.npy", 2, "I/O error while reading nope.npy");
    for_every_data_command(&dir, "folder.npy", 2, "I/O error while reading folder.npy");
    for_every_data_command(&dir, "a.npy/x.npy", 2, "I/O error while reading a.npy/x.npy");
}

/// Each malformed file, as every operand of every data command.
#[test]
fn data_commands_malformed_npy() {
    let dir = inputs("malformed");
    let good = std::fs::read(dir.join("a.npy")).unwrap();
    let data = le64(&[1; N]);
    let files: Vec<(&str, Vec<u8>, &str)> = vec![
        ("empty.npy", vec![], "is truncated"),
        ("magic.npy", b"\x93NUMPX\x01\x00".to_vec(), "is not a .npy file"),
        ("text.npy", b"1 2 3 4\n".to_vec(), "is not a .npy file"),
        (
            "version.npy",
            npy_raw(1, &dict("<u8", "False", "(16,)"), &data)
                .iter()
                .enumerate()
                .map(|(i, &b)| if i == 6 { 4 } else { b })
                .collect(),
            "format version 4.0",
        ),
        ("cut-preamble.npy", good[..9].to_vec(), "is truncated"),
        ("cut-header.npy", good[..40].to_vec(), "its header ends at byte"),
        ("cut-data.npy", good[..good.len() - 3].to_vec(), "the file is truncated or has trailing bytes"),
        ("trailing.npy", [&good[..], &[0u8; 8]].concat(), "has trailing bytes"),
        ("dict.npy", npy_raw(1, "{'descr': '<u8', 'fortran_order': False}", &data), "missing key 'shape'"),
        (
            "syntax.npy",
            npy_raw(1, "{'descr': '<u8', 'fortran_order': False, 'shape': (16,", &data),
            "not a valid .npy header",
        ),
        ("float.npy", npy_raw(1, &dict("<f8", "False", "(16,)"), &data), "holds dtype '<f8'"),
        ("int16.npy", npy_raw(1, &dict("<i2", "False", "(16,)"), &data[..32]), "holds dtype '<i2'"),
        ("object.npy", npy_raw(1, &dict("|O", "False", "(16,)"), &data), "holds dtype '|O'"),
        (
            "struct.npy",
            npy_raw(1, "{'descr': [('a', '<u8')], 'fortran_order': False, 'shape': (16,), }", &data),
            "holds dtype",
        ),
        ("fortran.npy", npy_raw(1, &dict("<u8", "True", "(2, 8)"), &data), "Fortran (column-major) order"),
        ("cube.npy", npy_raw(1, &dict("<u8", "False", "(2, 2, 4)"), &data), "has shape (2, 2, 4)"),
        ("scalar.npy", npy_raw(1, &dict("<u8", "False", "()"), &data[..8]), "has shape ()"),
        (
            "negative.npy",
            npy_raw(1, &dict("<i8", "False", "(16,)"), &le64(&[u64::MAX; N])),
            "= -1 is negative",
        ),
        (
            "overflow.npy",
            npy_raw(1, &dict("<u8", "False", "(4611686018427387904, 4)"), &data),
            "larger than this machine can address",
        ),
        (
            "forged.npy",
            npy_raw(1, &dict("<u8", "False", "(1000000000000,)"), &data),
            "needs exactly 8000000000000",
        ),
    ];
    let mut huge = b"\x93NUMPY\x02\x00".to_vec();
    huge.extend_from_slice(&u32::MAX.to_le_bytes());
    huge.extend_from_slice(b"{'descr': '<u8'");
    let mut long = b"\x93NUMPY\x03\x00".to_vec();
    long.extend_from_slice(&(2u32 << 20).to_le_bytes());
    long.extend(std::iter::repeat_n(b' ', 64));
    let mut v1_long = b"\x93NUMPY\x01\x00\xff\xff".to_vec();
    v1_long.extend_from_slice(b"{'descr': '<u8', ");
    let more: Vec<(&str, Vec<u8>, &str)> = vec![
        ("huge-header.npy", huge, "declares a 4294967295-byte .npy header, more than the 1048576 bytes"),
        ("long-header.npy", long, "declares a 2097152-byte .npy header"),
        ("short-header.npy", v1_long, "its header ends at byte 65545"),
    ];
    for (name, bytes, _) in files.iter().chain(&more) {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    for (name, _, needle) in files.iter().chain(&more) {
        for args in data_commands(name) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            fails(&dir, &args, 2, needle);
        }
    }
}

// ---------------------------------------------------------------------------
// Outputs
// ---------------------------------------------------------------------------

#[test]
fn data_commands_unwritable_output() {
    let dir = inputs("outputs");
    std::fs::write(dir.join("file"), "x").unwrap();
    std::fs::create_dir(dir.join("folder")).unwrap();
    for out in ["missing/o.npy", "file/o.npy", "folder", ".", "a.npy/o.npy"] {
        for cmd in [
            &["ntt", "a.npy", "--bits", "30"][..],
            &["intt", "a2.npy", "--towers", "2", "--bits", "30"],
            &["mul", "a.npy", "b.npy", "--bits", "30"],
            &["mul", "a.npy", "b.npy", "--dgt", "--bits", "30"],
        ] {
            let mut args = cmd.to_vec();
            args.extend(["--cpu", "--out", out]);
            fails(&dir, &args, 1, "I/O error while");
        }
    }
    assert!(tree(&dir.join("folder")).is_empty());
}

/// A run that fails after reading (bad coefficients) leaves an existing
/// output file as it was (`fails` compares its bytes).
#[test]
fn failed_runs_keep_an_existing_output() {
    let dir = inputs("keep-output");
    std::fs::write(dir.join("o.npy"), b"previous").unwrap();
    save(&dir, "big.npy", &[N], vec![u64::MAX; N]);
    for_every_data_command(&dir, "big.npy", 2, "not reduced");
    for_every_data_command(&dir, "nope.npy", 2, "nope.npy");
}

/// Without a GPU (and without `--cpu`) the data commands run on the CPU:
/// exit 0, one note on stderr naming the CPU backend, and the output
/// `--cpu` gives (checked only on machines without a GPU).
#[test]
fn data_commands_without_a_gpu_run_on_the_cpu() {
    if polymul::Gpu::new().is_ok() {
        eprintln!("a GPU is present: the CPU fallback cannot be checked here");
        return;
    }
    let dir = inputs("no-gpu");
    for args in GPU_COMMANDS.iter().filter(|c| !c.contains(&"")) {
        falls_back(&dir, args, &no_wisdom());
    }
}

/// Runs `args` (which write `o.npy`) without `--cpu` and with it: the first
/// succeeds with one note on stderr about the CPU backend, and both write
/// the same file.
fn falls_back(dir: &Path, args: &[&str], wisdom: &Path) {
    let what = format!("polymul {}", args.join(" "));
    let out = polymul_with_wisdom(dir, args, wisdom);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{what}: {stderr:?}");
    assert_eq!(stderr.lines().count(), 1, "{what}: not one note: {stderr:?}");
    assert!(
        stderr.starts_with("polymul: note: no CUDA GPU") && stderr.contains("running on the CPU backend")
    );
    let fallback = std::fs::read(dir.join("o.npy")).unwrap();
    let cpu: Vec<&str> = args.iter().copied().chain(["--cpu"]).collect();
    let out = polymul_with_wisdom(dir, &cpu, wisdom);
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{what} --cpu: {:?}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(std::fs::read(dir.join("o.npy")).unwrap(), fallback, "{what}: --cpu wrote another result");
    std::fs::remove_file(dir.join("o.npy")).unwrap();
}

/// The GPU data commands (no `--cpu`) on the good inputs.
const GPU_COMMANDS: [&[&str]; 7] = [
    &["ntt", "a.npy", "--bits", "30", "--out", "o.npy"],
    &["intt", "a.npy", "--q", "", "--out", "o.npy"],
    &["ntt", "a2.npy", "--towers", "2", "--bits", "30", "--out", "o.npy"],
    &["intt", "a2.npy", "--towers", "2", "--bits", "30", "--out", "o.npy"],
    &["mul", "a.npy", "b.npy", "--bits", "30", "--out", "o.npy"],
    &["mul", "a2.npy", "a2.npy", "--towers", "2", "--bits", "30", "--out", "o.npy"],
    &["mul", "a.npy", "b.npy", "--dgt", "--bits", "30", "--out", "o.npy"],
];

/// [`GPU_COMMANDS`] with `--q` filled in (the 30-bit NTT prime), plus `extra`.
fn gpu_commands(extra: &[&str]) -> Vec<Vec<String>> {
    let q = q30().to_string();
    GPU_COMMANDS
        .iter()
        .map(|c| {
            c.iter()
                .map(|a| if a.is_empty() { q.clone() } else { a.to_string() })
                .chain(extra.iter().map(|a| a.to_string()))
                .collect()
        })
        .collect()
}

/// The GPU data commands read the wisdom file `polymul tune` writes: one
/// that exists but is not wisdom (garbage, another version, a folder) is a
/// bad input (exit 2, naming the file and `--no-wisdom`), reported after
/// the inputs are checked and before a GPU is looked for — so the same on
/// every machine. The CPU path reads no wisdom.
#[test]
fn data_commands_with_a_broken_wisdom_file() {
    let dir = inputs("broken-wisdom");
    std::fs::write(dir.join("garbage.json"), b"{\"version\": 1, \"entries\": [").unwrap();
    std::fs::write(dir.join("old.json"), b"{\"version\": 0, \"entries\": []}").unwrap();
    std::fs::create_dir(dir.join("folder")).unwrap();
    for wisdom in ["garbage.json", "old.json", "folder"] {
        let path = dir.join(wisdom);
        for args in gpu_commands(&[]) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            fails_with_wisdom(&dir, &args, &path, 2, "cannot be used");
            fails_with_wisdom(&dir, &args, &path, 2, "--no-wisdom");
            fails_with_wisdom(&dir, &args, &path, 2, wisdom);
        }
        // Bad input is reported first.
        save(&dir, "big.npy", &[N], vec![u64::MAX; N]);
        fails_with_wisdom(
            &dir,
            &["mul", "big.npy", "b.npy", "--bits", "30", "--out", "o.npy"],
            &path,
            2,
            "not reduced",
        );
        std::fs::remove_file(dir.join("big.npy")).unwrap();
        // The CPU path plans nothing and reads no wisdom.
        let out = polymul_with_wisdom(
            &dir,
            &["mul", "a.npy", "b.npy", "--bits", "30", "--cpu", "--out", "c.npy"],
            &path,
        );
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        std::fs::remove_file(dir.join("c.npy")).unwrap();
    }
    // --no-wisdom does not read it: without a GPU the run goes on, on the CPU.
    if polymul::Gpu::new().is_err() {
        for args in gpu_commands(&["--no-wisdom"]) {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            falls_back(&dir, &args, &dir.join("garbage.json"));
        }
    }
}

/// A valid wisdom file (here for another device) is read without error:
/// without a GPU the run goes on, on the CPU.
#[test]
fn data_commands_with_a_valid_wisdom_file() {
    use polymul::planner::{Choice, Wisdom, WisdomEntry, WisdomKey};
    if polymul::Gpu::new().is_ok() {
        eprintln!("a GPU is present: the CPU fallback cannot be checked here");
        return;
    }
    let dir = inputs("valid-wisdom");
    let mut w = Wisdom::new();
    let key = WisdomKey { device: "no such GPU".into(), log_n: 4, word_bits: 64, towers: 1, batch_bucket: 0 };
    let winner = Choice::Ntt { kernel: polymul::expert::NttKernel::TwoD, radix: Some(4) };
    w.insert(WisdomEntry { key, winner, us_per_poly: 1.0, candidates: 2 });
    w.save(&dir.join("wisdom.json")).unwrap();
    for args in gpu_commands(&[]) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        falls_back(&dir, &args, &dir.join("wisdom.json"));
    }
}

#[test]
fn data_commands_bad_flags() {
    let dir = inputs("flags");
    for args in [
        &["ntt", "a.npy", "--bits", "30", "--word", "16", "--cpu", "--out", "o.npy"][..],
        &["ntt", "a.npy", "--bits", "30", "--cpu"],
        &["ntt", "a.npy", "--cpu", "--out", "o.npy"],
        &["ntt", "a.npy", "--q", "17", "--bits", "30", "--cpu", "--out", "o.npy"],
        &["ntt", "a.npy", "--towers", "2", "--q", "17", "--cpu", "--out", "o.npy"],
        &["ntt", "a.npy", "--bits", "-1", "--cpu", "--out", "o.npy"],
        &["ntt", "a.npy", "--towers", "-1", "--bits", "30", "--cpu", "--out", "o.npy"],
        &["mul", "a.npy", "--bits", "30", "--cpu", "--out", "o.npy"],
        &["intt", "--bits", "30", "--cpu", "--out", "o.npy"],
    ] {
        clap_refuses(&dir, args);
    }
}

// ---------------------------------------------------------------------------
// bench, tune
// ---------------------------------------------------------------------------

/// The results folder is checked before the suite runs: one line, at once,
/// nothing created.
#[test]
fn bench_unwritable_results_folder() {
    let dir = fresh_dir("bench-out");
    std::fs::write(dir.join("file"), "x").unwrap();
    for out in ["file", "file/results", "file/a/b"] {
        fails(&dir, &["bench", "--cpu", "--quick", "--out", out], 1, "is not a folder");
    }
    clap_refuses(&dir, &["bench", "--only", "ntt,bogus"]);
    clap_refuses(&dir, &["bench", "--quick", "--out"]);
}

/// The wisdom path is checked before the GPU is looked for (and before
/// minutes of tuning): one line, exit 1, nothing written. (`tune` only
/// writes wisdom; the data commands read it, see
/// `data_commands_with_a_broken_wisdom_file`.)
#[test]
fn tune_unwritable_wisdom_path() {
    let dir = fresh_dir("tune-out");
    std::fs::write(dir.join("file"), "x").unwrap();
    std::fs::create_dir(dir.join("folder")).unwrap();
    fails(&dir, &["tune", "--quick", "--out", "folder"], 1, "cannot write folder: it is a folder");
    fails(&dir, &["tune", "--quick", "--out", "."], 1, "it is a folder");
    fails(&dir, &["tune", "--quick", "--out", "file/w.json"], 1, "file is not a folder");
    fails(&dir, &["tune", "--quick", "--out", "file/sub/w.json"], 1, "file is not a folder");
}

#[test]
fn tune_without_a_gpu() {
    if polymul::Gpu::new().is_ok() {
        return;
    }
    let dir = fresh_dir("tune-no-gpu");
    fails(&dir, &["tune", "--quick", "--out", "w.json"], 1, "tuning measures a GPU");
    fails(&dir, &["tune", "--out", "sub/w.json"], 1, "no CUDA GPU available");
}
