//! The kernels' identifiers and symbols, shared by the device and the host.
//!
//! Every entry point has a typed identifier: a struct per kernel family
//! (the fields pick one kernel of it) that builds the symbol on a word
//! without allocating ([`Name`]) and names, through [`KernelAbi`], the
//! `#[repr(C)]` argument block the kernel takes as its only parameter. The
//! host looks a kernel up from its identifier and can then launch it only
//! with that block; `entry` declares each kernel's parameter as the same
//! [`KernelAbi::Args`], and [`for_each_entry`] enumerates every symbol from
//! these identifiers (the build checks that the PTX has exactly those
//! entries). One struct per family rather than one enum: each family has
//! its own argument type, which an associated type can tie only to a type.
//!
//! Symbols follow `<kernel>_<reduction>_<word>` for the families built per
//! reduction (e.g. `ntt_fwd_radix2_stage_barrett4_u64`), `<kernel>_<word>`
//! for the others (e.g. `pointwise_mul_u64`).

use crate::Word;
use crate::dgt::codec::{DgtCodecArgs, DgtPointwiseArgs};
use crate::dgt::pass::{DgtArgs, Op};
use crate::microbench::{ButterflyFloorArgs, ModMulBenchArgs};
use crate::ntt::lazy::LaunchArgs;
use crate::ntt::radix2::Radix2Args;
use crate::ntt::tiled::TiledArgs;
use crate::pointwise::{FusedHadamardArgs, PointwiseArgs};
use crate::reduced::ReducedArgs;
use crate::rns::crt::CrtArgs;
use crate::rns::crt_cols::{CrtColsArgs, CrtColsVariant};
use crate::rns::decompose::DecomposeArgs;
use crate::tensor::TensorArgs;

/// A kernel identifier tied to the argument block of its kernels.
pub trait KernelAbi: Copy {
    /// The kernel's only parameter on words `W`: a `#[repr(C)]` block
    /// passed by value, defined next to the kernel's algorithm.
    type Args<W: Word>: Copy;

    /// The symbol on the word named `word` (`"u32"`, `"u64"`).
    fn name(&self, word: &str) -> Name;

    /// The symbol on words `W` (whose kernel takes [`KernelAbi::Args<W>`]).
    fn symbol<W: Word>(&self) -> Name {
        self.name(W::NAME)
    }
}

/// Implements [`KernelAbi`] for identifiers whose inherent `name` builds the symbol.
macro_rules! abi {
    ($($id:ty => $args:ident;)*) => {
        $(
            impl KernelAbi for $id {
                type Args<W: Word> = $args<W>;
                fn name(&self, word: &str) -> Name {
                    <$id>::name(self, word)
                }
            }
        )*
    };
}

abi! {
    Radix2Kernel => Radix2Args;
    TiledKernel => TiledArgs;
    PointwiseKernel => PointwiseArgs;
    TensorKernel => TensorArgs;
    ReducedKernel => ReducedArgs;
    FusedHadamardKernel => FusedHadamardArgs;
    ModMulBenchKernel => ModMulBenchArgs;
    ButterflyFloorKernel => ButterflyFloorArgs;
    DgtPassKernel => DgtArgs;
    DgtCodecKernel => DgtCodecArgs;
    DgtPointwiseKernel => DgtPointwiseArgs;
    LazyKernel => LaunchArgs;
    FusedKernel => LaunchArgs;
    ClusterKernel => LaunchArgs;
    RnsDecomposeKernel => DecomposeArgs;
    RnsCrtKernel => CrtArgs;
    RnsCrtColsKernel => CrtColsArgs;
}

/// The launch floor: an empty kernel without parameters that waits for
/// its predecessor (a chain of them costs what launching that many
/// kernels costs). One per module, no word.
pub const LAUNCH_FLOOR: &str = "launch_floor";
/// Word suffixes.
pub const WORDS: &[&str] = &["u32", "u64"];

/// A reduction with kernels: the `<reduction>` part of their symbols
/// ([`crate::arith::ModMul::NAME`] of its type).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReductionKind {
    /// [`crate::arith::BuiltinRem`].
    Rem,
    /// [`crate::arith::BarrettClassic`] (Algorithm 2).
    Barrett2,
    /// [`crate::arith::DhemQuisquater`] (Algorithm 3).
    Dq3,
    /// [`crate::arith::Barrett4`] (Algorithm 4).
    Barrett4,
    /// [`crate::arith::Montgomery`].
    Montgomery,
    /// [`crate::arith::Shoup`].
    Shoup,
}

impl ReductionKind {
    /// Every reduction with kernels.
    pub const ALL: [ReductionKind; 6] = [
        ReductionKind::Rem,
        ReductionKind::Barrett2,
        ReductionKind::Dq3,
        ReductionKind::Barrett4,
        ReductionKind::Montgomery,
        ReductionKind::Shoup,
    ];

    /// The symbol part, [`crate::arith::ModMul::NAME`] of the type.
    pub const fn name(self) -> &'static str {
        match self {
            ReductionKind::Rem => "rem",
            ReductionKind::Barrett2 => "barrett2",
            ReductionKind::Dq3 => "dq3",
            ReductionKind::Barrett4 => "barrett4",
            ReductionKind::Montgomery => "montgomery",
            ReductionKind::Shoup => "shoup",
        }
    }
}

/// A radix-2 stage kernel in global memory (`ntt::radix2`): one forward
/// merged-CT or inverse merged-GS (½-scaled) stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Radix2Kernel {
    /// Inverse or forward.
    pub inverse: bool,
    /// The butterflies' reduction.
    pub reduction: ReductionKind,
}

impl Radix2Kernel {
    /// The symbol, `ntt_<fwd|inv>_radix2_stage_<reduction>_<word>`.
    pub fn name(&self, word: &str) -> Name {
        let dir = if self.inverse { "ntt_inv_radix2_stage" } else { "ntt_fwd_radix2_stage" };
        Name::of(&[dir, self.reduction.name(), word])
    }

    /// Every radix-2 stage kernel of one word.
    pub fn all() -> impl Iterator<Item = Radix2Kernel> {
        ReductionKind::ALL
            .into_iter()
            .flat_map(|reduction| [false, true].map(|inverse| Radix2Kernel { inverse, reduction }))
    }
}

/// The largest radices (`log2`) of the shared-memory pass kernels.
pub const TILED_LOG_RADIX: core::ops::RangeInclusive<u32> = 1..=4;

/// A shared-memory pass kernel (`ntt::tiled`, contiguous or strided
/// pass), one per largest radix 2, 4, 8, 16: a kernel's register budget
/// is that of its widest unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TiledKernel {
    /// Inverse or forward.
    pub inverse: bool,
    /// `log2` of the largest radix ([`TILED_LOG_RADIX`]).
    pub log_radix: u32,
    /// The butterflies' reduction.
    pub reduction: ReductionKind,
}

impl TiledKernel {
    /// The symbol, `ntt_<fwd|inv>_tiled_r<2^log_radix>_<reduction>_<word>`.
    pub fn name(&self, word: &str) -> Name {
        let mut n = Name::new();
        n.push(if self.inverse { "ntt_inv_tiled_r" } else { "ntt_fwd_tiled_r" });
        n.push_num(1u32.checked_shl(self.log_radix).unwrap_or(0));
        n.push("_");
        n.push(self.reduction.name());
        n.push("_");
        n.push(word);
        n
    }

    /// Every shared-memory pass kernel of one word.
    pub fn all() -> impl Iterator<Item = TiledKernel> {
        ReductionKind::ALL.into_iter().flat_map(|reduction| {
            [false, true].into_iter().flat_map(move |inverse| {
                TILED_LOG_RADIX.map(move |log_radix| TiledKernel { inverse, log_radix, reduction })
            })
        })
    }
}

/// The element-wise modular product (Algorithm 4), `pointwise_mul_<word>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PointwiseKernel;

impl PointwiseKernel {
    /// The symbol, `pointwise_mul_<word>`.
    pub fn name(&self, word: &str) -> Name {
        Name::of(&["pointwise_mul", word])
    }
}

/// The ciphertext tensor product in the NTT domain, `tensor_<word>`
/// ([`crate::tensor`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TensorKernel;

impl TensorKernel {
    /// The symbol, `tensor_<word>`.
    pub fn name(&self, word: &str) -> Name {
        Name::of(&["tensor", word])
    }
}

/// The reduction check of device operands, `check_reduced_<word>`
/// ([`crate::reduced`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ReducedKernel;

impl ReducedKernel {
    /// The symbol, `check_reduced_<word>`.
    pub fn name(&self, word: &str) -> Name {
        Name::of(&["check_reduced", word])
    }
}

/// The fused Hadamard step of the fused polymul (Algorithm 8), whose
/// `α²` product uses the plan's reduction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FusedHadamardKernel {
    /// The reduction of the `α²` product (and of the plan's twiddles).
    pub reduction: ReductionKind,
}

impl FusedHadamardKernel {
    /// The symbol, `fused_hadamard_<reduction>_<word>`.
    pub fn name(&self, word: &str) -> Name {
        Name::of(&["fused_hadamard", self.reduction.name(), word])
    }

    /// Every fused Hadamard kernel of one word.
    pub fn all() -> impl Iterator<Item = FusedHadamardKernel> {
        ReductionKind::ALL.into_iter().map(|reduction| FusedHadamardKernel { reduction })
    }
}

/// A modular-multiplication microbenchmark kernel (`microbench`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ModMulBenchKernel {
    /// Corrections by mask-and-subtract (`true`) or written as `if`.
    pub select: bool,
    /// The reduction measured.
    pub reduction: ReductionKind,
}

impl ModMulBenchKernel {
    /// The symbol, `modmul_bench_<if|select>_<reduction>_<word>`.
    pub fn name(&self, word: &str) -> Name {
        let base = if self.select { "modmul_bench_select" } else { "modmul_bench_if" };
        Name::of(&[base, self.reduction.name(), word])
    }

    /// Every microbenchmark kernel of one word.
    pub fn all() -> impl Iterator<Item = ModMulBenchKernel> {
        ReductionKind::ALL
            .into_iter()
            .flat_map(|reduction| [false, true].map(|select| ModMulBenchKernel { select, reduction }))
    }
}

/// The lazy-butterfly compute floor (`microbench::lazy_butterflies`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ButterflyFloorKernel;

impl ButterflyFloorKernel {
    /// The symbol, `butterfly_floor_<word>`.
    pub fn name(&self, word: &str) -> Name {
        Name::of(&["butterfly_floor", word])
    }
}

/// A DGT shared-memory pass kernel, one per [`Op`] and per step kind:
/// Coala's fixed access (`dgt::pass`) or register units (`dgt::unit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DgtPassKernel {
    /// What the launch does (the kernel's compile-time operation; the
    /// argument block's `op` must be the same).
    pub op: Op,
    /// Register units (the argument block's `geo.units()` must be the
    /// same).
    pub units: bool,
}

impl DgtPassKernel {
    /// The symbol, `dgt_<forward|inverse|polymul>[_units]_<word>`.
    pub fn name(&self, word: &str) -> Name {
        let base = match self.op {
            Op::Forward => "dgt_forward",
            Op::Inverse => "dgt_inverse",
            Op::Polymul => "dgt_polymul",
        };
        if self.units { Name::of(&[base, "units", word]) } else { Name::of(&[base, word]) }
    }

    /// Every DGT pass kernel of one word: Coala's in [`Op`] order, then
    /// the register-unit kernels in [`Op`] order.
    pub fn all() -> impl Iterator<Item = DgtPassKernel> {
        [false, true].into_iter().flat_map(|units| {
            [Op::Forward, Op::Inverse, Op::Polymul].into_iter().map(move |op| DgtPassKernel { op, units })
        })
    }
}

/// Coala's DGT encoding (weights, packing) or decoding (unpacking,
/// inverse weights) kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DgtCodecKernel {
    /// Decoding or encoding.
    pub decode: bool,
}

impl DgtCodecKernel {
    /// The symbol, `dgt_<encode|decode>_<word>`.
    pub fn name(&self, word: &str) -> Name {
        Name::of(&[if self.decode { "dgt_decode" } else { "dgt_encode" }, word])
    }
}

/// Coala's pointwise Gaussian product kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DgtPointwiseKernel;

impl DgtPointwiseKernel {
    /// The symbol, `dgt_pointwise_<word>`.
    pub fn name(&self, word: &str) -> Name {
        Name::of(&["dgt_pointwise", word])
    }
}

/// The RNS decomposition kernel (`rns::decompose`): big-integer limbs
/// to tower-major residues.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RnsDecomposeKernel;

impl RnsDecomposeKernel {
    /// The symbol, `rns_decompose_<word>`.
    pub fn name(&self, word: &str) -> Name {
        Name::of(&["rns_decompose", word])
    }
}

/// The CRT reconstruction kernel (`rns::crt`): tower-major residues to
/// big-integer limbs in `[0, Q)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RnsCrtKernel;

impl RnsCrtKernel {
    /// The symbol, `rns_crt_<word>`.
    pub fn name(&self, word: &str) -> Name {
        Name::of(&["rns_crt", word])
    }
}

/// The CRT reconstruction split over output limbs (`rns::crt_cols`):
/// tower-major residues to big-integer limbs in `[0, Q)`, for large `Q`,
/// with the column sums' arithmetic `variant`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RnsCrtColsKernel {
    /// The arithmetic of the column sums.
    pub variant: CrtColsVariant,
}

impl RnsCrtColsKernel {
    /// The symbol: `rns_crt_cols_<word>` for
    /// [`CrtColsVariant::Split`] (the default), else
    /// `rns_crt_cols_<variant>_<word>`.
    pub fn name(&self, word: &str) -> Name {
        match self.variant {
            CrtColsVariant::Split => Name::of(&["rns_crt_cols", word]),
            v => Name::of(&["rns_crt_cols", v.name(), word]),
        }
    }

    /// Every variant's kernel.
    pub fn all() -> impl Iterator<Item = RnsCrtColsKernel> {
        CrtColsVariant::ALL.into_iter().map(|variant| RnsCrtColsKernel { variant })
    }
}

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
    /// A row pass that computes its twiddles past its first step
    /// ([`crate::ntt::lazy::step_with`] with `COMPUTED`) instead of reading
    /// the thread-ordered region; only the full-tile row passes of
    /// [`crate::ntt::lazy::has_computed_rows`] have such a kernel.
    pub computed: bool,
    /// An inverse row pass whose first step reads the ciphertext tensor
    /// product of two inputs ([`crate::ntt::lazy::step_tensor`]); only the
    /// full-tile row passes of [`crate::ntt::lazy::has_tensor_rows`] have
    /// such a kernel.
    pub tensor: bool,
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
    /// `parts` joined with `_`.
    fn of(parts: &[&str]) -> Self {
        let mut n = Self::new();
        for (i, p) in parts.iter().enumerate() {
            if i > 0 {
                n.push("_");
            }
            n.push(p);
        }
        n
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
    /// The symbol, `ntt_lazy_<fwd|inv|mul>_<row|col>_l<l>_r<log_r>[_s1][_c][_t]_<word>`
    /// (`_s1`: the latency shape; `_c`: computed row twiddles; `_t`: the
    /// tensor-source inverse row pass).
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
        if self.computed {
            n.push("_c");
        }
        if self.tensor {
            n.push("_t");
        }
        n.push("_");
        n.push(word);
        n
    }

    /// The kernel's register cap for `word_bytes`-byte words
    /// ([`crate::ntt::lazy::max_regs`], or
    /// [`crate::ntt::lazy::max_regs_computed`] for a computed-row kernel).
    pub const fn max_regs(&self, word_bytes: usize) -> Option<u32> {
        if self.latency && crate::ntt::lazy::prefetches(self.shape(word_bytes), self.mode, word_bytes) {
            // Its prefetched twiddles take up to `PREFETCH_MAX_REGS` registers; one block per
            // SM at the sizes it runs, so no cap.
            None
        } else if self.computed {
            crate::ntt::lazy::max_regs_computed(word_bytes, self.mode, self.l, self.log_r)
        } else if self.tensor {
            crate::ntt::lazy::max_regs_tensor(word_bytes, self.l, self.log_r)
        } else {
            crate::ntt::lazy::max_regs(word_bytes, self.mode, self.strided, self.l, self.log_r)
        }
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
    /// [`LazyKernel::all`], for `u32` the one-pass rows of
    /// [`crate::ntt::lazy::WIDE_ROW_L`] points at radix 16, the
    /// computed-row kernels ([`crate::ntt::lazy::has_computed_rows`]) and
    /// the tensor-source ones ([`crate::ntt::lazy::has_tensor_rows`]).
    pub fn all_for(word_bytes: usize) -> impl Iterator<Item = LazyKernel> {
        let tensor = Self::tables_for(word_bytes)
            .filter(move |k| {
                !k.strided
                    && !k.latency
                    && crate::ntt::lazy::has_tensor_rows(word_bytes, k.mode, k.l, k.log_r)
            })
            .map(|k| LazyKernel { tensor: true, ..k });
        let computed = Self::tables_for(word_bytes)
            .filter(move |k| {
                !k.strided
                    && !k.latency
                    && crate::ntt::lazy::has_computed_rows(word_bytes, k.mode, k.l, k.log_r)
            })
            .map(|k| LazyKernel { computed: true, ..k });
        Self::tables_for(word_bytes).chain(computed).chain(tensor)
    }

    /// The table kernels of [`LazyKernel::all_for`] (none computed).
    fn tables_for(word_bytes: usize) -> impl Iterator<Item = LazyKernel> {
        use crate::ntt::lazy::{FORWARD, INVERSE, PRODUCT, WIDE_ROW_L};
        let wide = if word_bytes == 4 { &[FORWARD, INVERSE, PRODUCT][..] } else { &[][..] };
        Self::all().chain(wide.iter().map(|&mode| LazyKernel {
            mode,
            strided: false,
            l: WIDE_ROW_L,
            log_r: 4,
            latency: false,
            computed: false,
            tensor: false,
        }))
    }

    /// The lazy kernels both words have.
    pub fn all() -> impl Iterator<Item = LazyKernel> {
        use crate::ntt::lazy::{FORWARD, INVERSE, PRODUCT};
        [FORWARD, INVERSE, PRODUCT].into_iter().flat_map(|mode| {
            [false, true].into_iter().filter(move |&st| !(st && mode == PRODUCT)).flat_map(move |strided| {
                let ls = if strided { LAZY_COL_L } else { LAZY_ROW_L };
                let full = ls.flat_map(move |l| {
                    LAZY_LOG_RADIX.into_iter().map(move |log_r| LazyKernel {
                        mode,
                        strided,
                        l,
                        log_r,
                        latency: false,
                        computed: false,
                        tensor: false,
                    })
                });
                let small = crate::ntt::lazy::LATENCY_L.flat_map(move |l| {
                    LATENCY_LOG_RADIX.into_iter().map(move |log_r| LazyKernel {
                        mode,
                        strided,
                        l,
                        log_r,
                        latency: true,
                        computed: false,
                        tensor: false,
                    })
                });
                full.chain(small)
            })
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
/// for `sm_<arch>` (the cluster kernels exist from sm_90), each made by
/// its identifier.
pub fn for_each_entry(arch: u32, mut f: impl FnMut(&str)) {
    f(LAUNCH_FLOOR);
    for (w, bytes) in [("u32", 4), ("u64", 8)] {
        let mut g = |n: Name| f(n.as_str());
        Radix2Kernel::all().for_each(|k| g(k.name(w)));
        TiledKernel::all().for_each(|k| g(k.name(w)));
        FusedHadamardKernel::all().for_each(|k| g(k.name(w)));
        ModMulBenchKernel::all().for_each(|k| g(k.name(w)));
        g(PointwiseKernel.name(w));
        g(TensorKernel.name(w));
        g(ReducedKernel.name(w));
        g(ButterflyFloorKernel.name(w));
        DgtPassKernel::all().for_each(|k| g(k.name(w)));
        for decode in [false, true] {
            g(DgtCodecKernel { decode }.name(w));
        }
        g(DgtPointwiseKernel.name(w));
        g(RnsDecomposeKernel.name(w));
        g(RnsCrtKernel.name(w));
        RnsCrtColsKernel::all().for_each(|k| g(k.name(w)));
        LazyKernel::all_for(bytes).for_each(|k| g(k.name(w)));
        ClusterKernel::all().filter(|_| arch >= 90).for_each(|k| g(k.name(w)));
        FusedKernel::all_for(bytes).for_each(|k| g(k.name(w)));
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
    for (w, bytes) in [("u32", 4), ("u64", 8)] {
        for k in DgtPassKernel::all() {
            f(k.name(w).as_str(), crate::dgt::pass::max_regs(k.op, k.units, bytes, arch));
        }
        for k in FusedKernel::all_for(bytes) {
            if let Some(cap) = k.max_regs(bytes).filter(|_| arch >= 90) {
                f(k.name(w).as_str(), cap);
            }
        }
        for k in LazyKernel::all_for(bytes) {
            let Some(cap) = k.max_regs(bytes) else { continue };
            let launch = cap * k.shape(bytes).threads() == 64 * 1024;
            if arch >= 90 || launch {
                f(k.name(w).as_str(), cap);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::arith::{Barrett4, BarrettClassic, BuiltinRem, DhemQuisquater, ModMul, Montgomery, Shoup};

    #[test]
    fn every_entry_name_is_unique_and_fits() {
        for arch in [70, 80, 90] {
            let mut all = std::vec::Vec::new();
            for_each_entry(arch, |n| all.push(std::string::String::from(n)));
            let count = all.len();
            assert!(all.iter().all(|n| !n.is_empty() && n.len() < 48), "{all:?}");
            all.sort();
            all.dedup();
            assert_eq!(all.len(), count, "duplicate symbols for sm_{arch}");
        }
    }

    #[test]
    fn computed_row_kernels_are_the_rns_row_passes() {
        use crate::ntt::lazy::{PRODUCT, one_pass_max, split};
        // Every full-tile row pass of the default schedule at N = 2^16 has
        // a computed kernel (the only ones built: three per word), named
        // with `_c`, capped as listed.
        for (wb, w) in [(4usize, "u32"), (8, "u64")] {
            let all: std::vec::Vec<LazyKernel> = LazyKernel::all_for(wb).filter(|k| k.computed).collect();
            assert!(all.iter().all(|k| !k.strided && !k.latency), "{all:?}");
            assert_eq!(all.len(), 3, "{all:?}");
            for log_n in [16] {
                let (_, l2) = split(log_n, one_pass_max(wb, 4)).unwrap();
                for mode in [crate::ntt::lazy::FORWARD, crate::ntt::lazy::INVERSE, PRODUCT] {
                    let rm = if mode == PRODUCT { PRODUCT } else { crate::ntt::lazy::FORWARD };
                    let log_r = crate::ntt::lazy::log_radix(wb, l2, false, rm);
                    let k = LazyKernel {
                        mode,
                        strided: false,
                        l: l2,
                        log_r,
                        latency: false,
                        computed: true,
                        tensor: false,
                    };
                    assert!(all.contains(&k), "{w} 2^{log_n} {k:?}");
                }
            }
            let mut caps = std::vec::Vec::new();
            for_each_register_cap(90, |n, c| caps.push((std::string::String::from(n), c)));
            for k in &all {
                let name = std::string::String::from(k.name(w).as_str());
                assert!(name.ends_with(&std::format!("_c_{w}")), "{name}");
                let cap = caps.iter().find(|(n, _)| *n == name).map(|&(_, c)| c);
                assert_eq!(cap, k.max_regs(wb), "{name}");
            }
        }
        let k = LazyKernel {
            mode: PRODUCT,
            strided: false,
            l: 8,
            log_r: 4,
            latency: false,
            computed: true,
            tensor: false,
        };
        assert_eq!(k.name("u64").as_str(), "ntt_lazy_mul_row_l8_r4_c_u64");
        assert_eq!(k.max_regs(8), Some(128));
        assert_eq!(LazyKernel { computed: false, ..k }.max_regs(8), Some(80));
    }

    #[test]
    fn reduction_names_are_the_types_names() {
        let types = [
            <BuiltinRem<u64> as ModMul<u64>>::NAME,
            <BarrettClassic<u64> as ModMul<u64>>::NAME,
            <DhemQuisquater<u64> as ModMul<u64>>::NAME,
            <Barrett4<u64> as ModMul<u64>>::NAME,
            <Montgomery<u64> as ModMul<u64>>::NAME,
            <Shoup<u64> as ModMul<u64>>::NAME,
        ];
        assert_eq!(ReductionKind::ALL.map(ReductionKind::name), types);
    }

    #[test]
    fn identifiers_build_the_entry_points_symbols() {
        let r = ReductionKind::Barrett4;
        let cases: [(Name, &str); 13] = [
            (ReducedKernel.symbol::<u64>(), "check_reduced_u64"),
            (TensorKernel.symbol::<u32>(), "tensor_u32"),
            (
                Radix2Kernel { inverse: true, reduction: r }.symbol::<u64>(),
                "ntt_inv_radix2_stage_barrett4_u64",
            ),
            (
                TiledKernel { inverse: false, log_radix: 4, reduction: ReductionKind::Shoup }.symbol::<u32>(),
                "ntt_fwd_tiled_r16_shoup_u32",
            ),
            (PointwiseKernel.symbol::<u64>(), "pointwise_mul_u64"),
            (FusedHadamardKernel { reduction: r }.symbol::<u32>(), "fused_hadamard_barrett4_u32"),
            (
                ModMulBenchKernel { select: true, reduction: r }.symbol::<u64>(),
                "modmul_bench_select_barrett4_u64",
            ),
            (ButterflyFloorKernel.symbol::<u32>(), "butterfly_floor_u32"),
            (DgtPassKernel { op: Op::Polymul, units: false }.symbol::<u64>(), "dgt_polymul_u64"),
            (DgtPassKernel { op: Op::Forward, units: true }.symbol::<u32>(), "dgt_forward_units_u32"),
            (DgtCodecKernel { decode: true }.symbol::<u32>(), "dgt_decode_u32"),
            (DgtPointwiseKernel.symbol::<u64>(), "dgt_pointwise_u64"),
            (
                KernelAbi::name(&ClusterKernel { inverse: true, log_n: 16, log_r: 3 }, "u64"),
                "ntt_lazy_inv_clu_n16_r3_u64",
            ),
        ];
        for (n, want) in cases {
            assert_eq!(n.as_str(), want);
        }
    }
}
