//! The one error type of the public API.
//!
//! Every public function returns [`Result`]; none panics on bad input. Each
//! message says what was wrong and what to do about it, in words that hold
//! for every front end (the Rust API, the `polymul` command line tool, the
//! Python package): no Rust paths. [`Error::kind`] sorts the variants into a
//! few classes ([`ErrorKind`]) that the front ends map to exit codes and
//! exception types.

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
         or on the CPU backend"
    )]
    NoGpu {
        /// What the driver reported.
        detail: String,
    },

    /// A device-buffer method called on a planner `Multiplier` that runs on
    /// the CPU backend.
    #[error(
        "{what} needs a GPU plan, but this Multiplier runs on the CPU backend (no GPU); pass host slices \
         instead (polymul, polymul_into, forward, inverse on &[W] / &mut [W])"
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

    /// This build embeds no GPU kernels at all: it was built for
    /// documentation only (`DOCS_RS` set, as on docs.rs), so no device can
    /// run it.
    #[error(
        "this build of polymul has no GPU kernels: it was built for documentation only (the DOCS_RS \
         environment variable was set); build it again without DOCS_RS, or use the CPU backend"
    )]
    NoEmbeddedKernels,

    /// The kernel image named by [`crate::GpuOptions::kernel_image`] could
    /// not be read or loaded.
    #[error(
        "cannot load the kernel image {path}: {detail}; give a cubin or PTX file with every polymul \
         kernel, or none to use the embedded kernels"
    )]
    KernelImage {
        /// The file.
        path: String,
        /// What went wrong.
        detail: String,
    },

    /// A kernel image embedded in this binary (zstd-packed at build time,
    /// checked then) does not unpack: the binary is damaged.
    #[error(
        "the {image} embedded in this binary does not unpack ({detail}); the binary is damaged: \
         rebuild or reinstall it"
    )]
    EmbeddedImage {
        /// Which image, e.g. `PTX` or `cubin sm_90`.
        image: String,
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
        source: DriverError,
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

    /// The modulus is not prime (an NTT or a DGT modulus).
    #[error("q = {q} is not prime; the modulus must be a prime")]
    NotPrime {
        /// The modulus.
        q: u64,
    },

    /// The modulus is prime but `q ≢ 1 (mod 2N)`, so no 2N-th root of unity
    /// exists ([`crate::params::ntt_primes`] lists primes that fit).
    #[error("q = {q} is not NTT-friendly for N = {n}: need a prime q ≡ 1 (mod {two_n})")]
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

    /// A reduction check queued before an earlier device call
    /// (`check_reduced_async` on the GPU plans, the Python layer's device
    /// calls) found a word not below its tower's modulus. The calls since
    /// the last report ran on such words, and their outputs are wrong.
    #[error(
        "a device operand of an earlier call held a coefficient that is not reduced modulo its tower's prime; the outputs of the calls since the last check are wrong: reduce inputs first"
    )]
    UnreducedDeviceInput,

    /// A ciphertext operand of the tensor product
    /// ([`crate::Tensor::tensor_into`], [`crate::Plan::tensor`]) whose
    /// polynomials per tower are not an even number: a ciphertext is two
    /// polynomials, `(c0, c1)`, so the inputs hold `2m` per tower.
    #[error(
        "{what} holds {polys} polynomial(s) per tower; ciphertexts are pairs (c0, c1): pass 2m polynomials per tower (tower-major, ciphertext j's c0 and c1 at 2j and 2j + 1)"
    )]
    NotCiphertexts {
        /// Which buffer.
        what: &'static str,
        /// Its polynomials per tower.
        polys: usize,
    },

    /// The batch needs more threads than one launch can address, where a
    /// call does not split: the launch-limit check itself
    /// ([`crate::NttParams::check_batch_size`]), the RNS limb conversions
    /// (`RnsBasis::check_limbs`, `decompose`, `reconstruct`;
    /// `RnsPlan::upload_limbs`, `zeros_limbs`), `NttPlan::hadamard_step`
    /// and `tune`. The plans' products and transforms take any batch, on
    /// host slices and on device views, splitting it into launches
    /// (and, for host slices, pieces that fit the device's free memory).
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

    /// A device pointer given to [`crate::DeviceView::from_raw_parts`] cannot
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

    /// A kernel's argument block was refused by its constructor
    /// (`polymul_kernels::args`): a buffer null or shorter than what the
    /// kernel would index, or a size, count or modulus outside its range.
    /// The plans check their inputs first, so this is polymul's bug.
    #[error("refused to launch {kernel}: {why}")]
    BadLaunch {
        /// The kernel (family).
        kernel: &'static str,
        /// Why.
        why: &'static str,
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

    /// A DGT modulus without the roots the transform needs
    /// ([`crate::dgt::dgt_primes`] lists primes that fit).
    #[error("p = {p} does not suit a DGT of length N = {n}: p must be a prime with p + 1 divisible by N")]
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

    /// A latency-schedule radix ([`crate::expert::PlanOptions::latency_radix`])
    /// the latency kernels do not have.
    #[error("latency radix {radix} is not available: choose 4, 8 or 16, or leave it unset for the default")]
    BadLatencyRadix {
        /// Radix requested.
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

    /// The plans given to a [`crate::MultiPlan`] do not fit together.
    #[error("these plans cannot make one multi-device plan: {why}")]
    PlansDisagree {
        /// What does not fit.
        why: String,
    },

    /// An operand of a [`crate::MultiPlan`]'s device call is spread over
    /// the devices otherwise than the first.
    #[error(
        "{what} is spread over the devices otherwise than the call's first operand; make every operand of \
         one call with the same multi-device plan (upload or zeros) and the same batch"
    )]
    SpreadMismatch {
        /// Which operand.
        what: &'static str,
    },

    /// Device words given to a plan of another GPU (with several GPUs in
    /// one process, buffers are not interchangeable between their plans).
    #[error(
        "{what} lives on GPU {on}, but this plan computes on GPU {expected}: make it with a plan of GPU \
         {expected} (its upload or zeros)"
    )]
    WrongDevice {
        /// Which operand.
        what: &'static str,
        /// The CUDA ordinal of the device holding it.
        on: u32,
        /// The CUDA ordinal of the plan's device.
        expected: u32,
    },

    /// A graph capture (`capture` of a plan) was handed device words it
    /// could not keep alive: words outside the graph's state (a buffer
    /// reached through a `static`, say), another plan's call, or a state
    /// whose buffers `work` replaced. Nothing was captured.
    #[error(
        "cannot capture {what}: {why}; pass every buffer the work uses in the graph's state, and call only \
         the capturing plan"
    )]
    CaptureOutsideState {
        /// Which operand (or `the state`).
        what: &'static str,
        /// Why it was refused.
        why: &'static str,
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

/// What sort of failure an [`Error`] is: the few classes a caller acts on
/// differently ([`Error::kind`]). The command line tool maps them to exit
/// codes and the Python package to exception types, each in one place.
///
/// New classes may come (`#[non_exhaustive]`): match with a fallback arm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// An argument or input the call does not accept: N, a modulus, a
    /// prime width or count, a word size, a buffer of the wrong length,
    /// shape or layout, an unreduced coefficient, a tile, radix or DGT
    /// configuration that does not fit, a batch, basis or big modulus
    /// beyond one launch's limits, a device pointer polymul cannot use.
    /// Change the input; retrying as is fails again.
    InvalidInput,
    /// The input is valid but this plan or backend does not do the
    /// operation: a forward or inverse transform of a fused-polymul plan,
    /// a device-buffer method of a planner `Multiplier` on the CPU
    /// backend, a combination of plan options no kernel implements. Use
    /// another plan, backend or option.
    Unsupported,
    /// No usable GPU: no driver or device, a device ordinal that does not
    /// exist, no embedded PTX for the device's architecture (or none at
    /// all: a documentation-only build). The CPU backend still works.
    NoGpu,
    /// The GPU ran out of memory; a smaller batch may fit.
    OutOfMemory,
    /// The GPU or its driver failed: a CUDA error, or a kernel image that
    /// cannot be loaded.
    Device,
    /// A wisdom file exists but cannot be read or used (not wisdom,
    /// another version): delete it or tune again.
    Wisdom,
    /// A file could not be written (or created, or renamed).
    Io,
}

impl ErrorKind {
    /// Every kind, for front ends that check that their mapping covers
    /// each one.
    pub const ALL: &'static [ErrorKind] = &[
        ErrorKind::InvalidInput,
        ErrorKind::Unsupported,
        ErrorKind::NoGpu,
        ErrorKind::OutOfMemory,
        ErrorKind::Device,
        ErrorKind::Wisdom,
        ErrorKind::Io,
    ];

    /// A short name, e.g. `"invalid input"`.
    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::InvalidInput => "invalid input",
            ErrorKind::Unsupported => "unsupported",
            ErrorKind::NoGpu => "no GPU",
            ErrorKind::OutOfMemory => "out of GPU memory",
            ErrorKind::Device => "device error",
            ErrorKind::Wisdom => "unusable wisdom",
            ErrorKind::Io => "I/O error",
        }
    }
}

impl std::fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl Error {
    /// The class of this error: what the caller can do about it
    /// ([`ErrorKind`]).
    pub fn kind(&self) -> ErrorKind {
        use ErrorKind as K;
        // No fallback arm: a new variant must pick its kind here.
        match self {
            Error::NoGpu { .. }
            | Error::NoSuchDevice { .. }
            | Error::NoPtxForDevice { .. }
            | Error::NoEmbeddedKernels => K::NoGpu,
            Error::NeedsGpu { .. }
            | Error::FusedPlanTransform
            | Error::NotNttDomain
            | Error::NoTransformFor { .. } => K::Unsupported,
            Error::KernelImage { .. }
            | Error::EmbeddedImage { .. }
            | Error::Cuda { .. }
            | Error::CudaCode { .. }
            | Error::BadLaunch { .. } => K::Device,
            Error::OutOfDeviceMemory { .. } => K::OutOfMemory,
            Error::Wisdom { .. } => K::Wisdom,
            Error::Io { .. } => K::Io,
            Error::InvalidN { .. }
            | Error::NotPrime { .. }
            | Error::NotNttFriendly { .. }
            | Error::ModulusTooWide { .. }
            | Error::BadModulus { .. }
            | Error::NotEnoughPrimes { .. }
            | Error::UnsupportedPrimeWidth { .. }
            | Error::LengthMismatch { .. }
            | Error::PlansDisagree { .. }
            | Error::SpreadMismatch { .. }
            | Error::WrongDevice { .. }
            | Error::CaptureOutsideState { .. }
            | Error::NotAMultipleOfN { .. }
            | Error::NotCiphertexts { .. }
            | Error::UnreducedDeviceInput
            | Error::BatchTooLarge { .. }
            | Error::BadTile { .. }
            | Error::ForeignMemory { .. }
            | Error::DuplicatePrime { .. }
            | Error::EmptyBasis
            | Error::BigCoefficientOutOfRange { .. }
            | Error::ConversionTooLarge { .. }
            | Error::LimbsMismatch { .. }
            | Error::NotDgtFriendly { .. }
            | Error::BadDgtConfig { .. }
            | Error::TooManyTowers { .. }
            | Error::BadRadix { .. }
            | Error::BadLatencyRadix { .. }
            | Error::NotInvertible { .. }
            | Error::TooManyPrimes { .. }
            | Error::ArgumentOutOfRange { .. }
            | Error::UnsupportedWord { .. }
            | Error::CoefficientOutOfRange { .. } => K::InvalidInput,
        }
    }

    /// Wraps a CUDA error, mapping out-of-memory to [`Error::OutOfDeviceMemory`].
    pub(crate) fn cuda(during: &'static str, bytes: usize) -> impl FnOnce(cust::error::CudaError) -> Error {
        move |source| match source {
            cust::error::CudaError::OutOfMemory => Error::OutOfDeviceMemory { during, bytes },
            source => Error::Cuda { during, source: DriverError(source) },
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

#[cfg(test)]
mod tests {
    use super::*;
    use ErrorKind as K;

    /// One of every variant, with the kind it is meant to have.
    fn table() -> Vec<(Error, ErrorKind)> {
        let io = || std::io::Error::new(std::io::ErrorKind::PermissionDenied, "denied");
        vec![
            (Error::NoGpu { detail: "no driver".into() }, K::NoGpu),
            (Error::NeedsGpu { what: "upload" }, K::Unsupported),
            (Error::NoSuchDevice { ordinal: 3, count: 1 }, K::NoGpu),
            (Error::NoPtxForDevice { major: 6, minor: 0 }, K::NoGpu),
            (Error::NoEmbeddedKernels, K::NoGpu),
            (Error::KernelImage { path: "k.cubin".into(), detail: "bad".into() }, K::Device),
            (Error::EmbeddedImage { image: "cubin sm_90".into(), detail: "bad".into() }, K::Device),
            (Error::OutOfDeviceMemory { during: "allocating", bytes: 1 }, K::OutOfMemory),
            (
                Error::Cuda {
                    during: "launching",
                    source: DriverError(cust::error::CudaError::LaunchFailed),
                },
                K::Device,
            ),
            (Error::cuda("allocating", 8)(cust::error::CudaError::OutOfMemory), K::OutOfMemory),
            (Error::cuda("launching", 0)(cust::error::CudaError::IllegalAddress), K::Device),
            (Error::InvalidN { n: 3, min: 2, max: 1 << 24 }, K::InvalidInput),
            (Error::NotPrime { q: 15 }, K::InvalidInput),
            (Error::NotNttFriendly { q: 7, n: 4, two_n: 8 }, K::InvalidInput),
            (Error::ModulusTooWide { q: 1 << 40, bits: 41, max_bits: 30, word: 32 }, K::InvalidInput),
            (Error::from_modulus(4, 64, ModulusError::Even), K::InvalidInput),
            (Error::NotEnoughPrimes { bits: 20, n: 1 << 16, wanted: 9, found: 1 }, K::InvalidInput),
            (Error::UnsupportedPrimeWidth { bits: 70, min: 20, max: 62 }, K::InvalidInput),
            (Error::LengthMismatch { what: "b", got: 1, expected: 2 }, K::InvalidInput),
            (Error::NotAMultipleOfN { what: "a", got: 3, n: 4 }, K::InvalidInput),
            (Error::NotCiphertexts { what: "a", polys: 3 }, K::InvalidInput),
            (Error::UnreducedDeviceInput, K::InvalidInput),
            (Error::BatchTooLarge { batch: 1 << 40, n: 4, max: 1 << 30 }, K::InvalidInput),
            (Error::BadTile { bytes: 3, min: 8, max: 1 << 16 }, K::InvalidInput),
            (Error::ForeignMemory { ptr: 16, why: "not device memory" }, K::InvalidInput),
            (
                Error::CaptureOutsideState { what: "a", why: "its words are not in the graph's state" },
                K::InvalidInput,
            ),
            (Error::CudaCode { during: "capturing", code: 900 }, K::Device),
            (Error::BadLaunch { kernel: "a radix-2 NTT stage", why: "a buffer is null" }, K::Device),
            (Error::FusedPlanTransform, K::Unsupported),
            (Error::NotNttDomain, K::Unsupported),
            (Error::DuplicatePrime { q: 17 }, K::InvalidInput),
            (Error::EmptyBasis, K::InvalidInput),
            (Error::BigCoefficientOutOfRange { what: "a", index: 0, bits: 70, q_bits: 60 }, K::InvalidInput),
            (Error::ConversionTooLarge { q_bits: 1 << 20, towers: 2000 }, K::InvalidInput),
            (Error::LimbsMismatch { what: "a", limbs: 1, n: 4, plan_limbs: 2, plan_n: 4 }, K::InvalidInput),
            (Error::NotDgtFriendly { p: 13, n: 4 }, K::InvalidInput),
            (Error::BadDgtConfig { what: "r".into(), n: 4, why: "too small" }, K::InvalidInput),
            (Error::Wisdom { path: "w.json".into(), why: "not JSON".into() }, K::Wisdom),
            (Error::NoTransformFor { why: "no kernel".into() }, K::Unsupported),
            (Error::TooManyTowers { towers: 1 << 20, max: 65535 }, K::InvalidInput),
            (Error::BadRadix { radix: 3 }, K::InvalidInput),
            (Error::BadLatencyRadix { radix: 2 }, K::InvalidInput),
            (Error::NotInvertible { value: 0, q: 17 }, K::InvalidInput),
            (Error::TooManyPrimes { wanted: 1 << 20, max: 100_000 }, K::InvalidInput),
            (Error::ArgumentOutOfRange { what: "count", value: 9, min: 0, max: 8 }, K::InvalidInput),
            (Error::UnsupportedWord { bits: 16 }, K::InvalidInput),
            (Error::CoefficientOutOfRange { what: "a", index: 1, value: 20, q: 17 }, K::InvalidInput),
            (Error::Io { during: "writing", path: "w.json".into(), source: io() }, K::Io),
        ]
    }

    #[test]
    fn every_variant_has_its_intended_kind() {
        for (e, kind) in table() {
            assert_eq!(e.kind(), kind, "{e:?}");
        }
    }

    #[test]
    fn all_lists_every_kind_once_and_each_occurs() {
        // An exhaustive match (no fallback): a new kind fails to compile
        // here until it is counted, and then until `ALL` has it.
        let count = |k: ErrorKind| match k {
            K::InvalidInput | K::Unsupported | K::NoGpu | K::OutOfMemory | K::Device | K::Wisdom | K::Io => 7,
        };
        assert_eq!(ErrorKind::ALL.len(), count(K::Io));
        let distinct: std::collections::HashSet<_> = ErrorKind::ALL.iter().collect();
        assert_eq!(distinct.len(), ErrorKind::ALL.len());
        let seen: std::collections::HashSet<_> = table().iter().map(|(e, _)| e.kind()).collect();
        for k in ErrorKind::ALL {
            assert!(seen.contains(k), "no variant of kind {k}");
            assert!(!k.name().is_empty());
        }
    }

    #[test]
    fn messages_name_no_rust_paths() {
        for (e, _) in table() {
            let m = e.to_string();
            assert!(!m.contains("polymul::") && !m.contains("POLYMUL_KERNEL_IMAGE"), "{m}");
        }
    }
}

/// An error the CUDA driver reported (a `CUresult` other than success),
/// as [`Error::Cuda`] carries it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DriverError(pub(crate) cust::error::CudaError);

impl DriverError {
    /// The driver's `CUresult` code (e.g. 700 for an illegal address).
    pub fn code(&self) -> u32 {
        self.0 as u32
    }
}

impl std::fmt::Display for DriverError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)
    }
}

impl std::error::Error for DriverError {}
