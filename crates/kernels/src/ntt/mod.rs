//! Number-theoretic transforms.
//!
//! Conventions (Algorithms 5 and 6 of the SEED 2022 paper):
//!
//! * forward: merged Cooley–Tukey, normal order in, bit-reversed order out,
//!   the negacyclic weights ψ^i merged into the twiddles `Ψ_br[i] = ψ^br(i)`;
//! * inverse: merged Gentleman–Sande, bit-reversed in, normal out, twiddles
//!   `Ψ⁻¹_br`, every butterfly output halved, so the `1/N` scaling is merged
//!   and no separate pass is needed.
//!
//! Stage `s` (0-based) of the forward transform has `m = 2^s` twiddle groups
//! of `k = N / (2m)` butterflies; the inverse runs the same stages in reverse.

pub mod cluster;
pub mod lazy;
pub mod radix2;
pub mod tiled;
