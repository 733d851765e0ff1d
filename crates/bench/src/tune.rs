//! `polymul-bench tune`: run [`polymul::planner::tune::tune`] on this
//! device, print the winners, and write the wisdom file (`--out FILE`, else
//! the user's default wisdom path).

use crate::Options;
use polymul::Gpu;
use polymul::planner::default_wisdom_path;
use polymul::planner::tune::{TuneSpec, tune};

/// Runs the tuner; returns the exit code.
pub fn run(opts: &Options) -> i32 {
    let gpu = match Gpu::new() {
        Ok(g) => g,
        Err(e) => {
            eprintln!("polymul-bench tune: {e} (tuning needs a GPU)");
            return 1;
        }
    };
    let spec = TuneSpec::new(opts.quick);
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
    print!("{}", wisdom.markdown_table());
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
