//! `cargo xtask results [--check]`: the index of `docs/results/`, the headline page
//! `docs/RESULTS.md` and the results block of the top-level `README.md`, all written from
//! the run folders' READMEs and summary files.
//!
//! Every run folder `docs/results/<date>-<what>/` has a `README.md` whose first line is a
//! `# ` heading (the index's "what") and which carries one metadata comment:
//!
//! ```text
//! <!-- results: kinds=goals,latency; order=32; device=...; goals=goals/gpu.md; latency=latency/gpu.md -->
//! ```
//!
//! `kinds` names what the run measured; `order` orders the runs of one day (the device
//! run number where there is one); `device` is needed only where the folder name does not
//! say `nvidia-h100` or `nvidia-h200`; `<kind>=<file>` names the folder's summary of that
//! kind. The newest folder of a kind (date, then order) is its latest; the headline tables
//! are copied, row for row, from the latest folders' summary files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::Res;

/// The most `docs/results/` may hold (sum of its file sizes): raw logs belong in each run
/// folder's `raw.tar.xz`, summaries in the tree.
pub const MAX_RESULTS_BYTES: u64 = 3 * 1024 * 1024;

/// The markers of the generated block in the top-level `README.md`.
const BEGIN: &str = "<!-- results:begin -->";
/// See [`BEGIN`].
const END: &str = "<!-- results:end -->";

/// One run folder, as its README describes it.
#[derive(Debug, Clone, PartialEq)]
struct Run {
    /// The folder name, e.g. `2026-11-25-nvidia-h100-latency`.
    name: String,
    /// `YYYY-MM-DD`, the folder name's prefix.
    date: String,
    /// The device: the metadata's, else from the folder name.
    device: String,
    /// The README's first heading.
    title: String,
    /// What the run measured (metadata `kinds`).
    kinds: Vec<String>,
    /// Order within the day (metadata `order`).
    order: u32,
    /// Summary file (relative to the folder) per kind.
    files: BTreeMap<String, String>,
}

/// A headline table of `docs/RESULTS.md`: the section under `heading` (a prefix of the
/// heading's text) of the summary file of the latest run of `kind`.
struct Headline {
    /// The section title in `docs/RESULTS.md`.
    title: &'static str,
    /// The kind whose latest run supplies the table.
    kind: &'static str,
    /// The start of the heading in the summary file.
    heading: &'static str,
}

/// The headline tables, in page order.
const HEADLINES: &[Headline] = &[
    Headline { title: "Throughput against the goals", kind: "goals", heading: "Against the goals" },
    Headline {
        title: "Ciphertexts: one call on L towers of distinct primes",
        kind: "ciphertext",
        heading: "Ciphertexts: one call",
    },
    Headline {
        title: "Latency: one polynomial per call",
        kind: "latency",
        heading: "Latency: one polynomial per call",
    },
    Headline {
        title: "RNS conversions: decomposition and CRT",
        kind: "rns-conversions",
        heading: "Big integers in and out",
    },
    Headline {
        title: "CPU backend against concrete-ntt",
        kind: "cpu-backend",
        heading: "CPU backend (issue 19) against concrete-ntt",
    },
    Headline {
        title: "CPU backend: batch scaling on two idle cores",
        kind: "cpu-scaling",
        heading: "CPU backend: batches over all cores",
    },
];

/// The columns of the goals table that the top-level README shows.
const README_COLUMNS: &[&str] =
    &["row", "goal", "GPU-NTT", "Phantom", "Cheddar", "now (default plan)", "goal met"];

/// The columns of the ciphertext table that the top-level README shows.
const README_CIPHERTEXT_COLUMNS: &[&str] =
    &["row", "µs per call", "µs per tower", "goal", "peer (issue 54)", "% of large-batch rate"];

/// Reads a file to a string, with the path in the error.
fn read(p: &Path) -> Res<String> {
    std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))
}

/// Parses the `<!-- results: ... -->` comment of a README into key/value pairs.
fn parse_meta(readme: &str) -> Option<BTreeMap<String, String>> {
    let line = readme.lines().map(str::trim).find(|l| l.starts_with("<!-- results:"))?;
    let body = line.strip_prefix("<!-- results:")?.strip_suffix("-->")?;
    let mut m = BTreeMap::new();
    for part in body.split(';') {
        let (k, v) = part.split_once('=')?;
        m.insert(k.trim().to_string(), v.trim().to_string());
    }
    Some(m)
}

/// The device a folder name states (`...-nvidia-h100-...`), if any.
fn device_from_name(name: &str) -> Option<&'static str> {
    if name.contains("-nvidia-h100") {
        Some("NVIDIA H100 80GB HBM3")
    } else if name.contains("-nvidia-h200") {
        Some("NVIDIA H200")
    } else {
        None
    }
}

/// Reads one run folder's README.
fn parse_run(name: &str, readme: &str) -> Res<Run> {
    let b = name.as_bytes();
    let dated = b.len() > 11
        && b[10] == b'-'
        && b[..10]
            .iter()
            .enumerate()
            .all(|(i, c)| if i == 4 || i == 7 { *c == b'-' } else { c.is_ascii_digit() });
    if !dated {
        return Err(format!("{name}: a run folder's name starts with its date, YYYY-MM-DD-"));
    }
    let title = readme
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("# "))
        .ok_or_else(|| format!("{name}/README.md: the first line must be a `# ` heading"))?
        .trim()
        .to_string();
    let meta = parse_meta(readme).ok_or_else(|| {
        format!("{name}/README.md: no `<!-- results: kinds=...; order=N[; device=...][; KIND=FILE] -->` line")
    })?;
    let kinds: Vec<String> =
        meta.get("kinds").map(|k| k.split(',').map(|s| s.trim().to_string()).collect()).unwrap_or_default();
    if kinds.is_empty() || kinds.iter().any(String::is_empty) {
        return Err(format!("{name}/README.md: the results comment needs `kinds=`"));
    }
    let order = meta
        .get("order")
        .and_then(|o| o.parse().ok())
        .ok_or_else(|| format!("{name}/README.md: the results comment needs `order=N`"))?;
    let device = match (meta.get("device"), device_from_name(name)) {
        (Some(d), _) => d.clone(),
        (None, Some(d)) => d.to_string(),
        (None, None) => {
            return Err(format!("{name}/README.md: the folder name names no device: add `device=`"));
        }
    };
    let files = meta.iter().filter(|(k, _)| kinds.contains(k)).map(|(k, v)| (k.clone(), v.clone())).collect();
    Ok(Run { name: name.to_string(), date: name[..10].to_string(), device, title, kinds, order, files })
}

/// Every run folder of `dir`, newest first (date, then order, then name).
fn scan(dir: &Path) -> Res<Vec<Run>> {
    let mut runs = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let e = e.map_err(|e| e.to_string())?;
        if !e.file_type().map_err(|e| e.to_string())?.is_dir() {
            continue;
        }
        let name = e.file_name().to_string_lossy().into_owned();
        runs.push(parse_run(&name, &read(&e.path().join("README.md"))?)?);
    }
    sort_newest_first(&mut runs);
    Ok(runs)
}

/// Sorts newest first: date, then order within the day, then name (all descending).
fn sort_newest_first(runs: &mut [Run]) {
    runs.sort_by(|a, b| (&b.date, b.order, &b.name).cmp(&(&a.date, a.order, &a.name)));
}

/// The latest run of each kind: the first of that kind in newest-first order.
fn latest(runs: &[Run]) -> BTreeMap<&str, &Run> {
    let mut m = BTreeMap::new();
    for r in runs {
        for k in &r.kinds {
            m.entry(k.as_str()).or_insert(r);
        }
    }
    m
}

/// The cells of one markdown table line (`| a | b |` → `["a", "b"]`), split at every `|`.
fn cells(line: &str) -> Vec<&str> {
    let t = line.trim();
    let t = t.strip_prefix('|').unwrap_or(t);
    let t = t.strip_suffix('|').unwrap_or(t);
    t.split('|').map(str::trim).collect()
}

/// A markdown table: its header and rows, each as the source's cells (verbatim).
#[derive(Debug, PartialEq)]
struct Table {
    /// The header cells.
    header: Vec<String>,
    /// The body rows' cells.
    rows: Vec<Vec<String>>,
}

impl Table {
    /// Renders the table, with a delimiter row of the header's cell count.
    fn render(&self) -> String {
        let line = |c: &[String]| format!("| {} |\n", c.join(" | "));
        let mut s = line(&self.header);
        s += &format!("|{}\n", "---|".repeat(self.header.len()));
        for r in &self.rows {
            s += &line(r);
        }
        s
    }

    /// The header cell that closes a group split by a `|` inside parentheses
    /// (`floor µs (compute | memory)`), if there is one.
    ///
    /// Also the cell `floor µs (compute / memory)` of the goals tables written between
    /// the header fix and the matching row fix (2026-11-26), whose rows still print the
    /// two floors as two cells.
    fn split_group_end(&self) -> Option<usize> {
        let depth = |c: &str| c.matches('(').count() as isize - c.matches(')').count() as isize;
        let split = self.header.iter().position(|c| depth(c) > 0).and_then(|open| {
            self.header.iter().enumerate().skip(open + 1).find(|(_, c)| depth(c) < 0).map(|(i, _)| i)
        });
        split.or_else(|| self.header.iter().position(|c| c == "floor µs (compute / memory)"))
    }

    /// The table with only the named columns (in the order given); `None` if one is missing.
    /// Columns after a header group split by a `|` inside parentheses are counted from the
    /// row's end, so rows that print that group as one cell (`—`) keep their later values.
    fn select(&self, cols: &[&str]) -> Option<Table> {
        let idx: Option<Vec<usize>> = cols.iter().map(|c| self.header.iter().position(|h| h == c)).collect();
        let idx = idx?;
        let (n, group_end) = (self.header.len(), self.split_group_end());
        let pick = |r: &Vec<String>| {
            idx.iter()
                .map(|&i| {
                    let j = match group_end {
                        Some(g) if i > g && r.len() != n => (r.len() + i).checked_sub(n),
                        _ => Some(i),
                    };
                    j.and_then(|j| r.get(j)).cloned().unwrap_or_default()
                })
                .collect()
        };
        Some(Table {
            header: idx.iter().map(|&i| self.header[i].clone()).collect(),
            rows: self.rows.iter().map(pick).collect(),
        })
    }
}

/// A section of a summary file: the prose under its heading and its first table.
#[derive(Debug, PartialEq)]
struct Section {
    /// The heading's text (without the `#`s).
    heading: String,
    /// The paragraphs between the heading and the table, verbatim.
    prose: String,
    /// The first table of the section.
    table: Table,
}

/// Finds the first heading (any level) whose text starts with `prefix` and returns the
/// prose and the first markdown table before the next heading.
fn extract_section(md: &str, prefix: &str) -> Option<Section> {
    let lines: Vec<&str> = md.lines().collect();
    let heading_text = |l: &str| l.starts_with('#').then(|| l.trim_start_matches('#').trim().to_string());
    let start = lines.iter().position(|l| heading_text(l).is_some_and(|h| h.starts_with(prefix)))?;
    let heading = heading_text(lines[start])?;
    let mut prose = Vec::new();
    let mut i = start + 1;
    while i < lines.len() && !lines[i].trim_start().starts_with('|') {
        if heading_text(lines[i]).is_some() {
            return None;
        }
        prose.push(lines[i]);
        i += 1;
    }
    let mut block = Vec::new();
    while i < lines.len() && lines[i].trim_start().starts_with('|') {
        block.push(lines[i]);
        i += 1;
    }
    if block.len() < 2 {
        return None;
    }
    let own = |c: Vec<&str>| c.into_iter().map(str::to_string).collect::<Vec<_>>();
    let table =
        Table { header: own(cells(block[0])), rows: block[2..].iter().map(|l| own(cells(l))).collect() };
    Some(Section { heading, prose: prose.join("\n").trim().to_string(), table })
}

/// The stamp a summary file starts with (`- device:`, `- date:`, `- command:`, and the
/// `(commit ...)` of the version line); `not stated` where a line is missing.
fn stamp(md: &str) -> [(&'static str, String); 4] {
    let field = |key: &str| {
        md.lines()
            .find_map(|l| l.strip_prefix(&format!("- {key}: ")))
            .map(|v| v.trim().to_string())
            .unwrap_or_else(|| "not stated".into())
    };
    let commit = md
        .lines()
        .find_map(|l| {
            let (_, rest) = l.strip_prefix("- ")?.split_once("(commit ")?;
            rest.strip_suffix(')').map(str::to_string)
        })
        .unwrap_or_else(|| "not stated".into());
    [("device", field("device")), ("date", field("date")), ("commit", commit), ("command", field("command"))]
}

/// Sum of the sizes of the files under `dir` (symbolic links not followed).
fn dir_bytes(dir: &Path) -> Res<u64> {
    let mut total = 0;
    for e in std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let e = e.map_err(|e| e.to_string())?;
        let ft = e.file_type().map_err(|e| e.to_string())?;
        if ft.is_dir() {
            total += dir_bytes(&e.path())?;
        } else if ft.is_file() {
            total += e.metadata().map_err(|e| e.to_string())?.len();
        }
    }
    Ok(total)
}

/// `Err` naming the sizes when `bytes` is over [`MAX_RESULTS_BYTES`].
fn size_check(bytes: u64) -> Res {
    if bytes > MAX_RESULTS_BYTES {
        Err(format!(
            "docs/results holds {bytes} bytes, more than {MAX_RESULTS_BYTES} (3 MiB): move raw logs into the \
             run folder's raw.tar.xz and keep only summaries in the tree"
        ))
    } else {
        Ok(())
    }
}

/// Relative links (`](target)`) of a README that point at nothing, as `target`s.
fn broken_links(dir: &Path, readme: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = readme;
    while let Some(i) = rest.find("](") {
        rest = &rest[i + 2..];
        let Some(j) = rest.find(')') else { break };
        let target = rest[..j].split('#').next().unwrap_or("");
        if !target.is_empty() && !target.contains("://") && !dir.join(target).exists() {
            out.push(target.to_string());
        }
    }
    out
}

/// `docs/results/README.md`: one row per run folder, newest first.
fn index_md(runs: &[Run]) -> String {
    let latest = latest(runs);
    let mut s = String::from(
        "# Measured results\n\n\
         <!-- Written by `cargo xtask results` from the run folders' READMEs; do not edit by hand. -->\n\n\
         Every summary here was written by a program (`polymul-bench`, through `cargo xtask bench`,\n\
         the GPU bundle's scripts or the device scripts in each folder's archive), never edited by\n\
         hand; each states its device, date, command and commit. A run folder holds its README (what\n\
         ran, with which commit and command), its summaries (markdown tables, plots, CSV files no\n\
         table beside them repeats) and `raw.tar.xz`: the raw logs, statuses, scripts and tool dumps\n\
         the summaries were written from (`tar -xJf raw.tar.xz` in the folder restores them).\n\n\
         The current headline numbers, copied from the latest runs: [../RESULTS.md](../RESULTS.md).\n\
         A run is the **latest** of a kind when no run of that kind is newer (its date, then its\n\
         order within the day, both from the folder's README), as `cargo xtask results` computes.\n\n\
         | date | device | folder | what | kinds |\n|---|---|---|---|---|\n",
    );
    for r in runs {
        let kinds: Vec<String> = r
            .kinds
            .iter()
            .map(|k| if latest.get(k.as_str()) == Some(&r) { format!("**{k} (latest)**") } else { k.clone() })
            .collect();
        s += &format!(
            "| {} | {} | [`{}/`]({}/) | {} | {} |\n",
            r.date,
            r.device,
            r.name,
            r.name,
            r.title.replace('|', "\\|"),
            kinds.join(", ")
        );
    }
    s += "\nConventions (GPU runs): CUDA-event timing after warm-up, median of many repetitions,\n\
          fresh random inputs; GB/s beside every timing together with the percentage of the\n\
          device-to-device copy bandwidth measured in the same run.\n";
    s
}

/// A headline's latest run, summary path (relative to `docs/`) and section.
fn headline_source(results: &Path, runs: &[Run], h: &Headline) -> Res<(String, String, Section)> {
    let l = latest(runs);
    let run = l.get(h.kind).ok_or_else(|| format!("no run folder of kind `{}`", h.kind))?;
    let file = run.files.get(h.kind).ok_or_else(|| {
        format!("{}/README.md: kind `{}` names no summary file (`{}=FILE`)", run.name, h.kind, h.kind)
    })?;
    let md = read(&results.join(&run.name).join(file))?;
    let sec = extract_section(&md, h.heading)
        .ok_or_else(|| format!("{}/{file}: no table under a heading starting `{}`", run.name, h.heading))?;
    let stamp = stamp(&md).iter().map(|(k, v)| format!("- {k}: {v}\n")).collect();
    Ok((format!("results/{}/{file}", run.name), stamp, sec))
}

/// `docs/RESULTS.md`: the headline tables.
fn results_md(results: &Path, runs: &[Run]) -> Res<String> {
    let mut s = String::from(
        "# Current results\n\n\
         <!-- Written by `cargo xtask results` from docs/results/; do not edit by hand. -->\n\n\
         Each table below is copied by `cargo xtask results` from the summary file of the latest\n\
         run of its kind in [docs/results/](results/README.md) (the index says which run is the\n\
         latest of each kind): its rows and the note above it verbatim, only the table's delimiter\n\
         row rewritten to its header's cell count. Device, date, commit and command are the summary\n\
         file's own; the source path is under each table. Nothing here is typed by hand.\n",
    );
    for (n, h) in HEADLINES.iter().enumerate() {
        let (path, stamp, sec) = headline_source(results, runs, h)?;
        s += &format!("\n## {}. {}\n\n{stamp}\n", n + 1, h.title);
        s += &format!("From the section \"{}\":\n\n", sec.heading);
        if !sec.prose.is_empty() {
            s += &format!("{}\n\n", sec.prose);
        }
        s += &sec.table.render();
        s += &format!("\nSource: [docs/{path}]({path})\n");
        if h.kind == "latency" {
            s += &peers_note();
        }
    }
    Ok(s)
}

/// The peer comparison: where the other libraries' figures are.
fn peers_note() -> String {
    "\n## Peer comparison (GPU-NTT, Phantom, Cheddar, troy-nova)\n\n\
     No results summary measures a peer library in the same run. The peers' figures are the\n\
     columns `GPU-NTT`, `Phantom`, `Cheddar` of the goals table (1) and `best open code` of the\n\
     latency table (2): the benchmark prints the figures issues 14 and 15 quote (measured on an\n\
     H100 80GB HBM3), beside its own measurement. The discussion of the comparison is in\n\
     [ntt.md](ntt.md) and [latency.md](latency.md).\n"
        .to_string()
}

/// The block between the markers of the top-level `README.md`.
fn readme_block(results: &Path, runs: &[Run]) -> Res<String> {
    let (path, _, sec) = headline_source(results, runs, &HEADLINES[0])?;
    let md = read(&results.join(path.trim_start_matches("results/")))?;
    let st = stamp(&md);
    let short = sec
        .table
        .select(README_COLUMNS)
        .ok_or_else(|| format!("docs/{path}: the goals table lacks one of the columns {README_COLUMNS:?}"))?;
    // The ciphertext table (issue 54), where a run of that kind exists.
    let ciphertext = match HEADLINES.iter().find(|h| h.kind == "ciphertext") {
        Some(h) if latest(runs).contains_key(h.kind) => {
            let (cpath, _, csec) = headline_source(results, runs, h)?;
            let cmd = read(&results.join(cpath.trim_start_matches("results/")))?;
            let cst = stamp(&cmd);
            let t = csec.table.select(README_CIPHERTEXT_COLUMNS).ok_or_else(|| {
                format!("docs/{cpath}: the ciphertext table lacks one of the columns {README_CIPHERTEXT_COLUMNS:?}")
            })?;
            format!(
                "\n**Ciphertexts** (issue 54): one call on one polynomial of L towers of distinct primes\n\
                 (the shape HE runs; µs per call, CUDA events, median), {} on {}, commit {}; the peers'\n\
                 figures are issue 54's, measured on an H100. Source: [docs/{cpath}](docs/{cpath}).\n\n{}",
                cst[0].1,
                cst[1].1,
                cst[2].1,
                t.render()
            )
        }
        _ => String::new(),
    };
    Ok(format!(
        "{BEGIN}\n<!-- Written by `cargo xtask results`; do not edit by hand. -->\n\n\
         **Current numbers** against the goals and the open libraries: {} on {}, commit {}\n\
         (µs per polynomial at large batch unless the row says otherwise; the peers' figures\n\
         are those issue 14 quotes, not measured in the same run). Source:\n\
         [docs/{path}](docs/{path}).\n\n{}{ciphertext}\n\
         Every headline table (throughput, ciphertexts, latency, RNS conversions, CPU backend), each with\n\
         device, date, commit and command: [docs/RESULTS.md](docs/RESULTS.md); every run:\n\
         [docs/results/](docs/results/README.md).\n{END}",
        st[0].1,
        st[1].1,
        st[2].1,
        short.render()
    ))
}

/// Replaces the text between (and including) the markers of `readme` with `block`.
fn splice(readme: &str, block: &str) -> Res<String> {
    let b = readme.find(BEGIN).ok_or("README.md: no `<!-- results:begin -->` marker")?;
    let e =
        readme[b..].find(END).ok_or("README.md: no `<!-- results:end -->` marker after the begin marker")?
            + b
            + END.len();
    Ok(format!("{}{block}{}", &readme[..b], &readme[e..]))
}

/// The three generated files (path, content), from the tree under `root`.
fn generate(root: &Path) -> Res<Vec<(PathBuf, String)>> {
    let results = root.join("docs/results");
    let runs = scan(&results)?;
    let readme_path = root.join("README.md");
    let readme = splice(&read(&readme_path)?, &readme_block(&results, &runs)?)?;
    Ok(vec![
        (results.join("README.md"), index_md(&runs)),
        (root.join("docs/RESULTS.md"), results_md(&results, &runs)?),
        (readme_path, readme),
    ])
}

/// The check: the generated files equal the ones on disk, every run README's relative links
/// resolve, and `docs/results/` is within [`MAX_RESULTS_BYTES`].
pub fn check(root: &Path) -> Res {
    let mut problems = Vec::new();
    for (path, want) in generate(root)? {
        let have = std::fs::read_to_string(&path).unwrap_or_default();
        if have != want {
            let line = have
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(have.lines().count().min(want.lines().count()));
            problems.push(format!(
                "{} differs from `cargo xtask results` (first at line {})",
                path.strip_prefix(root).unwrap_or(&path).display(),
                line + 1
            ));
        }
    }
    let results = root.join("docs/results");
    for r in scan(&results)? {
        let dir = results.join(&r.name);
        for t in broken_links(&dir, &read(&dir.join("README.md"))?) {
            problems.push(format!("{}/README.md links to `{t}`, which is not in the tree", r.name));
        }
    }
    let bytes = dir_bytes(&results)?;
    if let Err(e) = size_check(bytes) {
        problems.push(e);
    }
    if problems.is_empty() {
        eprintln!("docs/results: index, docs/RESULTS.md and README.md up to date; {}", size_line(bytes));
        Ok(())
    } else {
        Err(format!("results check failed:\n  {}\n(run `cargo xtask results`)", problems.join("\n  ")))
    }
}

/// `cargo xtask results [--check]`: writes the three files, or with `--check` only compares.
pub fn results(args: &[String]) -> Res {
    let root = crate::root();
    if args.iter().any(|a| a == "--check") {
        return check(&root);
    }
    for (path, content) in generate(&root)? {
        std::fs::write(&path, content).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("wrote {}", path.display());
    }
    let bytes = dir_bytes(&root.join("docs/results"))?;
    size_check(bytes)?;
    eprintln!("docs/results: {}", size_line(bytes));
    Ok(())
}

/// What the size check counted, for the message of a passing check: the
/// sum of the file sizes, which is less than `du` reports (`du` counts
/// directories and blocks too), and what is left.
fn size_line(bytes: u64) -> String {
    format!(
        "{bytes} bytes of files ({:.2} MB), {} bytes left of the {MAX_RESULTS_BYTES} (3 MiB) limit (`du` counts \
         directories and blocks too, so it reads more)",
        bytes as f64 / 1e6,
        MAX_RESULTS_BYTES.saturating_sub(bytes)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const MD: &str = "# polymul benchmark results\n\n\
        - device: NVIDIA H100 80GB HBM3 (sm_90)\n- date: 2026-11-25\n\
        - command: `polymul-bench bench --only goals`\n- polymul 0.1.0 (commit 99159567a5b9)\n\n\
        ## Ceiling\n\n| bytes | GB/s |\n|---|---|\n| 1 | 2 |\n\n\
        ## Against the goals (issue 14)\n\nµs per polynomial.\n\n\
        | row | goal | floor (compute | memory) | met |\n|---|---|---|---|\n\
        | u64 forward | ≤ 1.00 | 0.5 | 0.2 | yes |\n| u32 forward | ≤ 0.3 | 0.2 | 0.1 | no |\n\
        | batch 32 | ≥ 80% | — | no |\n\n\
        ## Next\n\n| a |\n|---|\n| b |\n";

    #[test]
    fn results_extracts_the_table_under_a_heading() {
        let s = extract_section(MD, "Against the goals").unwrap();
        assert_eq!(s.heading, "Against the goals (issue 14)");
        assert_eq!(s.prose, "µs per polynomial.");
        assert_eq!(s.table.header, ["row", "goal", "floor (compute", "memory)", "met"]);
        assert_eq!(s.table.rows.len(), 3);
        assert_eq!(s.table.rows[1], ["u32 forward", "≤ 0.3", "0.2", "0.1", "no"]);
        // The delimiter row follows the header's cell count; the cells are verbatim.
        let r = s.table.render();
        assert!(r.starts_with("| row | goal | floor (compute | memory) | met |\n|---|---|---|---|---|\n"));
        assert!(r.contains("| u64 forward | ≤ 1.00 | 0.5 | 0.2 | yes |\n"));
        assert!(
            extract_section(MD, "Ceiling").unwrap().table.rows == [vec!["1".to_string(), "2".to_string()]]
        );
        assert!(extract_section(MD, "Missing").is_none());
    }

    #[test]
    fn results_selects_columns_and_reads_the_stamp() {
        let t = extract_section(MD, "Against").unwrap().table;
        let s = t.select(&["row", "met"]).unwrap();
        // The last row prints the floor group as one cell: `met` is still found, from the end.
        assert_eq!(
            s.render(),
            "| row | met |\n|---|---|\n| u64 forward | yes |\n| u32 forward | no |\n| batch 32 | no |\n"
        );
        assert_eq!(t.select(&["goal"]).unwrap().rows[2], ["≥ 80%"]);
        assert!(t.select(&["row", "nope"]).is_none());
        // The one-cell header of 2026-11-26 with rows that still print two floor cells.
        let mid = Table {
            header: ["row", "floor µs (compute / memory)", "met"].map(String::from).to_vec(),
            rows: vec![
                ["a", "0.6", "0.3", "yes"].map(String::from).to_vec(),
                ["b", "—", "no"].map(String::from).to_vec(),
            ],
        };
        assert_eq!(mid.select(&["row", "met"]).unwrap().rows, vec![vec!["a", "yes"], vec!["b", "no"]]);
        let st = stamp(MD);
        assert_eq!(st[0].1, "NVIDIA H100 80GB HBM3 (sm_90)");
        assert_eq!(st[1].1, "2026-11-25");
        assert_eq!(st[2].1, "99159567a5b9");
        assert_eq!(st[3].1, "`polymul-bench bench --only goals`");
        assert_eq!(stamp("# x\n")[2].1, "not stated");
    }

    #[test]
    fn results_size_check_limits_to_3_mib() {
        assert_eq!(MAX_RESULTS_BYTES, 3 * 1024 * 1024);
        assert!(size_check(0).is_ok());
        assert!(size_check(MAX_RESULTS_BYTES).is_ok());
        let e = size_check(MAX_RESULTS_BYTES + 1).unwrap_err();
        assert!(e.contains("raw.tar.xz"), "{e}");
        let dir = std::env::temp_dir().join(format!("polymul-results-size-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("a/b")).unwrap();
        std::fs::write(dir.join("x"), [0u8; 10]).unwrap();
        std::fs::write(dir.join("a/b/y"), [0u8; 32]).unwrap();
        assert_eq!(dir_bytes(&dir).unwrap(), 42);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn results_latest_is_newest_date_then_order() {
        let run = |name: &str, kinds: &str, order: u32| {
            let readme =
                format!("# T {name}\n\n<!-- results: kinds={kinds}; order={order}; goals=g.md -->\n");
            parse_run(name, &readme).unwrap()
        };
        let mut runs = vec![
            run("2026-11-24-nvidia-h100-a", "goals", 9),
            run("2026-11-25-nvidia-h100-b", "goals,latency", 32),
            run("2026-11-25-nvidia-h100-c", "latency", 36),
            run("2026-11-25-nvidia-h100-d", "goals", 17),
        ];
        sort_newest_first(&mut runs);
        let names: Vec<&str> = runs.iter().map(|r| &r.name[11..]).collect();
        assert_eq!(names, ["nvidia-h100-c", "nvidia-h100-b", "nvidia-h100-d", "nvidia-h100-a"]);
        let l = latest(&runs);
        assert_eq!(l["goals"].name, "2026-11-25-nvidia-h100-b");
        assert_eq!(l["latency"].name, "2026-11-25-nvidia-h100-c");
        assert_eq!(runs[1].files["goals"], "g.md");
        assert_eq!(runs[1].device, "NVIDIA H100 80GB HBM3");
        let idx = index_md(&runs);
        assert_eq!(idx.matches("(latest)").count(), 2);
        assert!(parse_run("2026-11-25-cpu", "# T\n\n<!-- results: kinds=cpu; order=1 -->\n").is_err());
        assert!(parse_run("x", "# T\n").is_err());
    }

    #[test]
    fn results_splice_replaces_only_the_block() {
        let r = format!("a\n{BEGIN}\nold\n{END}\nb\n");
        assert_eq!(
            splice(&r, &format!("{BEGIN}\nnew\n{END}")).unwrap(),
            format!("a\n{BEGIN}\nnew\n{END}\nb\n")
        );
        assert!(splice("no markers", "x").is_err());
    }
}
