//! The two `ptxas` versions scripts/setup.sh installs (CUDA 12.9 in
//! `target/tools/nvcc`, CUDA 13.0 in `target/tools/nvcc13`, the one build.rs
//! embeds SASS from), for `cargo xtask gpu-bundle`'s kernel images and
//! `cargo xtask sass-diff`.

use crate::Res;
use crate::sass::opcode_predicated as sass_opcode;
use polymul_ptx_builder::Arch;
use std::path::{Path, PathBuf};
use std::process::Command;

/// One `ptxas`: a short label (`ptxas12`, `ptxas13`), its path and its
/// version (`V12.9.86`).
#[derive(Debug, Clone)]
pub struct Compiler {
    /// `ptxas12` or `ptxas13`: the file-name tag of its images.
    pub label: &'static str,
    /// The executable.
    pub path: PathBuf,
    /// `V<major>.<minor>.<patch>` from `ptxas --version`.
    pub version: String,
}

/// `V12.9.86` from `ptxas --version`'s output.
fn parse_version(text: &str) -> Option<String> {
    text.split_whitespace()
        .find(|w| w.starts_with('V') && w[1..].starts_with(|c: char| c.is_ascii_digit()))
        .map(|w| w.trim_end_matches(',').to_string())
}

fn version_of(path: &Path) -> Res<String> {
    let out = Command::new(path)
        .arg("--version")
        .output()
        .map_err(|e| format!("could not run {}: {e}", path.display()))?;
    parse_version(&String::from_utf8_lossy(&out.stdout))
        .ok_or_else(|| format!("{} --version printed no version", path.display()))
}

/// CUDA 12's and CUDA 13's `ptxas`: `$PTXAS12` / `$PTXAS13`, else the copies
/// scripts/setup.sh installs. Each is checked to be of its major version.
pub fn compilers() -> Res<[Compiler; 2]> {
    let tools = crate::root().join("target/tools");
    let find = |label: &'static str, var: &str, wheel: &str, major: &str| -> Res<Compiler> {
        let path = std::env::var_os(var).map(PathBuf::from).unwrap_or_else(|| tools.join(wheel));
        if !path.is_file() && std::env::var_os(var).is_none() {
            return Err(format!(
                "{} not found: run scripts/setup.sh (installs ptxas 12.9 and 13.0 into target/tools) or set {var}",
                path.display()
            ));
        }
        let version = version_of(&path)?;
        if !version.starts_with(&format!("V{major}.")) {
            return Err(format!("{} is ptxas {version}, not CUDA {major}'s ({var})", path.display()));
        }
        Ok(Compiler { label, path, version })
    };
    Ok([
        find("ptxas12", "PTXAS12", crate::ptxas::WHEEL_12, "12")?,
        find("ptxas13", "PTXAS13", "nvcc13/nvidia/cu13/bin/ptxas", "13")?,
    ])
}

/// Assembles `ptx` for `arch` into `cubin` with the options build.rs uses
/// for the embedded cubin (`-arch=sm_XY -O3`; the register caps are
/// `.maxnreg` lines in the PTX).
pub fn assemble(c: &Compiler, arch: Arch, ptx: &Path, cubin: &Path) -> Res {
    let out = Command::new(&c.path)
        .arg(format!("-arch={arch}"))
        .arg("-O3")
        .arg("-o")
        .arg(cubin)
        .arg(ptx)
        .output()
        .map_err(|e| format!("could not run {}: {e}", c.path.display()))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{} ({}) rejected {} for {arch}:\n{}",
            c.label,
            c.version,
            ptx.display(),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_ptxas_versions() {
        let text = "ptxas: NVIDIA (R) Ptx optimizing assembler\nCopyright (c) 2005-2025 NVIDIA Corporation\n\
                    Cuda compilation tools, release 12.9, V12.9.86\nBuild cuda_12.9.r12.9/compiler.36037853_0\n";
        assert_eq!(parse_version(text).as_deref(), Some("V12.9.86"));
        assert_eq!(parse_version("no version here, Version"), None);
    }

    /// The staging loop of rns_decompose_u64 before the fix (commit
    /// 3e86ac8^), cut down, laid out with the loop's header after its
    /// latch as LLVM emits some loops; a second kernel has the product
    /// outside its loop and a `mul.hi.u64` inside.
    const PTX: &str = "\
.visible .entry k_lo(
	.param .align 8 .b8 k_lo_param_0[48]
)
{
	mov.u32 \t%r40, %tid.x;
	bra.uni \t$L__BB0_2;
$L__BB0_1:
	add.s32 \t%r40, %r40, %r4;
	setp.lt.u32 \t%p2, %r40, %r7;
	@%p2 bra \t$L__BB0_2;
	bra.uni \t$L__BB0_3;
$L__BB0_2:                            // =>This Inner Loop Header: Depth=1
	cvt.u64.u32 \t%rd22, %r40;
	mul.lo.s64 \t%rd23, %rd14, %rd22;
	mov.b64 \t{_, %r26}, %rd23;
	mad.lo.s32 \t%r25, %r10, %r26, %r39;
	bra.uni \t$L__BB0_1;
$L__BB0_3:
	ret;
}
.visible .entry k_hi(
	.param .u64 k_hi_param_0
)
{
	mul.lo.s64 \t%rd1, %rd2, %rd3;
	shr.u64 \t%rd4, %rd1, 32;
$L__BB1_1:
	mul.hi.u64 \t%rd5, %rd4, %rd6;
	shr.u64 \t%rd7, %rd1, 32;
	@%p1 bra \t$L__BB1_1;
	ret;
}
.visible .entry k_none(
	.param .u64 k_none_param_0
)
{
	mul.lo.s64 \t%rd1, %rd2, %rd3;
	mov.b64 \t{%r1, %r2}, %rd1;
	ret;
}
";

    #[test]
    fn finds_high_words_of_products_in_loops_only() {
        let got = high_word_loops(PTX);
        assert_eq!(
            got,
            vec![
                ("k_lo".to_string(), HighWord { lo_product: 1, hi_product: 0 }),
                ("k_hi".to_string(), HighWord { lo_product: 0, hi_product: 1 }),
            ]
        );
    }

    const SASS: &str = "\
.text.k:
        /*0000*/                   S2R R19, SR_TID.X ;
        /*0010*/               @P0 BRA `(.L_x_1) ;
        /*0020*/                   IMAD.WIDE.U32 R8, R8, UR10, RZ ;
.L_x_2:
        /*0030*/                   IMAD.WIDE.U32 R6, R9, 0x8, R2 ;
        /*0040*/                   IMAD R13, R9, R14, R8.reuse ;
        /*0050*/                   IMAD.IADD R9, R21.reuse, 0x1, R9 ;
        /*0060*/                   STS.64 [R13], R6 ;
        /*0070*/              @!P0 BRA `(.L_x_2) ;
.L_x_1:
        /*0080*/                   IADD3 R1, R1, 0x1, RZ ;
        /*0090*/                   EXIT ;
.L_x_3:
        /*00a0*/                   BRA `(.L_x_3);
";

    #[test]
    fn counts_the_address_arithmetic_of_sass_loops() {
        let h = &loop_arith(SASS)["k"];
        let want: std::collections::BTreeMap<String, usize> =
            [("IMAD.WIDE.U32", 1), ("IMAD", 1), ("IMAD.IADD", 1)]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
        assert_eq!(h, &want);
        let mut other = want.clone();
        other.remove("IMAD.WIDE.U32");
        other.insert("IADD3".into(), 2);
        assert_eq!(histogram_diff(&want, &other), "IADD3 +2, IMAD.WIDE.U32 -1");
        assert_eq!(histogram_diff(&want, &want), "");
    }

    #[test]
    fn reads_the_allow_list() {
        let a = allow_list("# comment\n\nk_one  the 13.0 loop keeps IMAD.WIDE.U32 (read)\nk_two\n");
        assert_eq!(a.len(), 2);
        assert_eq!(a["k_one"], "the 13.0 loop keeps IMAD.WIDE.U32 (read)");
        assert_eq!(a["k_two"], "");
    }
}

// ---------------------------------------------------------------------------
// `cargo xtask sass-diff`
// ---------------------------------------------------------------------------

/// The reviewed differences: one line per kernel, `kernel  reason`.
const ALLOW_FILE: &str = "xtask/sass-diff-allow.txt";

/// A kernel's (or function's) body: its name and instruction lines.
#[derive(Debug)]
pub struct Body {
    /// The entry's name.
    pub name: String,
    /// Its lines, comments and blank lines dropped, trimmed.
    pub lines: Vec<String>,
}

/// The `.entry` bodies of a PTX module.
pub fn ptx_entries(ptx: &str) -> Vec<Body> {
    let mut v: Vec<Body> = Vec::new();
    let mut cur: Option<Body> = None;
    for line in ptx.lines() {
        if let Some(rest) = line.strip_prefix(".visible .entry ").or_else(|| line.strip_prefix(".entry ")) {
            let name = rest.split(['(', ' ']).next().unwrap_or_default().to_string();
            cur = Some(Body { name, lines: Vec::new() });
        } else if line.starts_with('}') {
            if let Some(b) = cur.take() {
                v.push(b);
            }
        } else if let Some(b) = cur.as_mut() {
            let l = line.split("//").next().unwrap_or_default().trim();
            if !l.is_empty() {
                b.lines.push(l.to_string());
            }
        }
    }
    v
}

/// A control-flow graph: per basic block, its line range and successors.
struct Cfg {
    blocks: Vec<std::ops::Range<usize>>,
    succ: Vec<Vec<usize>>,
}

/// Builds the CFG of `lines`: `label(l)` names a label line's label,
/// `branch(l)` says of a branch line its target and whether it is
/// unconditional (no fall-through), `ends(l)` whether a line ends the
/// thread (`ret`, `exit`, `EXIT`) unconditionally.
fn cfg(
    lines: &[String],
    label: impl Fn(&str) -> Option<String>,
    branch: impl Fn(&str) -> Option<(String, bool)>,
    ends: impl Fn(&str) -> bool,
) -> Cfg {
    let mut starts = vec![0];
    for (i, l) in lines.iter().enumerate() {
        if label(l).is_some() {
            starts.push(i);
        } else if branch(l).is_some() || ends(l) {
            starts.push(i + 1);
        }
    }
    starts.retain(|&s| s < lines.len());
    starts.sort_unstable();
    starts.dedup();
    let blocks: Vec<std::ops::Range<usize>> = starts
        .iter()
        .enumerate()
        .map(|(k, &s)| s..starts.get(k + 1).copied().unwrap_or(lines.len()))
        .filter(|r| !r.is_empty())
        .collect();
    let mut at_label = std::collections::HashMap::new();
    for (b, r) in blocks.iter().enumerate() {
        for l in &lines[r.clone()] {
            match label(l) {
                Some(name) => {
                    at_label.insert(name, b);
                }
                None => break,
            }
        }
    }
    let succ = blocks
        .iter()
        .enumerate()
        .map(|(b, r)| {
            let last = &lines[r.end - 1];
            let mut s = Vec::new();
            let mut falls = !ends(last);
            if let Some((target, unconditional)) = branch(last) {
                if let Some(&t) = at_label.get(&target) {
                    s.push(t);
                }
                falls = !unconditional;
            }
            if falls && b + 1 < blocks.len() {
                s.push(b + 1);
            }
            s
        })
        .collect();
    Cfg { blocks, succ }
}

/// The blocks that lie on a cycle of the graph (a strongly connected
/// component of more than one block, or a block that branches to itself):
/// the loops, whatever the layout (LLVM often places a loop's header
/// after its latch, so "a backward branch" would miss it).
fn loop_blocks(succ: &[Vec<usize>]) -> Vec<bool> {
    // Tarjan's algorithm, iterative.
    let n = succ.len();
    let (mut index, mut low, mut on) = (vec![usize::MAX; n], vec![0; n], vec![false; n]);
    let (mut stack, mut next, mut in_loop) = (Vec::new(), 0, vec![false; n]);
    for root in 0..n {
        if index[root] != usize::MAX {
            continue;
        }
        let mut work = vec![(root, 0usize)];
        while let Some(&mut (v, ref mut k)) = work.last_mut() {
            if *k == 0 {
                index[v] = next;
                low[v] = next;
                next += 1;
                stack.push(v);
                on[v] = true;
            }
            if let Some(&w) = succ[v].get(*k) {
                *k += 1;
                if index[w] == usize::MAX {
                    work.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
                continue;
            }
            work.pop();
            if let Some(&(u, _)) = work.last() {
                low[u] = low[u].min(low[v]);
            }
            if low[v] == index[v] {
                let mut comp = Vec::new();
                while let Some(w) = stack.pop() {
                    on[w] = false;
                    comp.push(w);
                    if w == v {
                        break;
                    }
                }
                let cyclic = comp.len() > 1 || succ[v].contains(&v);
                for w in comp {
                    in_loop[w] = cyclic;
                }
            }
        }
    }
    in_loop
}

fn ptx_label(l: &str) -> Option<String> {
    let name = l.strip_suffix(':')?;
    (!name.is_empty() && !name.contains(char::is_whitespace)).then(|| name.to_string())
}

fn ptx_branch(l: &str) -> Option<(String, bool)> {
    let (pred, rest) = match l.strip_prefix('@') {
        Some(r) => (true, r.split_once(char::is_whitespace)?.1.trim_start()),
        None => (false, l),
    };
    let (op, target) = rest.split_once(char::is_whitespace)?;
    (op == "bra" || op == "bra.uni").then(|| (target.trim().trim_end_matches(';').trim().to_string(), !pred))
}

fn ptx_ends(l: &str) -> bool {
    l.starts_with("ret") || l.starts_with("exit") || l.starts_with("trap")
}

/// The operands of a PTX instruction line (`op a, b, c;`), trimmed.
fn operands(l: &str) -> (&str, Vec<&str>) {
    let l = l.trim_end_matches(';');
    let (op, rest) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
    (op, rest.split(',').map(str::trim).filter(|s| !s.is_empty()).collect())
}

/// How a loop of a kernel takes the high word of a 64-bit product.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct HighWord {
    /// `mul.lo`/`mad.lo` of 64 bits whose result's high 32 bits the same
    /// loop reads (`mov.b64 {_, %r}`, `shr.*64 ..., 32..63`): the shape
    /// ptxas got wrong (docs/toolchain.md).
    pub lo_product: usize,
    /// `mul.hi.[su]64` / `mad.hi.[su]64`: the high half of a 128-bit
    /// product (the 64-bit modular multiplications).
    pub hi_product: usize,
}

/// Per kernel of `ptx`, the high-word reads of 64-bit products inside its
/// loops; kernels with none are left out. Found by a def-use match on the
/// virtual registers within the loop blocks (a product that leaves the
/// loop in memory, or through a `mov` to another register, is not seen).
pub fn high_word_loops(ptx: &str) -> Vec<(String, HighWord)> {
    let mut out = Vec::new();
    for body in ptx_entries(ptx) {
        let g = cfg(&body.lines, ptx_label, ptx_branch, ptx_ends);
        let in_loop = loop_blocks(&g.succ);
        let loop_lines: Vec<&str> = g
            .blocks
            .iter()
            .zip(&in_loop)
            .filter(|&(_, &l)| l)
            .flat_map(|(r, _)| body.lines[r.clone()].iter().map(String::as_str))
            .collect();
        let mut products = std::collections::HashSet::new();
        let mut hw = HighWord::default();
        for l in &loop_lines {
            let (op, args) = operands(l);
            if matches!(op, "mul.hi.u64" | "mul.hi.s64" | "mad.hi.u64" | "mad.hi.s64") {
                hw.hi_product += 1;
            } else if matches!(op, "mul.lo.s64" | "mul.lo.u64" | "mad.lo.s64" | "mad.lo.u64")
                && let Some(d) = args.first()
            {
                products.insert(d.to_string());
            }
        }
        for l in &loop_lines {
            let (op, args) = operands(l);
            let reads_high = match op {
                "mov.b64" => {
                    // `mov.b64 {lo, hi}, %rd` with `hi` kept.
                    let text = l.trim_end_matches(';');
                    text.split_once('}').is_some_and(|(parts, src)| {
                        let hi = parts.rsplit(',').next().unwrap_or("").trim();
                        hi != "_" && products.contains(src.trim_start_matches(',').trim())
                    })
                }
                _ if op.starts_with("shr.") && op.ends_with("64") => {
                    args.get(1).is_some_and(|s| products.contains(*s))
                        && args
                            .get(2)
                            .and_then(|k| k.parse::<u32>().ok())
                            .is_some_and(|k| (32..64).contains(&k))
                }
                _ => false,
            };
            if reads_high {
                hw.lo_product += 1;
            }
        }
        if hw != HighWord::default() {
            out.push((body.name, hw));
        }
    }
    out
}

fn sass_label(l: &str) -> Option<String> {
    let name = l.trim().strip_suffix(':')?;
    name.starts_with(".L").then(|| name.to_string())
}

fn sass_branch(l: &str) -> Option<(String, bool)> {
    let (op, pred) = sass_opcode(l)?;
    if !op.starts_with("BRA") {
        return None;
    }
    let target = crate::sass::branch_target(l)?.to_string();
    Some((target, !pred && !op.contains(".DIV")))
}

fn sass_ends(l: &str) -> bool {
    sass_opcode(l).is_some_and(|(op, pred)| !pred && (op == "EXIT" || op.starts_with("RET")))
}

/// The integer-arithmetic opcodes that compute addresses and indices (and
/// the high words of products): `IMAD*` (`.WIDE`, `.HI`, `.SHL`, ...),
/// `IMUL*`, `LEA*`, `IADD3`, `VIADD`, and their uniform-datapath forms.
fn address_arith(op: &str) -> bool {
    let op = op.strip_prefix('U').unwrap_or(op);
    ["IMAD", "IMUL", "LEA", "IADD3", "IADD", "VIADD"]
        .iter()
        .any(|p| op == *p || op.starts_with(&format!("{p}.")))
}

/// Per kernel of a `nvdisasm -c` listing: the histogram of
/// [`address_arith`] opcodes in the blocks that lie on a cycle (its loops).
pub fn loop_arith(
    sass: &str,
) -> std::collections::BTreeMap<String, std::collections::BTreeMap<String, usize>> {
    crate::sass::kernels(sass)
        .into_iter()
        .map(|(name, lines)| {
            let g = cfg(&lines, sass_label, sass_branch, sass_ends);
            let in_loop = loop_blocks(&g.succ);
            let mut h = std::collections::BTreeMap::new();
            for (r, _) in g.blocks.iter().zip(&in_loop).filter(|&(_, &l)| l) {
                for (op, _) in lines[r.clone()].iter().filter_map(|l| sass_opcode(l)) {
                    if address_arith(op) {
                        *h.entry(op.to_string()).or_insert(0) += 1;
                    }
                }
            }
            (name, h)
        })
        .collect()
}

/// `a` vs `b` as `+OP n` / `-OP n` terms (`b`'s count minus `a`'s), empty
/// when equal.
fn histogram_diff(
    a: &std::collections::BTreeMap<String, usize>,
    b: &std::collections::BTreeMap<String, usize>,
) -> String {
    let mut ops: Vec<&String> = a.keys().chain(b.keys()).collect();
    ops.sort();
    ops.dedup();
    ops.iter()
        .filter_map(|op| {
            let (x, y) = (a.get(*op).copied().unwrap_or(0) as i64, b.get(*op).copied().unwrap_or(0) as i64);
            (x != y).then(|| format!("{op} {:+}", y - x))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The allow-list: kernel → reason. Lines `kernel  reason`; `#` comments.
fn allow_list(text: &str) -> std::collections::BTreeMap<String, String> {
    text.lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (k, why) = l.split_once(char::is_whitespace).unwrap_or((l, ""));
            (k.to_string(), why.trim().to_string())
        })
        .collect()
}

/// `cargo xtask sass-diff [--ptx FILE]` (a CI step after `check-ptx`): the
/// sm_90 PTX (`target/ptx-out`, from check-ptx) assembled by both `ptxas`
/// versions, disassembled, and for every kernel whose loops take the high
/// word of a 64-bit product ([`high_word_loops`]) the loops' address
/// arithmetic ([`loop_arith`]) compared; a kernel whose two histograms
/// differ must be in [`ALLOW_FILE`] with a reason.
pub fn sass_diff(args: &[String]) -> Res {
    let t0 = std::time::Instant::now();
    let arch = Arch(90);
    let ptx = crate::flag_value(args, "--ptx")
        .map(PathBuf::from)
        .unwrap_or_else(|| crate::root().join(format!("target/ptx-out/polymul_kernels_{arch}.ptx")));
    let text = std::fs::read_to_string(&ptx)
        .map_err(|e| format!("{}: {e} (cargo xtask check-ptx writes it)", ptx.display()))?;
    let flagged = high_word_loops(&text);
    let compilers = compilers()?;
    let nvdisasm = crate::sass::locate_nvdisasm()?;
    let out_dir = crate::root().join("target/sass-diff");
    std::fs::create_dir_all(&out_dir).map_err(|e| format!("{}: {e}", out_dir.display()))?;
    eprintln!(
        "\n==> sass-diff: {} kernels of {} take the high word of a 64-bit product in a loop; {} vs {}",
        flagged.len(),
        ptx.display(),
        compilers[0].version,
        compilers[1].version
    );
    // Both compilers side by side (one thread each: ptxas is single-threaded).
    let sass: Vec<Res<String>> = std::thread::scope(|s| {
        let handles: Vec<_> = compilers
            .iter()
            .map(|c| {
                let (ptx, nvdisasm, out_dir) = (&ptx, &nvdisasm, &out_dir);
                s.spawn(move || -> Res<String> {
                    let cubin = out_dir.join(format!("polymul_kernels_{arch}.{}.cubin", c.label));
                    assemble(c, arch, ptx, &cubin)?;
                    let out = Command::new(nvdisasm)
                        .arg("-c")
                        .arg(&cubin)
                        .output()
                        .map_err(|e| format!("nvdisasm: {e}"))?;
                    if !out.status.success() {
                        return Err(format!(
                            "nvdisasm {}: {}",
                            cubin.display(),
                            String::from_utf8_lossy(&out.stderr)
                        ));
                    }
                    let text = String::from_utf8_lossy(&out.stdout).into_owned();
                    let file = out_dir.join(format!("polymul_kernels_{arch}.{}.sass", c.label));
                    std::fs::write(&file, &text).map_err(|e| format!("{}: {e}", file.display()))?;
                    Ok(text)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("a ptxas thread panicked".into())))
            .collect()
    });
    let sass = sass.into_iter().collect::<Res<Vec<String>>>()?;
    let (a, b) = (loop_arith(&sass[0]), loop_arith(&sass[1]));
    let allow_path = crate::root().join(ALLOW_FILE);
    let allow = allow_list(&std::fs::read_to_string(&allow_path).unwrap_or_default());
    let empty = std::collections::BTreeMap::new();
    let (mut differ, mut unreviewed) = (0, Vec::new());
    let mut report = String::new();
    for (name, hw) in &flagged {
        let d = histogram_diff(a.get(name).unwrap_or(&empty), b.get(name).unwrap_or(&empty));
        let state = if d.is_empty() {
            "same".to_string()
        } else {
            differ += 1;
            match allow.get(name) {
                Some(why) if !why.is_empty() => format!("differs, allowed ({why}): {d}"),
                _ => {
                    unreviewed.push(name.clone());
                    format!("DIFFERS, not in {ALLOW_FILE} with a reason: {d}")
                }
            }
        };
        report += &format!(
            "  {name:40} lo-product high words {:3}, mul.hi/mad.hi.64 {:4}; loop address arithmetic {} vs {}: {state}\n",
            hw.lo_product, hw.hi_product, compilers[0].label, compilers[1].label
        );
    }
    let file = out_dir.join("report.txt");
    std::fs::write(&file, &report).map_err(|e| format!("{}: {e}", file.display()))?;
    eprint!("{report}");
    let stale: Vec<&String> = allow.keys().filter(|k| !flagged.iter().any(|(n, _)| n == *k)).collect();
    if !stale.is_empty() {
        eprintln!("note: {ALLOW_FILE} names kernels without the pattern now: {stale:?}");
    }
    eprintln!(
        "sass-diff: {} kernels with the pattern, {differ} differ between {} and {} ({} not reviewed); {:.0} s; \
         SASS and report in {}",
        flagged.len(),
        compilers[0].version,
        compilers[1].version,
        unreviewed.len(),
        t0.elapsed().as_secs_f64(),
        out_dir.display()
    );
    if unreviewed.is_empty() {
        Ok(())
    } else {
        Err(format!(
            "the loop address arithmetic of {} differs between ptxas {} and {}: read both SASS listings in {} \
             (docs/toolchain.md, \"A ptxas miscompilation to stay clear of\"), then add a line `kernel reason` \
             to {ALLOW_FILE}",
            unreviewed.join(", "),
            compilers[0].version,
            compilers[1].version,
            out_dir.display()
        ))
    }
}
