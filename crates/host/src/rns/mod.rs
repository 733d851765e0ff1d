//! Polynomials modulo a large `Q`: the residue number system.
//!
//! HE libraries multiply polynomials modulo `Q` with hundreds or thousands of
//! bits by writing `Q = q_0 · q_1 ⋯ q_{k−1}` with word-sized NTT-friendly
//! primes (the *towers*) and working on each residue separately: by the
//! Chinese remainder theorem, `Z_Q[X]/(X^N+1)` is the product of the
//! `Z_{q_i}[X]/(X^N+1)`.
//!
//! * [`RnsBasis`]: the primes, `Q` and the CRT constants; conversion of
//!   big-integer coefficients to residues and back.
//! * [`crate::cpu::rns_polymul`]: the per-tower product on the CPU;
//!   [`RnsPlan`]: the same on a GPU.
//!
//! Residues are stored tower-major: tower `i`'s `batch · N` words, then tower
//! `i + 1`'s.

mod basis;
mod plan;

pub use basis::RnsBasis;
pub use plan::RnsPlan;
