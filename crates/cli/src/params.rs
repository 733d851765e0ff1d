//! `polymul params`: NTT-friendly primes (or DGT primes) for N and a bit
//! width, as a table or as JSON.
//!
//! NTT primes are [`polymul::params::ntt_primes`] (`q ≡ 1 mod 2N`, largest
//! first) with ψ, the primitive 2N-th root of unity [`polymul::NttParams`]
//! uses ([`polymul::params::primitive_root_2n`], computed without building
//! the twiddle tables). DGT primes are [`polymul::dgt::dgt_primes`]
//! (`p ≡ −1 mod N`) with the roots of [`polymul::dgt::DgtParams`]: ξ of
//! order 2N with `ξ^(N/2) = i`, and `g = ξ^4`, Gaussian integers `re + im·i`.

use std::path::Path;

use polymul::dgt::{self, DgtParams};
use polymul::params::{check_n, ntt_primes, primitive_root_2n};

use crate::error::Result;
use crate::io;

/// One prime and its roots.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prime {
    /// An NTT prime `q ≡ 1 (mod 2N)` and ψ.
    Ntt {
        /// The prime.
        q: u64,
        /// The primitive 2N-th root of unity.
        psi: u64,
    },
    /// A DGT prime `p ≡ −1 (mod N)`, ξ and `g = ξ^4` as `(re, im)`.
    Dgt {
        /// The prime.
        p: u64,
        /// ξ: order 2N, `ξ^(N/2) = i`.
        xi: (u64, u64),
        /// `g = ξ^4`: order N/2.
        g: (u64, u64),
    },
}

/// The `count` largest `bits`-bit primes for `n`, NTT or DGT.
///
/// # Errors
/// The library's: N not a power of two in range, an unsupported width, too
/// few primes of that width (exit code 2).
pub fn primes(n: usize, bits: u32, count: usize, dgt: bool) -> Result<Vec<Prime>> {
    if dgt {
        let ps = dgt::dgt_primes(bits, n, count)?;
        ps.into_iter()
            .map(|p| {
                let d = DgtParams::<u64>::new(n, p)?;
                Ok(Prime::Dgt { p, xi: d.xi(), g: d.g() })
            })
            .collect()
    } else {
        check_n(n)?;
        let qs = ntt_primes(bits, n, count)?;
        qs.into_iter().map(|q| Ok(Prime::Ntt { q, psi: primitive_root_2n(q, n)? })).collect()
    }
}

/// The primes as an aligned text table with a title line.
pub fn table(n: usize, bits: u32, dgt: bool, primes: &[Prime]) -> String {
    let words = if bits <= 30 { "u32, u64" } else { "u64" };
    let (title, header): (String, [&str; 4]) = if dgt {
        (
            format!(
                "DGT primes p ≡ -1 (mod N) of {bits} bits for N = {n}, largest first (ξ: order 2N with \
                 ξ^(N/2) = i; g = ξ^4)"
            ),
            ["#", "p", "xi", "g"],
        )
    } else {
        (
            format!(
                "NTT-friendly primes q ≡ 1 (mod 2N) of {bits} bits for N = {n}, largest first (ψ: primitive \
                 2N-th root of unity)"
            ),
            ["#", "q", "psi", "words"],
        )
    };
    let gauss = |(re, im): (u64, u64)| format!("{re} + {im}i");
    let mut rows: Vec<[String; 4]> = vec![header.map(str::to_string)];
    for (i, p) in primes.iter().enumerate() {
        rows.push(match *p {
            Prime::Ntt { q, psi } => [i.to_string(), q.to_string(), psi.to_string(), words.to_string()],
            Prime::Dgt { p, xi, g } => [i.to_string(), p.to_string(), gauss(xi), gauss(g)],
        });
    }
    let widths: Vec<usize> =
        (0..4).map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0)).collect();
    let mut out = title;
    out.push('\n');
    for r in &rows {
        let cells: Vec<String> = r.iter().zip(&widths).map(|(cell, &w)| format!("{cell:>w$}")).collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// The primes as JSON: `{"transform": "ntt", "n": N, "bits": B, "primes":
/// [{"q": .., "psi": ..}, ..]}`, or for the DGT `{"transform": "dgt", ..,
/// "primes": [{"p": .., "xi": [re, im], "g": [re, im]}, ..]}`. Numbers are
/// exact integers (up to 62 bits: parse them as integers, not doubles).
pub fn json(n: usize, bits: u32, dgt: bool, primes: &[Prime]) -> String {
    let items: Vec<String> = primes
        .iter()
        .map(|p| match *p {
            Prime::Ntt { q, psi } => format!("    {{\"q\": {q}, \"psi\": {psi}}}"),
            Prime::Dgt { p, xi, g } => {
                format!("    {{\"p\": {p}, \"xi\": [{}, {}], \"g\": [{}, {}]}}", xi.0, xi.1, g.0, g.1)
            }
        })
        .collect();
    format!(
        "{{\n  \"transform\": \"{}\",\n  \"n\": {n},\n  \"bits\": {bits},\n  \"primes\": [\n{}\n  ]\n}}\n",
        if dgt { "dgt" } else { "ntt" },
        items.join(",\n")
    )
}

/// `polymul params`: prints the table, or writes JSON to `json` (`-`: stdout).
///
/// # Errors
/// Those of [`primes`]; a JSON file that cannot be written (exit code 1).
pub fn run(n: usize, bits: u32, count: usize, dgt: bool, json_out: Option<&Path>) -> Result<()> {
    let primes = primes(n, bits, count, dgt)?;
    match json_out {
        None => io::print_stdout(&table(n, bits, dgt, &primes)),
        Some(path) if path == Path::new("-") => io::print_stdout(&json(n, bits, dgt, &primes)),
        Some(path) => io::write_text_atomically(path, &json(n, bits, dgt, &primes))?,
    }
    Ok(())
}
