//! `polymul-bench`: the GPU check suite and the benchmark runner.
//!
//! ```text
//! polymul-bench check [--quick] [--only words,lazy-fused,products,reductions,tiles,fused,rns,convert,dgt,planner,concurrency,api,graphs,soundness,options,props,errors,split]
//!                     [--seed S] [--cases K] [--log-n 10,17]
//!                                          GPU == CPU bit for bit; prints "N passed, N failed"
//! polymul-bench bench [--quick] [--out DIR] [--cpu] [--only goals,latency,ntt,reductions,table3,tiles,fused,rns,crt,dgt,anchor,split,staging]
//!                       (split, and check's split suite, run only when named)
//!                       (without a GPU or with --cpu: --only cpu-backend,cpu-scaling,cpu-reference,anchor)
//! polymul-bench replot DIR                 redraw DIR's figures from its CSV files
//! polymul-bench soak [--minutes M] [--threads T] [--seed S] [--faults on|off] [--hog-process on|off]
//!                    [--hog-margin-mib M] [--max-operand-mib M] [--mem-tolerance-mib M] [--big on|off] [--warm-up on|off]
//!                    [--stall-seconds S]
//!                    [--replay SEED:THREAD:CALL]
//!                                          a long randomized run with fault injection (docs/testing.md)
//! polymul-bench profile WORD LOG_N BATCH [CONFIG [REDUCTION]]   3 timed forward NTTs, for ncu
//!                                          (CONFIG: a configuration name with `-` for spaces, e.g. tiled-r8,
//!                                          or a check variant, e.g. lazy-computed)
//! polymul-bench profile-ciphertext WORD LOG_N TOWERS OP [REPS]        one ciphertext row's call, checked then timed, for ncu
//! polymul-bench profile-dgt LOG_N TOWERS [BATCH] [K1,LOGλ1,LOGλ2,LOGR]   timed DGT forwards and polymuls (default configuration, or the one given), for ncu
//! ```
//!
//! Built on a CPU-only machine, carried to a GPU machine (no Rust needed
//! there: the PTX is embedded), see `cargo xtask gpu-bundle`.

use polymul_bench::{Options, bench, check};

fn usage() -> ! {
    eprintln!(
        "usage: polymul-bench check [--quick] [--only SUITES] [--seed S] [--cases K] [--log-n L,..]\n       polymul-bench bench [--quick] [--cpu] [--out DIR] \
         [--only goals,ciphertext,latency,ntt,reductions,table3,tiles,fused,rns,crt,dgt,anchor,split]\n       \
         polymul-bench profile-ciphertext WORD LOG_N TOWERS forward|inverse|product|tensor|tensor-into [REPS]\n       \
         polymul-bench replot DIR\n       \
         polymul-bench profile-dgt LOG_N TOWERS [BATCH] [STAGES1,LOG_CLUSTER1,LOG_CLUSTER2,LOG_UNIT]\n       \
         polymul-bench soak [--minutes M] [--threads T] [--seed S] [--faults on|off] [--hog-process on|off] \
         [--hog-margin-mib M] [--max-operand-mib M] [--mem-tolerance-mib M] [--big on|off] [--warm-up on|off] [--stall-seconds S] [--replay S:T:I]"
    );
    std::process::exit(2)
}

/// Timed calls of `profile` and `profile-dgt` (after their CPU check): the
/// environment variable `POLYMUL_PROFILE_REPS`, 20 if unset or not a number.
fn profile_reps() -> usize {
    std::env::var("POLYMUL_PROFILE_REPS").ok().and_then(|v| v.parse().ok()).unwrap_or(20)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(cmd) = args.first() else { usage() };
    match cmd.as_str() {
        "soak" => match polymul_bench::soak::parse(&args[1..]) {
            Ok(o) => std::process::exit(polymul_bench::soak::run(&o)),
            Err(e) => {
                eprintln!("polymul-bench soak: {e}");
                usage()
            }
        },
        // The soak's second process (`--hog-process on`), not for users.
        "hog" => std::process::exit(polymul_bench::soak::faults::hog_main(&args[1..])),
        // The check suite's soundness case of a buffer outliving every `Gpu`
        // handle, in a process where no other handle exists.
        "outlive-gpu" => std::process::exit(check::outlive_gpu_main()),
        // One ciphertext row's call in a loop, for Nsight Compute.
        "profile-ciphertext" => std::process::exit(polymul_bench::ciphertext::profile(&args[1..])),
        _ => {}
    }
    let mut opts =
        Options { command_line: std::env::args().collect::<Vec<_>>().join(" "), ..Options::default() };
    let positional = match cmd.as_str() {
        "replot" => 1,
        "profile" => 5,
        "profile-dgt" => 4,
        _ => 0,
    };
    let mut it = args[1..].iter().skip(positional);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--quick" => opts.quick = true,
            "--cpu" => opts.force_cpu = true,
            "--out" => opts.out = Some(it.next().unwrap_or_else(|| usage()).into()),
            "--only" => {
                opts.only = it.next().unwrap_or_else(|| usage()).split(',').map(str::to_string).collect()
            }
            "--seed" => opts.seed = Some(it.next().and_then(|v| v.parse().ok()).unwrap_or_else(|| usage())),
            "--log-n" => {
                let v = it.next().unwrap_or_else(|| usage());
                opts.log_n = Some(v.split(',').map(|x| x.parse().unwrap_or_else(|_| usage())).collect())
            }
            "--cases" => opts.cases = Some(it.next().and_then(|v| v.parse().ok()).unwrap_or_else(|| usage())),
            _ => usage(),
        }
    }
    let code = match cmd.as_str() {
        "check" => check::run(&opts),
        "bench" => bench::run(&opts),
        "profile" => {
            let num = |i: usize, d: u32| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
            let name = args.get(4).map_or("auto", String::as_str);
            // The benchmark's configurations, then the check suite's
            // variants (`lazy-computed`, `lazy-tables`, …).
            let all = || bench::configs().into_iter().chain(check::variants());
            let Some((_, o)) = all().find(|(n, _)| n.replace(' ', "-") == name) else {
                eprintln!(
                    "unknown configuration {name}; one of: {}",
                    all().map(|(n, _)| n.replace(' ', "-")).collect::<Vec<_>>().join(", ")
                );
                std::process::exit(2)
            };
            let reduction =
                args.get(5).and_then(|s| polymul::expert::Reduction::from_name(s)).unwrap_or_default();
            bench::profile(num(1, 64), num(2, 16), num(3, 512) as usize, o, reduction, profile_reps())
        }
        "profile-dgt" => {
            let num = |i: usize, d: usize| args.get(i).and_then(|s| s.parse().ok()).unwrap_or(d);
            // An optional configuration `stages1,log_cluster1,log_cluster2,log_unit`.
            let cfg = args.get(4).map(|s| {
                let v: Vec<u32> = s.split(',').map(|x| x.parse().unwrap_or_else(|_| usage())).collect();
                match v[..] {
                    [stages1, log_cluster1, log_cluster2, log_unit] => {
                        polymul::dgt::DgtConfig { stages1, log_cluster1, log_cluster2, log_unit }
                    }
                    _ => usage(),
                }
            });
            polymul_bench::dgt::profile(num(1, 16) as u32, num(2, 1), num(3, 1), cfg, profile_reps())
        }
        "tune" => {
            eprintln!(
                "polymul-bench tune is gone: run `polymul tune [--quick] [--out FILE]` (the polymul CLI)"
            );
            2
        }
        "replot" => match args.get(1) {
            Some(dir) => bench::replot(std::path::Path::new(dir)),
            None => usage(),
        },
        _ => usage(),
    };
    std::process::exit(code)
}
