//! `polymul tune`: time the NTT and DGT candidates on this GPU
//! ([`polymul::planner::tune::tune`]), print the winners and write the
//! wisdom file that `polymul ntt | intt | mul` and
//! [`polymul::planner::Wisdom::load_default`] read. The one tuning
//! front-end (`cargo xtask tune` runs it; `polymul-bench tune` is gone).
//!
//! Stdout: a Markdown report — the device, the date and the command, then
//! the winners table — as recorded in `docs/results/`. Stderr: a progress
//! bar on a terminal, else one line per key (a log).

use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use polymul::planner::default_wisdom_path;
use polymul::planner::tune::{TuneSpec, tune};

use crate::error::{CliError, Result, exit_code};

/// Runs the tuner; `out`: the wisdom file (default: the user's cache).
///
/// # Errors
/// A wisdom path that cannot be written (checked first, exit code 1), no
/// GPU, a CUDA failure.
pub fn run(quick: bool, out: Option<PathBuf>) -> Result<u8> {
    let path = out.or_else(default_wisdom_path).ok_or_else(|| {
        CliError::usage("no place for the wisdom file: set POLYMUL_WISDOM or HOME, or pass --out FILE")
    })?;
    // Before minutes of measuring: the wisdom file must be writable.
    crate::io::check_writable_file(&path)?;
    let gpu = polymul_bench::env_options::gpu().map_err(|e| CliError {
        code: exit_code(e.kind()),
        message: format!("{e}; tuning measures a GPU"),
    })?;
    let spec = TuneSpec::new(quick);
    let wisdom = if std::io::stderr().is_terminal() {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template("tuning [{elapsed_precise}] {bar:30} {pos}/{len} {msg}")
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
        );
        let mut progress = |done: usize, total: usize, what: &str| {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            bar.set_message(what.to_string());
        };
        let wisdom = tune(&gpu, &spec, &mut progress);
        bar.finish_and_clear();
        wisdom
    } else {
        let t0 = Instant::now();
        let mut progress = |done: usize, total: usize, what: &str| {
            eprintln!("  [{done:>3}/{total}] {:>6.1} s  {what}", t0.elapsed().as_secs_f64());
        };
        tune(&gpu, &spec, &mut progress)
    }
    .map_err(CliError::from)?;
    let i = gpu.info();
    let command = std::env::args().collect::<Vec<_>>().join(" ");
    crate::io::print_stdout(&format!(
        "# polymul tune\n\n- device: {} (driver {}, kernels: {})\n- date: {}\n- command: `{command}`\n\n{}",
        i.name,
        i.driver_version,
        i.kernel_image,
        polymul_bench::report::today_utc(),
        wisdom.markdown_table()
    ));
    wisdom.save(&path).map_err(CliError::from)?;
    eprintln!("polymul: wisdom for {} written to {}", i.name, path.display());
    Ok(0)
}
