//! libFuzzer entry point; the checks are in `polymul_fuzz::cli_limbs`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| polymul_fuzz::cli_limbs::check(data));
