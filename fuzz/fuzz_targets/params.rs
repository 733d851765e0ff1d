//! libFuzzer entry point; the checks are in `polymul_fuzz::params`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| polymul_fuzz::params::check(data));
