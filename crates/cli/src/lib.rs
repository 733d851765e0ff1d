//! `polymul`: negacyclic polynomial arithmetic in `Z_q[X]/(X^N + 1)` from
//! the command line, on a GPU or on the CPU (`--cpu`, or by itself without
//! a GPU, with a note on stderr). This library is the
//! binary's body ([`run`]: `ntt`/`intt`/`mul`, [`params`],
//! [`bench`](mod@bench), [`tune`](mod@tune), with [`io`] for the `.npy`
//! files and [`error`] for the one-line messages); the binary
//! (`src/main.rs`) holds the clap types. See also `docs/cli.md`.
//!
//! ```text
//! polymul params --n N --bits B [--count K] [--dgt] [--json FILE]
//! polymul ntt  IN.npy        (--q Q[,Q..] | --bits B [--towers K]) [--word 32|64] [--cpu] [--no-wisdom] --out OUT.npy
//! polymul intt IN.npy        (--q Q[,Q..] | --bits B [--towers K]) [--word 32|64] [--cpu] [--no-wisdom] --out OUT.npy
//! polymul mul  A.npy B.npy   (--q Q[,Q..] | --bits B [--towers K]) [--dgt] [--word 32|64] [--cpu] [--no-wisdom] --out OUT.npy
//! polymul bench [--quick] [--cpu] [--out DIR] [--only ntt,reductions,table3,tiles,fused,rns,dgt]
//! polymul tune  [--quick] [--out FILE]
//! ```
//!
//! * `params` lists the largest `B`-bit NTT-friendly primes `q ≡ 1 (mod 2N)`
//!   with ψ, their primitive 2N-th root of unity, or with `--dgt` the DGT
//!   primes `p ≡ −1 (mod N)` with ξ and `g = ξ^4`; `--json FILE` writes them
//!   as JSON (`-` for stdout).
//! * `ntt` / `intt` run the library's merged forward transform (normal order
//!   in, bit-reversed order out) and its inverse (bit-reversed in, normal
//!   out, scaled by `1/N`) on every polynomial of the file; `intt(ntt(a)) = a`.
//! * `mul` multiplies two files row by row: `c = a·b mod (X^N + 1, q)`
//!   (through the NTT, or with `--dgt` through Coala's DGT).
//! * `bench` runs `polymul-bench`'s benchmark suite and prints its tables.
//! * `tune` ([`tune`](mod@tune)) times the NTT and DGT candidates on this GPU
//!   and writes the wisdom file; on the GPU, `ntt`, `intt` and `mul` plan
//!   through [`polymul::planner`] with it (the command fixes the transform
//!   and the primes, wisdom the kernel, radix or DGT configuration;
//!   `--no-wisdom`: the rule). A wisdom file that exists but cannot be used
//!   is an error (exit code 2); `--cpu` reads none.
//!
//! ## The `.npy` conventions
//!
//! * A 1-D array `(N,)` is one polynomial, a 2-D array `(batch, N)` a batch
//!   (row `i` is polynomial `i`, coefficient `j` of `X^j` in column `j`). N is
//!   a power of two (2 to 2^24; 4 to 2^21 with `--dgt`).
//! * Inputs may be `uint64`, `uint32` (either byte order) or non-negative
//!   `int64`/`int32`. The computation runs on 32- or 64-bit words:
//!   `--word 32|64`, by default the width of the file's dtype (of the wider
//!   file for `mul`); 32-bit words take moduli of up to 30 bits, 64-bit words
//!   up to 62. The output has the input's shape and the computation's word
//!   (`<u4` or `<u8`), byte for byte what `numpy.save` writes.
//! * Every coefficient must be reduced (`< q`); an unreduced one is refused,
//!   with its position.
//! * **RNS** (`--towers K --bits B`: the `K` largest `B`-bit primes; or
//!   `--q q0,q1,..` with `K` primes): the array is **tower-major**, shape
//!   `(K·batch, N)`: rows `t·batch .. (t+1)·batch` hold the residues modulo
//!   prime `t` of the batch's polynomials (the order of
//!   [`polymul::rns::RnsBasis::to_residues`]). In NumPy:
//!   `np.concatenate([a % q for q in primes])` for an `(batch, N)` array `a`
//!   of integers below `Q`. The result has the same layout.
//!
//! ## Errors
//!
//! Every failure prints one line, `polymul: <what is wrong and what to do>`,
//! on stderr and exits with 2 for bad arguments or input files and 1 for
//! failures of the machine (CUDA errors, `tune` without a GPU, an output
//! that cannot be written). The output file is written atomically: a failed
//! run leaves none.

pub mod bench;
pub mod error;
pub mod io;
pub mod limbs;
pub mod params;
pub mod run;
pub mod tune;
