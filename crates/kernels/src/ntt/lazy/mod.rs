//! The lazy NTT: Harvey's butterflies ([`crate::arith::harvey`]) on
//! register-resident radix-2^k units, with every shape fixed at compile time.
//!
//! A transform of `N = 2^log_n` words is one or two **passes** over global
//! memory. Each pass runs, per block, `S = 2^log_s` independent
//! **sub-transforms** of `2^l` points:
//!
//! * a **row pass** takes `S` consecutive chunks ("rows") of `2^l` words and
//!   runs the last `l` stages of the transform on each (`l = log_n`: the
//!   whole transform, one polynomial per row);
//! * a **column pass** takes `S` consecutive columns of the
//!   `2^(log_n − l) × 2^l`… view: column `c` of a polynomial is the `2^l`
//!   words `c + x · 2^(log_n − l)`, and the pass runs the first `l` stages on
//!   each column (their twiddles do not depend on the column).
//!
//! Forward: column pass (stages `0..l1`) then row pass (stages `l1..log_n`),
//! or one row pass. Inverse: the mirror, Gentleman–Sande butterflies without
//! the per-stage `½` of the other kernels: the `1/N` is folded into the last
//! stage ([`harvey::gs_last`](crate::arith::harvey::gs_last)), so the inverse costs what the forward costs.
//!
//! Inside a pass a thread holds a radix-`2^k` unit (the `2^k` words of a
//! sub-transform that `k` consecutive stages connect) in registers, runs
//! the `k` stages and hands the words on through shared memory; the first
//! step reads them straight from global memory and the last writes them
//! straight back (both coalesced: the fastest thread index walks the
//! columns of a column pass and the words of a row), except at the last end
//! of the `u32` forward row passes that [`staged_last_end`] stages: there the
//! block copies its rows from the tile to global memory in a step of its
//! own. All offsets are compile-time constants after inlining, so every
//! shared-memory access is one `LDS`/`STS` with an immediate offset. Values stay in `[0, 4q)`
//! (forward) or `[0, 2q)` (inverse) until the pass that finishes the
//! transform reduces them.
//!
//! Twiddles come from one table of [`ShoupPair`](crate::arith::harvey::ShoupPair)s per direction: first the
//! plain `N + 1` pairs — pair `i` is `Ψ_br[i]` (or `Ψ⁻¹_br[i]`) with its
//! Shoup companion; the inverse table keeps `N⁻¹` in the unused pair 0 and
//! `Ψ⁻¹_br[1] · N⁻¹` in pair `N` — then a thread-ordered copy of the row
//! pass's twiddles past its first step ([`row_twiddle_index`]): there every
//! unit needs its own `2^k − 1` twiddles, and in the plain order a warp's
//! load would touch 32 scattered pairs. The latency kernels (one block per
//! SM, steps one after another) load every step's pairs in their first
//! step instead of each step after its barrier ([`step_latency`],
//! [`prefetches`]).
//!
//! One job per file: `geometry` — the pass shapes, the split of a
//! transform into passes and where rows, words and twiddles lie;
//! `tuning` — the choices measured on an H100 (radix, register caps,
//! polynomials per block, the fused sizes); `args` — the argument blocks
//! shared with the host; `fused` — the ticket schedule of the fused
//! two-pass kernels; `pass` — the device code of one pass. Everything is
//! re-exported here: `polymul_kernels::ntt::lazy::*` is the public path.

mod args;
mod fused;
mod geometry;
mod pass;
mod tuning;

pub use args::*;
pub use fused::*;
pub use geometry::*;
pub use pass::*;
pub use tuning::*;

/// The forward transform's pass kernels.
pub const FORWARD: u8 = 0;
/// The inverse transform's pass kernels.
pub const INVERSE: u8 = 1;
/// The product row pass: the forward row steps of the second operand `b`
/// (which has had only its column pass: the row pass finishes its
/// transform, and `b` is never written), whose last step keeps its words in
/// registers; then the forward steps of the row pass on `data`, the
/// pointwise product with `b`'s words held by the same threads, and the
/// inverse steps of the same row pass, with no trip through global memory
/// in between (the forward's last step and the inverse's first work on the
/// same units, so they are one step). A polymul is then the column pass of
/// both operands (one launch, [`PassArgs::pair_operand`]), this pass and
/// the inverse column pass; below the one-pass limit, this pass alone.
pub const PRODUCT: u8 = 2;
