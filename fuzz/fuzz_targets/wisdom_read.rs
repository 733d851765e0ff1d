//! libFuzzer entry point; the checks are in `polymul_fuzz::wisdom_read`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| polymul_fuzz::wisdom_read::check(data));
