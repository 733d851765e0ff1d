//! libFuzzer entry point; the checks are in `polymul_fuzz::cpu_polymul`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| polymul_fuzz::cpu_polymul::check(data));
