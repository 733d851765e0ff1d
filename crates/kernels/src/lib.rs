//! # polymul-kernels
//!
//! The device side of polymul: modular arithmetic and NTT kernels written in
//! plain `no_std` Rust.
//!
//! The same source compiles twice:
//!
//! * for `nvptx64-nvidia-cuda`, where the `entry` module exposes `extern "ptx-kernel"`
//!   entry points that `polymul-ptx-builder` links into PTX;
//! * for the host, where the host crate calls the very same per-thread bodies
//!   (for example [`ntt::radix2::ct_butterfly`]) in a loop, so every kernel's
//!   arithmetic is tested on a CPU.
//!
//! Nothing in here allocates, formats or panics: index arithmetic uses shifts
//! and masks (no `/` or `%` by run-time values), memory is reached through raw
//! pointers (no bounds checks), and the PTX build fails if a panic or
//! `core::fmt` symbol survives linking.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx, stdarch_nvptx, asm_experimental_arch))]

pub mod arith;
pub mod dgt;
pub mod gmem;
pub mod microbench;
pub mod ntt;
pub mod pointwise;
pub mod smem;
pub mod towers;
pub mod word;

#[cfg(target_arch = "nvptx64")]
pub mod entry;
#[cfg(target_arch = "nvptx64")]
mod gpu;

pub use word::Word;

/// Threads per block used by the element-wise and radix-2 kernels.
///
/// The host launch code reads this constant, so the two sides cannot disagree.
pub const BLOCK_THREADS: u32 = 256;

/// Default bytes of the shared-memory tile of a tiled-NTT block (4096 `u64`
/// or 8192 `u32` words); plans may choose other powers of two up to the
/// device's per-block limit (dynamic shared memory).
pub const TILE_BYTES: usize = 32 * 1024;

#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    // Never reached: the build checks that no panic path survives in the PTX.
    // `trap` aborts the kernel with an error the host sees at synchronisation.
    unsafe { core::arch::nvptx::trap() }
}

/// Names of the kernel entry points, shared by the device and the host.
///
/// NTT stages and microbenchmarks exist once per reduction and word:
/// `<base>_<reduction>_<word>`, e.g. `ntt_fwd_radix2_stage_barrett4_u64`;
/// the pointwise product once per word: `pointwise_mul_u64`.
pub mod names {
    /// One forward merged-CT radix-2 stage in global memory.
    pub const NTT_FWD_RADIX2_STAGE: &str = "ntt_fwd_radix2_stage";
    /// One inverse merged-GS radix-2 stage (½-scaled) in global memory.
    pub const NTT_INV_RADIX2_STAGE: &str = "ntt_inv_radix2_stage";
    /// Forward shared-memory passes (contiguous or strided, see
    /// `ntt::tiled`), one kernel per largest radix 2, 4, 8, 16.
    pub const NTT_FWD_TILED: [&str; 4] =
        ["ntt_fwd_tiled_r2", "ntt_fwd_tiled_r4", "ntt_fwd_tiled_r8", "ntt_fwd_tiled_r16"];
    /// Inverse shared-memory passes, per largest radix.
    pub const NTT_INV_TILED: [&str; 4] =
        ["ntt_inv_tiled_r2", "ntt_inv_tiled_r4", "ntt_inv_tiled_r8", "ntt_inv_tiled_r16"];

    /// The tiled kernel base name for a direction and `log2` of the largest
    /// radix (`1..=4`; clamped).
    pub fn tiled(inverse: bool, log_radix: u32) -> &'static str {
        let i = (log_radix.clamp(1, 4) - 1) as usize;
        if inverse { NTT_INV_TILED[i] } else { NTT_FWD_TILED[i] }
    }
    /// The lazy-butterfly compute floor, `butterfly_floor_<word>`.
    pub const BUTTERFLY_FLOOR: &str = "butterfly_floor";
    /// The launch floor: an empty kernel that waits for its predecessor
    /// (a chain of them costs what launching that many kernels costs).
    pub const LAUNCH_FLOOR: &str = "launch_floor";
    /// Microbenchmark, corrections written as `if`.
    pub const MODMUL_BENCH_IF: &str = "modmul_bench_if";
    /// Microbenchmark, corrections by mask (select).
    pub const MODMUL_BENCH_SELECT: &str = "modmul_bench_select";
    /// Element-wise modular product.
    pub const POINTWISE_MUL: &str = "pointwise_mul";
    /// The fused Hadamard step of the fused polymul (Algorithm 8).
    pub const FUSED_HADAMARD: &str = "fused_hadamard";
    /// DGT shared-memory passes (Coala's kernels; `dgt::pass::DgtArgs`),
    /// one per `dgt::pass::Op` (forward, inverse, polymul), `<name>_<word>`.
    pub const DGT_PASS: [&str; 3] = ["dgt_forward", "dgt_inverse", "dgt_polymul"];
    /// DGT encoding (weights, packing), `dgt_encode_<word>`.
    pub const DGT_ENCODE: &str = "dgt_encode";
    /// DGT decoding (unpacking, inverse weights), `dgt_decode_<word>`.
    pub const DGT_DECODE: &str = "dgt_decode";
    /// Pointwise Gaussian product, `dgt_pointwise_<word>`.
    pub const DGT_POINTWISE: &str = "dgt_pointwise";
    /// The DGT kernels (one per word each).
    pub const DGT: &[&str] = &[DGT_PASS[0], DGT_PASS[1], DGT_PASS[2], DGT_ENCODE, DGT_DECODE, DGT_POINTWISE];
    /// Kernels that exist per reduction.
    pub const PER_REDUCTION: &[&str] = &[
        NTT_FWD_RADIX2_STAGE,
        NTT_INV_RADIX2_STAGE,
        NTT_FWD_TILED[0],
        NTT_FWD_TILED[1],
        NTT_FWD_TILED[2],
        NTT_FWD_TILED[3],
        NTT_INV_TILED[0],
        NTT_INV_TILED[1],
        NTT_INV_TILED[2],
        NTT_INV_TILED[3],
        MODMUL_BENCH_IF,
        MODMUL_BENCH_SELECT,
        FUSED_HADAMARD,
    ];
    /// [`crate::arith::ModMul::NAME`] of every reduction with kernels.
    pub const REDUCTIONS: &[&str] = &["rem", "barrett2", "dq3", "barrett4", "montgomery", "shoup"];
    /// Word suffixes.
    pub const WORDS: &[&str] = &["u32", "u64"];

    /// The `l` of every lazy row-pass kernel (`ntt::lazy`).
    pub const LAZY_ROW_L: core::ops::RangeInclusive<u32> =
        crate::ntt::lazy::MIN_ROW_L..=crate::ntt::lazy::MAX_ROW_L;
    /// The `l` of every lazy column-pass kernel.
    pub const LAZY_COL_L: core::ops::RangeInclusive<u32> =
        crate::ntt::lazy::MIN_COL_L..=crate::ntt::lazy::MAX_COL_L;
    /// The register radices (`log2`) every lazy pass is compiled for.
    pub const LAZY_LOG_RADIX: [u32; 2] = [3, 4];
    /// The register radices (`log2`) of the latency-shape passes: radix 4
    /// too, whose four times as many threads per word keep more warps of
    /// each SM busy when one polynomial is spread over the whole GPU.
    pub const LATENCY_LOG_RADIX: [u32; 3] = [2, 3, 4];

    /// A lazy pass kernel: direction, pass kind, `l`, `log2` of the radix.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct LazyKernel {
        /// [`crate::ntt::lazy::FORWARD`], `INVERSE` or `PRODUCT` (row passes only).
        pub mode: u8,
        /// Column pass or row pass.
        pub strided: bool,
        /// `log2` of the sub-transform's points.
        pub l: u32,
        /// `log2` of the largest register radix (3 or 4).
        pub log_r: u32,
        /// The latency shape ([`crate::ntt::lazy::Shape::latency`]: two
        /// sub-transforms per block) instead of a full tile.
        pub latency: bool,
    }

    /// A kernel name built without allocating: at most 48 bytes.
    #[derive(Debug, Clone, Copy)]
    pub struct Name {
        buf: [u8; 48],
        len: usize,
    }

    impl Name {
        fn new() -> Self {
            Self { buf: [0; 48], len: 0 }
        }
        fn push(&mut self, s: &str) {
            for &b in s.as_bytes() {
                if self.len < self.buf.len() {
                    self.buf[self.len] = b;
                    self.len += 1;
                }
            }
        }
        fn push_num(&mut self, v: u32) {
            if v >= 10 {
                self.push_num(v / 10);
            }
            let d = [b'0' + (v % 10) as u8];
            self.push(core::str::from_utf8(&d).unwrap_or("?"));
        }
        /// The name.
        pub fn as_str(&self) -> &str {
            core::str::from_utf8(&self.buf[..self.len]).unwrap_or("")
        }
    }

    impl LazyKernel {
        /// The symbol, `ntt_lazy_<fwd|inv>_<row|col>_l<l>_r<log_r>_<word>`.
        pub fn name(&self, word: &str) -> Name {
            let mut n = Name::new();
            n.push("ntt_lazy_");
            n.push(match self.mode {
                crate::ntt::lazy::FORWARD => "fwd_",
                crate::ntt::lazy::INVERSE => "inv_",
                _ => "mul_",
            });
            n.push(if self.strided { "col_l" } else { "row_l" });
            n.push_num(self.l);
            n.push("_r");
            n.push_num(self.log_r);
            if self.latency {
                n.push("_s");
                n.push_num(crate::ntt::lazy::LATENCY_LOG_S);
            }
            n.push("_");
            n.push(word);
            n
        }

        /// The kernel's compile-time shape for `word_bytes`-byte words.
        pub const fn shape(&self, word_bytes: usize) -> crate::ntt::lazy::Shape {
            use crate::ntt::lazy::Shape;
            if self.latency {
                Shape::latency(self.l, self.log_r, self.strided)
            } else {
                Shape::new(self.l, self.log_r, self.strided, word_bytes)
            }
        }

        /// Every lazy kernel of one word (`word_bytes`-byte words): those of
        /// [`LazyKernel::all`] and, for `u32`, the one-pass rows of
        /// [`crate::ntt::lazy::WIDE_ROW_L`] points at radix 16.
        pub fn all_for(word_bytes: usize) -> impl Iterator<Item = LazyKernel> {
            use crate::ntt::lazy::{FORWARD, INVERSE, PRODUCT, WIDE_ROW_L};
            let wide = if word_bytes == 4 { &[FORWARD, INVERSE, PRODUCT][..] } else { &[][..] };
            Self::all().chain(wide.iter().map(|&mode| LazyKernel {
                mode,
                strided: false,
                l: WIDE_ROW_L,
                log_r: 4,
                latency: false,
            }))
        }

        /// The lazy kernels both words have.
        pub fn all() -> impl Iterator<Item = LazyKernel> {
            use crate::ntt::lazy::{FORWARD, INVERSE, PRODUCT};
            [FORWARD, INVERSE, PRODUCT].into_iter().flat_map(|mode| {
                [false, true].into_iter().filter(move |&st| !(st && mode == PRODUCT)).flat_map(
                    move |strided| {
                        let ls = if strided { LAZY_COL_L } else { LAZY_ROW_L };
                        let full = ls.flat_map(move |l| {
                            LAZY_LOG_RADIX.into_iter().map(move |log_r| LazyKernel {
                                mode,
                                strided,
                                l,
                                log_r,
                                latency: false,
                            })
                        });
                        let small = crate::ntt::lazy::LATENCY_L.flat_map(move |l| {
                            LATENCY_LOG_RADIX.into_iter().map(move |log_r| LazyKernel {
                                mode,
                                strided,
                                l,
                                log_r,
                                latency: true,
                            })
                        });
                        full.chain(small)
                    },
                )
            })
        }
    }

    /// A cluster kernel (`ntt::cluster`): direction, `log2 N`, `log2` of the radix.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct ClusterKernel {
        /// Inverse or forward.
        pub inverse: bool,
        /// `log2 N` (one of `ntt::cluster::SHAPES`).
        pub log_n: u32,
        /// `log2` of the radix (3 or 4).
        pub log_r: u32,
    }

    impl ClusterKernel {
        /// The symbol, `ntt_lazy_<fwd|inv>_clu_n<log_n>_r<log_r>_<word>`.
        pub fn name(&self, word: &str) -> Name {
            let mut n = Name::new();
            n.push(if self.inverse { "ntt_lazy_inv_clu_n" } else { "ntt_lazy_fwd_clu_n" });
            n.push_num(self.log_n);
            n.push("_r");
            n.push_num(self.log_r);
            n.push("_");
            n.push(word);
            n
        }

        /// Every cluster kernel of one word.
        pub fn all() -> impl Iterator<Item = ClusterKernel> {
            crate::ntt::cluster::SHAPES.into_iter().flat_map(|(log_n, _, _)| {
                [false, true].into_iter().flat_map(move |inverse| {
                    LAZY_LOG_RADIX.into_iter().map(move |log_r| ClusterKernel { inverse, log_n, log_r })
                })
            })
        }
    }

    /// A fused lazy transform (`lazy::fused_item`): direction, `log2 N`,
    /// `log2` of the radix of both passes.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
    pub struct FusedKernel {
        /// Inverse or forward.
        pub inverse: bool,
        /// `log2 N` (one of `lazy::fused_sizes`).
        pub log_n: u32,
        /// `log2` of the radix (3 or 4).
        pub log_r: u32,
    }

    impl FusedKernel {
        /// The symbol, `ntt_lazy_<fwd|inv>_fus_n<log_n>_r<log_r>_<word>`.
        pub fn name(&self, word: &str) -> Name {
            let mut n = Name::new();
            n.push(if self.inverse { "ntt_lazy_inv_fus_n" } else { "ntt_lazy_fwd_fus_n" });
            n.push_num(self.log_n);
            n.push("_r");
            n.push_num(self.log_r);
            n.push("_");
            n.push(word);
            n
        }

        /// Every fused kernel of one word.
        pub fn all_for(word_bytes: usize) -> impl Iterator<Item = FusedKernel> {
            crate::ntt::lazy::fused_sizes(word_bytes).flat_map(|log_n| {
                [false, true].into_iter().flat_map(move |inverse| {
                    LAZY_LOG_RADIX.into_iter().map(move |log_r| FusedKernel { inverse, log_n, log_r })
                })
            })
        }

        /// The register cap: 32 for `u32` (four 512-thread blocks per SM:
        /// Nsight Compute on the H100 showed the forward kernel at N = 2^16
        /// with 40 registers latency-bound at three blocks, 66% occupancy,
        /// 2.6 eligible warps per scheduler, and the inverse with 32 at 91%
        /// occupancy, 15% faster), else its row pass's
        /// ([`crate::ntt::lazy::max_regs`]).
        pub fn max_regs(&self, word_bytes: usize) -> Option<u32> {
            use crate::ntt::lazy::{FORWARD, INVERSE, max_regs, split, tile_words};
            let (_, l2) = split(self.log_n, tile_words(word_bytes).trailing_zeros())?;
            if word_bytes == 4 && self.log_r == 4 {
                return Some(32);
            }
            max_regs(word_bytes, if self.inverse { INVERSE } else { FORWARD }, false, l2, self.log_r)
        }
    }

    /// Calls `f` with the symbol of every entry point of the module built
    /// for `sm_<arch>` (the cluster kernels exist from sm_90).
    pub fn for_each_entry(arch: u32, mut f: impl FnMut(&str)) {
        for parts in entries() {
            let mut n = Name::new();
            for (i, p) in parts.iter().filter(|p| !p.is_empty()).enumerate() {
                if i > 0 {
                    n.push("_");
                }
                n.push(p);
            }
            f(n.as_str());
        }
        f(LAUNCH_FLOOR);
        for w in WORDS {
            let mut n = Name::new();
            n.push(BUTTERFLY_FLOOR);
            n.push("_");
            n.push(w);
            f(n.as_str());
            for k in LazyKernel::all_for(if *w == "u32" { 4 } else { 8 }) {
                f(k.name(w).as_str());
            }
            for k in ClusterKernel::all().filter(|_| arch >= 90) {
                f(k.name(w).as_str());
            }
            for k in FusedKernel::all_for(if *w == "u32" { 4 } else { 8 }) {
                f(k.name(w).as_str());
            }
        }
    }

    /// Calls `f` with the symbol and register cap (PTX `.maxnreg`) of every
    /// entry point of the module for `sm_<arch>` that has one
    /// ([`crate::ntt::lazy::max_regs`], [`crate::dgt::pass::max_regs`]);
    /// the kernel build adds the directives to the PTX. The occupancy caps
    /// were measured on sm_90 and apply there; below, only the caps a block needs to launch at all
    /// (1024 threads: at most 64 registers) apply, and the compiler chooses
    /// the rest.
    pub fn for_each_register_cap(arch: u32, mut f: impl FnMut(&str, u32)) {
        use crate::ntt::lazy::max_regs;
        for (w, bytes) in [("u32", 4), ("u64", 8)] {
            use crate::dgt::pass::Op;
            for (name, op) in DGT_PASS.iter().zip([Op::Forward, Op::Inverse, Op::Polymul]) {
                let mut n = Name::new();
                n.push(name);
                n.push("_");
                n.push(w);
                f(n.as_str(), crate::dgt::pass::max_regs(op, bytes, arch));
            }
            for k in FusedKernel::all_for(bytes) {
                if let Some(cap) = k.max_regs(bytes).filter(|_| arch >= 90) {
                    f(k.name(w).as_str(), cap);
                }
            }
            for k in LazyKernel::all_for(bytes) {
                let Some(cap) = max_regs(bytes, k.mode, k.strided, k.l, k.log_r) else { continue };
                let launch = cap * k.shape(bytes).threads() == 64 * 1024;
                if arch >= 90 || launch {
                    f(k.name(w).as_str(), cap);
                }
            }
        }
    }

    /// Every entry point as name parts, `[base, reduction, word]` (the
    /// reduction part is empty for the pointwise kernel); join the non-empty
    /// parts with `_` for the symbol.
    pub fn entries() -> impl Iterator<Item = [&'static str; 3]> {
        WORDS.iter().flat_map(|&w| {
            PER_REDUCTION
                .iter()
                .flat_map(move |&b| REDUCTIONS.iter().map(move |&r| [b, r, w]))
                .chain(core::iter::once([POINTWISE_MUL, "", w]))
                .chain(DGT.iter().map(move |&d| [d, "", w]))
        })
    }
}
