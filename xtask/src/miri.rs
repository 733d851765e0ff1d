//! `cargo xtask miri`: the `polymul` crate's unit tests (`--lib`) under
//! Miri, which checks the unsafe code they reach for undefined behaviour
//! (aliasing, out-of-bounds and uninitialised reads, data races).
//!
//! Every unit test runs except those of [`SKIP`]: Miri cannot call the CUDA
//! driver (FFI), which one unit test reaches (the driver's error strings);
//! the others skipped are pure, safe arithmetic that takes minutes when
//! interpreted (all of them run natively in `cargo test`). New unit tests run under Miri unless they are added to
//! [`SKIP`] with a reason; docs/testing.md lists the set. A step of
//! `cargo xtask test`: about 135 s of CPU time, 261 s measured on a 2-core
//! machine busy with other builds; `scripts/setup.sh` installs the component
//! and its sysroot.

use crate::{Res, cargo, root, run};
use polymul_ptx_builder::Arch;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::Instant;

/// Unit tests Miri skips (exact names), each with the reason.
pub const SKIP: &[(&str, &str)] = &[
    (
        "dgt::config::tests::defaults_are_valid_and_the_search_space_is_all_valid",
        "walks the whole DGT configuration space for log M = 1..20: safe code, minutes under Miri",
    ),
    (
        "params::arith::tests::miller_rabin_matches_trial_division",
        "trial division of every number to a bound: safe arithmetic, minutes under Miri",
    ),
    (
        "plan::lazy::tests::the_u64_product_pass_has_its_own_radix_and_tables",
        "twiddle tables of a 62-bit prime at N = 2^16: safe code, minutes under Miri",
    ),
    (
        "planner::multiplier::tests::a_forced_dgt_decision_runs_on_the_cpu",
        "runs rayon's pool: Stacked Borrows flags crossbeam-epoch's intrusive list (in the dependency)",
    ),
    (
        "planner::multiplier::tests::an_ntt_decision_on_the_cpu_is_the_cpu_backend_and_multiplies_limbs",
        "runs rayon's pool: Stacked Borrows flags crossbeam-epoch's intrusive list (in the dependency)",
    ),
    (
        "planner::multiplier::tests::without_wisdom_primes_only_the_dgt_takes_choose_the_dgt_on_any_backend",
        "runs rayon's pool: Stacked Borrows flags crossbeam-epoch's intrusive list (in the dependency)",
    ),
    ("gpu::image::tests::unpack_rejects_damaged_frames", "unpacks zstd frames: libzstd is C (FFI)"),
    (
        "gpu::split::tests::rows_address_every_tower",
        "gathers and scatters with rayon's par_chunks: crossbeam-epoch under Stacked Borrows (in the dependency)",
    ),
    (
        "gpu::split::tests::pieces_cover_every_polynomial_once",
        "walks schedules of up to 2^20 pieces: safe arithmetic, minutes under Miri",
    ),
    (
        "cpu::backend::tests::serial_and_parallel_batches_agree_with_single_calls",
        "runs rayon's pool on batches above 2^15 words: crossbeam-epoch under Stacked Borrows, and minutes",
    ),
    (
        "layout::tests::the_range_check_finds_the_first_word_at_or_above_q",
        "scans 2^20 words on rayon's pool: crossbeam-epoch under Stacked Borrows, and minutes",
    ),
    (
        "error::tests::messages_name_no_rust_paths",
        "formats every error, Error::Cuda too, whose driver message comes from cuGetErrorString (FFI)",
    ),
    (
        "cpu::lazy::tests::computed_tables_reproduce_every_row_pair",
        "builds twiddle tables up to N = 2^16: safe arithmetic, minutes under Miri",
    ),
    (
        "cpu::lazy::tests::computed_rows_match_the_reference_u32",
        "emulated transforms and products up to N = 2^17: safe arithmetic, minutes under Miri",
    ),
    (
        "cpu::lazy::tests::computed_rows_match_the_reference_u64",
        "emulated transforms and products up to N = 2^17: safe arithmetic, minutes under Miri",
    ),
    (
        "cpu::lazy::tests::computed_rows_match_the_reference_at_2_17",
        "emulated transforms of N = 2^17: safe arithmetic, minutes under Miri",
    ),
    (
        "cpu::lazy::tests::computed_rows_polymul_matches_the_schoolbook_product",
        "schoolbook products and emulated polymuls: safe arithmetic, minutes under Miri",
    ),
    (
        "cpu::lazy::tests::computed_rows_rns_products",
        "RNS products of 20 and 42 towers and at N = 2^16: safe arithmetic, minutes under Miri",
    ),
    (
        "plan::lazy::tests::computed_row_tables_replace_the_region_and_fit_every_shape",
        "twiddle tables of N = 2^16: safe code, minutes under Miri",
    ),
    (
        "rns::convert::tests::the_column_crt_matches_num_bigint_and_the_one_thread_crt_u64",
        "every L from 1 to 65 against num-bigint: safe arithmetic, minutes under Miri",
    ),
    (
        "rns::convert::tests::the_column_crt_matches_num_bigint_and_the_one_thread_crt_u32",
        "every L from 1 to 65, K up to 200, against num-bigint: safe arithmetic, minutes under Miri",
    ),
    (
        "rns::convert::tests::a_basis_picks_its_crt_kernel_by_limbs",
        "conversion tables of 67 towers: safe arithmetic, minutes under Miri",
    ),
    (
        "rns::convert::tests::many_narrow_towers_take_an_opt_in_column_block",
        "conversion tables of 140 and 200 towers: safe arithmetic, minutes under Miri",
    ),
];

/// `-Zmiri-disable-isolation`: `planner::wisdom::tests::save_and_load_atomically`
/// writes, renames and reads a file in the temporary folder.
const MIRIFLAGS: &str = "-Zmiri-disable-isolation";

/// The slowest unit test Miri runs (about half of the step's CPU time):
/// a second `cargo miri` process runs it beside the others, which halves the
/// step on a machine of two cores or more.
const HEAVY: &str = "dgt::cpu::tests::polymul_without_a_product_pass_gives_the_same_words";

/// `cargo xtask miri`: `cargo miri test -p polymul --lib` less [`SKIP`], with
/// the pinned nightly (rust-toolchain.toml), in two processes ([`HEAVY`] and
/// the rest). The kernels come from `POLYMUL_PTX_DIR` if it is set, else from
/// `target/ptx-out`, built (or reused: the nested builds are cached in
/// `target/ptx`) as `check-ptx` does; no cubins (Miri never loads a kernel).
pub fn miri() -> Res {
    let ptx_dir = match std::env::var_os("POLYMUL_PTX_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => {
            let dir = root().join("target/ptx-out");
            crate::build_ptx(&Arch::DEFAULTS, &dir)?;
            dir
        }
    };
    let flags = match std::env::var("MIRIFLAGS") {
        Ok(more) if !more.is_empty() => format!("{MIRIFLAGS} {more}"),
        _ => MIRIFLAGS.to_string(),
    };
    let miri_test = || {
        let mut cmd = cargo();
        cmd.args(["miri", "test", "-p", "polymul", "--lib"])
            .env("POLYMUL_PTX_DIR", &ptx_dir)
            .env("POLYMUL_CUBIN", "0")
            .env("MIRIFLAGS", &flags)
            .env("PROPTEST_CASES", "4");
        cmd
    };
    let start = Instant::now();
    // Build once, so that the two test processes do not wait on each other.
    run("cargo miri test -p polymul --lib --no-run", miri_test().arg("--no-run"))?;
    let heavy = miri_test()
        .args(["--", "--exact", HEAVY])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cargo miri test: could not start: {e}"))?;
    let mut rest = miri_test();
    rest.args(["--", "--exact", "--skip", HEAVY]);
    for (name, _) in SKIP {
        rest.args(["--skip", name]);
    }
    let rest = run(
        &format!("cargo miri test -p polymul --lib (less {} skipped tests; `{HEAVY}` beside it)", SKIP.len()),
        &mut rest,
    );
    let heavy = heavy.wait_with_output().map_err(|e| format!("cargo miri test: {e}"))?;
    eprintln!("\n==> cargo miri test -p polymul --lib {HEAVY}");
    eprint!("{}{}", String::from_utf8_lossy(&heavy.stderr), String::from_utf8_lossy(&heavy.stdout));
    rest?;
    if !heavy.status.success() {
        return Err(format!("cargo miri test {HEAVY} failed ({})", heavy.status));
    }
    if !String::from_utf8_lossy(&heavy.stdout).contains("test result: ok. 1 passed") {
        return Err(format!("no unit test `{HEAVY}` ran: update HEAVY in xtask/src/miri.rs"));
    }
    eprintln!("miri: {:.0} s", start.elapsed().as_secs_f64());
    Ok(())
}
