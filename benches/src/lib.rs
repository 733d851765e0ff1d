//! Holder crate for polymul's criterion benchmarks; see `benches/cpu.rs`.
//! GPU benchmarks are `cargo xtask bench` (CUDA-event timing).
