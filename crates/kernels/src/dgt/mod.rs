//! Coala's Discrete Galois Transform (DGT): negacyclic convolution of length
//! `N` through an `M = N/2`-point cyclic transform over `GF(p²) = Z_p[i]`
//! (`p ≡ 3 mod 4`), with Coala's coalesced data layout.
//!
//! * [`gauss`]: Gaussian-integer arithmetic (twiddle products with Shoup,
//!   data products with Algorithm 4 and Karatsuba).
//! * [`layout`]: where a pass's dependency sets live in global memory: the
//!   natural (in-place) order and the packed order of Coala's Algorithm 1,
//!   and the packed twiddle tables.
//! * [`pass`]: the per-thread phases of one shared-memory pass with the
//!   fixed-access Gentleman–Sande and Cooley–Tukey stages of Coala's
//!   Algorithms 2 and 3, the weights applied at load and store, the
//!   polymul pass, the kernels' argument block ([`pass::DgtArgs`]).
//! * [`mod@unit`]: the NTT-style steps that replace the fixed-access stages
//!   where a pass has register units ([`layout::PassGeometry::log_unit`]):
//!   radix-2/4/8 Gaussian units in registers, several stages per barrier.
//! * [`codec`]: Coala's separate encoding (weights, packing) and decoding
//!   ([`codec::DgtCodecArgs`]) and pointwise product
//!   ([`codec::DgtPointwiseArgs`]), one thread per element.
//!
//! A polynomial of `N` words is stored *planar*: the real parts of the `M`
//! Gaussians, then the imaginary parts. Folding `a` into `a_j + i·a_{j+M}`
//! is therefore free: the input already is that layout.

pub mod codec;
pub mod gauss;
pub mod layout;
pub mod pass;
pub mod unit;
