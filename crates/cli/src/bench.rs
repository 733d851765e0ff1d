//! `polymul bench`: the benchmark suite of `polymul-bench`
//! ([`polymul_bench::bench::run`]), with a spinner while it runs.
//!
//! The suite prints its progress to stderr and its tables to stdout itself.
//! When stderr is a terminal, the tool runs the suite in a child process of
//! itself and relays both streams line by line above an
//! [`indicatif`] spinner (so that the spinner never garbles a line);
//! otherwise (a pipe, a CI log) it runs the suite in place, without spinner.

use std::io::{BufRead, BufReader, IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

use crate::error::{CliError, Result};

/// The sections of the benchmark `--only` selects: polymul-bench's own
/// list, so the two never differ.
pub use polymul_bench::SECTIONS;

/// Set in the child process that runs the suite under the spinner.
const CHILD_ENV: &str = "POLYMUL_BENCH_CHILD";

/// `polymul bench`'s options.
#[derive(Debug, Clone)]
pub struct BenchJob {
    /// `--quick`.
    pub quick: bool,
    /// `--cpu`.
    pub cpu: bool,
    /// `--out DIR`.
    pub out: Option<PathBuf>,
    /// `--only` sections (empty: all).
    pub only: Vec<String>,
}

/// Runs the suite; returns its exit code (0 when every part ran).
///
/// # Errors
/// A results folder (`--out`) that cannot be written, checked before the
/// suite runs, or a child process that cannot be started (exit code 1).
pub fn run(job: &BenchJob) -> Result<u8> {
    // Before the suite runs: the results folder must be writable.
    if let Some(dir) = &job.out {
        crate::io::check_writable_dir(dir)?;
    }
    let in_child = std::env::var_os(CHILD_ENV).is_some();
    if !in_child && std::io::stderr().is_terminal() {
        return run_with_spinner();
    }
    let opts = polymul_bench::Options {
        quick: job.quick,
        force_cpu: job.cpu,
        out: job.out.clone(),
        command_line: std::env::args().collect::<Vec<_>>().join(" "),
        only: job.only.clone(),
        ..polymul_bench::Options::default()
    };
    Ok(u8::try_from(polymul_bench::bench::run(&opts)).unwrap_or(1))
}

/// Runs this same command line in a child process and relays its output
/// above a spinner.
fn run_with_spinner() -> Result<u8> {
    let fail = |e: std::io::Error| CliError::runtime(format!("cannot start the benchmark process: {e}"));
    let exe = std::env::current_exe().map_err(fail)?;
    let mut child = Command::new(exe)
        .args(std::env::args_os().skip(1))
        .env(CHILD_ENV, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(fail)?;
    let spinner = ProgressBar::new_spinner();
    spinner.set_style(
        ProgressStyle::with_template(
            "{spinner:.green} running the benchmark suite [{elapsed_precise}] {msg}",
        )
        .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    );
    spinner.enable_steady_tick(Duration::from_millis(120));
    let relay = |stream: Option<Box<dyn Read + Send>>, to_stdout: bool| {
        let spinner = spinner.clone();
        std::thread::spawn(move || {
            let Some(stream) = stream else { return };
            for line in BufReader::new(stream).lines().map_while(std::io::Result::ok) {
                let line = format!("{line}\n");
                spinner.suspend(|| {
                    if to_stdout {
                        crate::io::print_stdout(&line);
                    } else {
                        let _ = std::io::stderr().write_all(line.as_bytes());
                    }
                });
            }
        })
    };
    let out = relay(child.stdout.take().map(|s| Box::new(s) as Box<dyn Read + Send>), true);
    let err = relay(child.stderr.take().map(|s| Box::new(s) as Box<dyn Read + Send>), false);
    let status = child.wait().map_err(fail)?;
    // The relays end when the child closes its pipes.
    let _ = out.join();
    let _ = err.join();
    spinner.finish_and_clear();
    Ok(status.code().and_then(|c| u8::try_from(c).ok()).unwrap_or(1))
}
