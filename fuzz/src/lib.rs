//! The checks behind polymul's libFuzzer targets (`fuzz/fuzz_targets/*.rs`,
//! one line each), kept in a library so that every target shares the
//! independent arithmetic of [`oracle`] and the input decoder of [`input`].
//!
//! Each `check` takes the fuzzer's bytes and panics (which libFuzzer
//! reports as a crash, with the input saved) when polymul panics, aborts,
//! returns an error it should not, or returns a value that breaks a
//! property. How to run them: docs/fuzzing.md (`cargo xtask fuzz`).

pub mod cli_limbs;
pub mod cpu_polymul;
pub mod input;
pub mod npy_read;
pub mod oracle;
pub mod params;
pub mod wisdom_read;
