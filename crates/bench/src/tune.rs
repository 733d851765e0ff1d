//! `polymul-bench tune`: run [`polymul::planner::tune::tune`] on this
//! device, print the winners, and write the wisdom file (`--out FILE`, else
//! the user's default wisdom path).

use crate::Options;
use polymul::Gpu;
use polymul::planner::tune::{TuneSpec, tune};
use polymul::planner::{Winner, default_wisdom_path};

/// Runs the tuner; returns the exit code.
pub fn run(opts: &Options) -> i32 {
    let gpu = match Gpu::new() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("polymul-bench tune: {e} (tuning needs a GPU)");
            return 1;
        }
    };
    let spec = TuneSpec {
        quick: opts.quick,
        log_ns: if opts.quick { vec![10, 12, 14, 16] } else { (10..=17).collect() },
        ..TuneSpec::default()
    };
    let t0 = std::time::Instant::now();
    let mut progress = |done: usize, total: usize, what: &str| {
        eprintln!("  [{done:>3}/{total}] {:>6.1} s  {what}", t0.elapsed().as_secs_f64());
    };
    let wisdom = match tune(&gpu, &spec, &mut progress) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("polymul-bench tune: {e}");
            return 1;
        }
    };
    let i = gpu.info();
    println!("# polymul tune\n");
    println!("- device: {} (driver {}, kernels: {})", i.name, i.driver_version, i.kernel_image);
    println!("- date: {}", crate::report::today_utc());
    println!("- command: `{}`\n", opts.command_line);
    println!("| N | word | towers | batch bucket | winner | µs per polynomial | candidates |");
    println!("|---|---|---|---|---|---|---|");
    for e in &wisdom.entries {
        let w = match e.winner {
            Winner::Ntt { kernel, radix: Some(r) } => format!("NTT {} r{r}", kernel.name()),
            Winner::Ntt { kernel, radix: None } => format!("NTT {}", kernel.name()),
            Winner::Dgt { config } => format!("DGT {config}"),
        };
        let k = &e.key;
        println!(
            "| 2^{} | u{} | {} | 2^{} | {w} | {:.4} | {} |",
            k.log_n, k.word_bits, k.towers, k.batch_bucket, e.us_per_poly, e.candidates
        );
    }
    let path = opts.out.clone().or_else(default_wisdom_path);
    match path {
        Some(p) => match wisdom.save(&p) {
            Ok(()) => {
                eprintln!("wisdom written to {}", p.display());
                0
            }
            Err(e) => {
                eprintln!("polymul-bench tune: {e}");
                1
            }
        },
        None => {
            eprintln!("polymul-bench tune: no wisdom path (set POLYMUL_WISDOM or HOME, or pass --out FILE)");
            1
        }
    }
}
