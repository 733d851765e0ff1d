//! The one error type of the public API.
//!
//! Every public function returns [`Result`]; none panics on bad input. Each
//! message says what was wrong and what to do about it.

use polymul_kernels::arith::ModulusError;

/// Result alias for polymul.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in polymul.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No usable CUDA device (no GPU, no driver, or the driver refused).
    #[error(
        "no CUDA GPU available ({detail}); run on a machine with an NVIDIA GPU and driver, \
         or use the CPU path (polymul::cpu)"
    )]
    NoGpu {
        /// What the driver reported.
        detail: String,
    },

    /// A device-buffer method called on a planner `Multiplier` that runs on
    /// the CPU backend.
    #[error(
        "{what} needs a GPU plan, but this Multiplier runs on the CPU backend (no GPU); use its host-slice \
         methods (polymul, forward_host, inverse_host)"
    )]
    NeedsGpu {
        /// The method called.
        what: &'static str,
    },

    /// The requested device ordinal does not exist.
    #[error("GPU #{ordinal} does not exist: this machine has {count} CUDA device(s)")]
    NoSuchDevice {
        /// The ordinal asked for.
        ordinal: u32,
        /// How many devices there are.
        count: u32,
    },

    /// None of the embedded PTX modules suits the device.
    #[error(
        "no embedded PTX runs on this GPU (compute capability {major}.{minor}); rebuild with \
         POLYMUL_PTX_ARCHS=sm_{major}{minor}"
    )]
    NoPtxForDevice {
        /// Compute capability major.
        major: i32,
        /// Compute capability minor.
        minor: i32,
    },

    /// The kernel image named by `$POLYMUL_KERNEL_IMAGE` could not be read
    /// or loaded.
    #[error(
        "cannot load the kernel image {path} named by POLYMUL_KERNEL_IMAGE: {detail}; unset the \
         variable to use the embedded kernels"
    )]
    KernelImage {
        /// The file.
        path: String,
        /// What went wrong.
        detail: String,
    },

    /// The device ran out of memory.
    #[error("out of GPU memory while {during} ({bytes} bytes requested); use a smaller batch")]
    OutOfDeviceMemory {
        /// What was being done.
        during: &'static str,
        /// Bytes requested (0 if unknown).
        bytes: usize,
    },

    /// Any other CUDA driver error.
    #[error("CUDA error while {during}: {source}")]
    Cuda {
        /// What was being done.
        during: &'static str,
        /// The driver's error.
        #[source]
        source: cust::error::CudaError,
    },

    /// N is not a power of two in the supported range.
    #[error("N = {n} is not supported: N must be a power of two from {min} to {max}")]
    InvalidN {
        /// The N given.
        n: usize,
        /// Smallest supported N.
        min: usize,
        /// Largest supported N.
        max: usize,
    },

    /// The modulus is not prime.
    #[error("q = {q} is not prime; pick one with polymul::params::ntt_primes")]
    NotPrime {
        /// The modulus.
        q: u64,
    },

    /// The modulus is prime but `q ≢ 1 (mod 2N)`, so no 2N-th root of unity exists.
    #[error(
        "q = {q} is not NTT-friendly for N = {n}: need q ≡ 1 (mod {two_n}); pick one with \
         polymul::params::ntt_primes"
    )]
    NotNttFriendly {
        /// The modulus.
        q: u64,
        /// The transform size.
        n: usize,
        /// 2N.
        two_n: u64,
    },

    /// The modulus does not fit the word or the reduction.
    #[error(
        "q = {q} has {bits} bits but {word}-bit words with this reduction allow at most {max_bits}; \
         use a smaller q or 64-bit words"
    )]
    ModulusTooWide {
        /// The modulus.
        q: u64,
        /// Its bit length.
        bits: u32,
        /// Largest accepted bit length.
        max_bits: u32,
        /// Word size in bits.
        word: u32,
    },

    /// The modulus is too small or even.
    #[error("q = {q} is not a usable modulus: {why}")]
    BadModulus {
        /// The modulus.
        q: u64,
        /// Why.
        why: &'static str,
    },

    /// A prime search found fewer primes than asked for.
    #[error(
        "only {found} prime(s) of {bits} bits of the form the transform needs (q ≡ 1 mod 2N for the NTT, \
         p ≡ −1 mod N for the DGT) exist for N = {n}, {wanted} wanted; use more bits or a smaller N"
    )]
    NotEnoughPrimes {
        /// Bits asked for.
        bits: u32,
        /// Transform size.
        n: usize,
        /// Primes wanted.
        wanted: usize,
        /// Primes found.
        found: usize,
    },

    /// The requested prime width is outside what polymul supports.
    #[error("primes of {bits} bits are not supported: choose {min} to {max} bits")]
    UnsupportedPrimeWidth {
        /// Bits asked for.
        bits: u32,
        /// Smallest supported width.
        min: u32,
        /// Largest supported width.
        max: u32,
    },

    /// A buffer's length does not match the plan.
    #[error("{what} has {got} coefficients, expected {expected}")]
    LengthMismatch {
        /// Which buffer.
        what: &'static str,
        /// Its length.
        got: usize,
        /// The expected length (or multiple, see message).
        expected: usize,
    },

    /// A batch buffer's length is not a positive multiple of N.
    #[error("{what} has {got} coefficients, which is not a positive multiple of N = {n}")]
    NotAMultipleOfN {
        /// Which buffer.
        what: &'static str,
        /// Its length.
        got: usize,
        /// N.
        n: usize,
    },

    /// The batch needs more threads than one launch can address.
    #[error(
        "a batch of {batch} polynomials of N = {n} is too large for one launch (at most {max}); split it"
    )]
    BatchTooLarge {
        /// Polynomials in the batch.
        batch: usize,
        /// N.
        n: usize,
        /// Largest batch for this N.
        max: usize,
    },

    /// A requested shared-memory tile is not a power of two of at least two
    /// words, or exceeds what the device gives one block.
    #[error(
        "a {bytes}-byte shared-memory tile is not usable: choose a power of two from {min} bytes up to \
         {max} bytes including the kernels' bank-conflict padding (1/16 of the tile for u64 words, 1/32 \
         for u32)"
    )]
    BadTile {
        /// Bytes requested.
        bytes: usize,
        /// Smallest tile.
        min: usize,
        /// Most shared memory a block may use on this device (tile plus
        /// padding).
        max: usize,
    },

    /// A device pointer given to [`crate::gpu::ExternalVec::new`] cannot
    /// be used.
    #[error(
        "device pointer {ptr:#x} cannot be used: {why}; pass device memory of this GPU's primary context"
    )]
    ForeignMemory {
        /// The pointer.
        ptr: u64,
        /// Why not.
        why: &'static str,
    },

    /// A raw CUDA driver call failed (calls cust does not wrap).
    #[error("CUDA driver error {code} while {during}")]
    CudaCode {
        /// What polymul was doing.
        during: &'static str,
        /// The `CUresult` code.
        code: i32,
    },

    /// A whole forward or inverse transform was asked of a fused-polymul
    /// plan, which holds only half of each twiddle table.
    #[error(
        "this plan was made for fused polymul and stores half the twiddles; create one without \
         `fused_polymul` for forward/inverse transforms"
    )]
    FusedPlanTransform,

    /// An NTT-domain method (forward, inverse, pointwise product) was
    /// asked of a plan whose transform is the DGT: its words would be in
    /// another domain.
    #[error(
        "the planner chose the DGT for this plan, whose domain is not the NTT's; force the NTT \
         (`Multiplier::with_decision` with `Choice::Ntt`) for forward/inverse transforms, or use \
         the DGT plan's own `DgtPlan::forward`"
    )]
    NotNttDomain,

    /// The same prime twice in an RNS basis.
    #[error("the prime {q} appears twice in the RNS basis; every tower needs its own prime")]
    DuplicatePrime {
        /// The repeated prime.
        q: u64,
    },

    /// An RNS basis needs at least one tower.
    #[error("an RNS basis needs at least one prime")]
    EmptyBasis,

    /// A big-integer coefficient is not below the RNS modulus Q.
    #[error("{what}[{index}] has {bits} bits and is not below Q ({q_bits} bits); reduce it modulo Q first")]
    BigCoefficientOutOfRange {
        /// Which buffer.
        what: &'static str,
        /// Position of the first bad coefficient.
        index: usize,
        /// Its width in bits.
        bits: u64,
        /// The width of Q in bits.
        q_bits: u64,
    },

    /// A modulus too large for the limb conversions (RNS decomposition and
    /// CRT reconstruction): a block of 32 coefficients' limbs and residues
    /// must fit 48 KiB of shared memory, and at most 1024 towers.
    #[error(
        "Q of {q_bits} bits in {towers} towers is too large for the limb conversions (a block of 32 \
         coefficients' limbs and residues must fit 48 KiB, at most 1024 towers; about 6000 bits on 62-bit \
         towers); use fewer bits or wider towers"
    )]
    ConversionTooLarge {
        /// Bits of Q.
        q_bits: u64,
        /// Towers.
        towers: usize,
    },

    /// A device limb buffer made for another shape (N or limbs per
    /// coefficient) than the plan's.
    #[error(
        "{what} holds coefficients of {limbs} limb(s) for N = {n}, but this plan takes {plan_limbs} limb(s) \
         for N = {plan_n}; upload the limbs with this plan"
    )]
    LimbsMismatch {
        /// Which buffer.
        what: &'static str,
        /// Its limbs per coefficient.
        limbs: usize,
        /// Its N.
        n: usize,
        /// The plan's limbs per coefficient.
        plan_limbs: usize,
        /// The plan's N.
        plan_n: usize,
    },

    /// A DGT modulus without the roots the transform needs.
    #[error(
        "p = {p} does not suit a DGT of length N = {n}: p must be a prime with p + 1 divisible by N; \
         pick one with polymul::dgt::dgt_primes"
    )]
    NotDgtFriendly {
        /// The prime.
        p: u64,
        /// The polynomial length.
        n: usize,
    },

    /// A DGT configuration that does not fit the transform or the device.
    #[error("DGT configuration {what} is not usable for N = {n}: {why}")]
    BadDgtConfig {
        /// The configuration, printed.
        what: String,
        /// The polynomial length.
        n: usize,
        /// Why.
        why: &'static str,
    },

    /// A wisdom file that cannot be used.
    #[error("the wisdom file {path} cannot be used ({why}); delete it or run `polymul tune` again")]
    Wisdom {
        /// The file.
        path: std::path::PathBuf,
        /// What is wrong.
        why: String,
    },

    /// No transform accepts the modulus asked for.
    #[error("{why}")]
    NoTransformFor {
        /// What to do.
        why: String,
    },

    /// More RNS towers than one launch's grid rows.
    #[error("{towers} towers are more than one launch covers ({max}); split the basis")]
    TooManyTowers {
        /// Towers asked for.
        towers: usize,
        /// Most one plan takes.
        max: usize,
    },

    /// An NTT radix the tiled kernels do not have.
    #[error("radix {radix} is not available: choose 2, 4, 8 or 16")]
    BadRadix {
        /// Radix requested (0 if it overflowed).
        radix: usize,
    },

    /// A value has no inverse modulo `q` (it shares a factor with `q`, or is 0).
    #[error(
        "{value} has no inverse modulo {q}: they share a factor; use a prime q (or a value coprime to it)"
    )]
    NotInvertible {
        /// The value (reduced modulo `q`).
        value: u64,
        /// The modulus.
        q: u64,
    },

    /// More primes asked for than one search (or one RNS basis) gives.
    #[error(
        "{wanted} primes asked for, more than the {max} polymul generates or takes in one basis; use fewer, \
         wider primes"
    )]
    TooManyPrimes {
        /// Primes asked for.
        wanted: usize,
        /// The most one call takes ([`crate::params::MAX_PRIME_COUNT`]).
        max: usize,
    },

    /// A numeric argument outside the range a function accepts.
    #[error("{what} = {value} is out of range: choose {min} to {max}")]
    ArgumentOutOfRange {
        /// Which argument.
        what: &'static str,
        /// The value given.
        value: u64,
        /// Smallest accepted.
        min: u64,
        /// Largest accepted.
        max: u64,
    },

    /// A coefficient word size other than 32 or 64 bits.
    #[error("{bits}-bit words are not supported: choose 32 (u32) or 64 (u64)")]
    UnsupportedWord {
        /// The word size asked for.
        bits: u32,
    },

    /// A coefficient is not reduced.
    #[error("{what}[{index}] = {value} is not reduced modulo q = {q}; reduce inputs first")]
    CoefficientOutOfRange {
        /// Which buffer.
        what: &'static str,
        /// Position of the first bad coefficient.
        index: usize,
        /// Its value.
        value: u64,
        /// The modulus.
        q: u64,
    },

    /// Reading, writing or renaming a file failed.
    #[error("I/O error while {during} {}: {source}; check the path and its permissions", path.display())]
    Io {
        /// What was being done ("reading", "writing", ...).
        during: &'static str,
        /// The file.
        path: std::path::PathBuf,
        /// The operating system's error.
        #[source]
        source: std::io::Error,
    },
}

impl Error {
    /// Wraps a CUDA error, mapping out-of-memory to [`Error::OutOfDeviceMemory`].
    pub(crate) fn cuda(during: &'static str, bytes: usize) -> impl FnOnce(cust::error::CudaError) -> Error {
        move |source| match source {
            cust::error::CudaError::OutOfMemory => Error::OutOfDeviceMemory { during, bytes },
            source => Error::Cuda { during, source },
        }
    }

    /// Maps a reduction's refusal of `q` for `word`-bit words.
    pub(crate) fn from_modulus(q: u64, word: u32, e: ModulusError) -> Error {
        match e {
            ModulusError::Even => Error::BadModulus { q, why: "it is even (NTT moduli are odd primes)" },
            ModulusError::TooSmall { .. } => Error::BadModulus { q, why: "it is smaller than 5" },
            ModulusError::TooWide { bits, max_bits } => Error::ModulusTooWide { q, bits, max_bits, word },
        }
    }
}
