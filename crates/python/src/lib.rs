//! `polymul._polymul`: the compiled core of the `polymul` Python package
//! (`crates/python/python/polymul/`). The Python layer checks and converts the
//! arrays (NumPy, CuPy, PyTorch, object arrays of ints) and calls the one
//! class here, `Core`, with raw addresses of memory it keeps alive for the
//! call; this layer maps every [`polymul::Error`] to a Python exception by
//! its [`ErrorKind`] (`exception_for`: `ValueError` for bad input and for
//! operations a plan does not offer, `polymul.GpuError` for the device,
//! `polymul.GpuOutOfMemory` for its memory, `OSError` for files) and never
//! panics.
//!
//! A `Core` is a [`Multiplier`] for `u32` or `u64` words: an NTT, RNS or DGT
//! plan on the GPU, or on the CPU the CPU backend's NTT or the DGT's CPU
//! model. The transform is chosen only by the planner: `NttPlan` and
//! `DgtPlan` force theirs (a [`Decision`] planned with
//! [`Multiplier::with_decision`] / [`Multiplier::cpu_with_decision`]),
//! `Multiplier` takes the planner's ([`Multiplier::new`], or on the CPU
//! [`planner::decide_without_wisdom`]). Big-integer products run on the same
//! multiplier ([`Multiplier::polymul_limbs`]).

use num_bigint::BigUint;
use polymul::dgt::DgtConfig;
use polymul::expert::NttKernel;
use polymul::planner::{self, Choice, Decision, Modulus, Multiplier};
use polymul::rns::RnsBasis;
// The plan traits, unnamed: `Transform` here is this module's enum.
use polymul::{Coeff, DeviceView, Error, ErrorKind, Gpu, Plan as _, Product as _, Transform as _};
use pyo3::create_exception;
use pyo3::exceptions::{PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::sync::{Mutex, OnceLock};

create_exception!(
    _polymul,
    GpuError,
    PyRuntimeError,
    "A CUDA device failed: no GPU where one was required, out of device memory, a driver error."
);

create_exception!(
    _polymul,
    GpuOutOfMemory,
    GpuError,
    "The GPU ran out of memory (a GpuError): a smaller batch may fit."
);

/// The Python exception type of a library error of `kind`, or `None` for a
/// kind this version does not know (the kinds are `#[non_exhaustive]`;
/// [`exception_for`] makes those `RuntimeError`s).
fn known_exception(kind: ErrorKind) -> Option<PyExc> {
    Some(match kind {
        ErrorKind::InvalidInput | ErrorKind::Unsupported | ErrorKind::Wisdom => PyExc::Value,
        ErrorKind::NoGpu | ErrorKind::Device => PyExc::Gpu,
        ErrorKind::OutOfMemory => PyExc::GpuOutOfMemory,
        ErrorKind::Io => PyExc::OS,
        _ => return None,
    })
}

/// The Python exception types the library's errors become.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PyExc {
    /// `ValueError`: bad input, or an operation the plan does not offer.
    Value,
    /// `polymul.GpuError` (a `RuntimeError`): no GPU, a device failure.
    Gpu,
    /// `polymul.GpuOutOfMemory` (a `GpuError`).
    GpuOutOfMemory,
    /// `OSError`: a file that cannot be written.
    OS,
    /// `RuntimeError`: a kind newer than this package.
    Runtime,
}

/// The exception type for `kind` ([`known_exception`], else
/// `RuntimeError`): the one place that decides.
fn exception_for(kind: ErrorKind) -> PyExc {
    known_exception(kind).unwrap_or(PyExc::Runtime)
}

/// The Python exception for a library error, with the library's message.
fn to_py(e: Error) -> PyErr {
    let msg = e.to_string();
    match exception_for(e.kind()) {
        PyExc::Value => PyValueError::new_err(msg),
        PyExc::Gpu => GpuError::new_err(msg),
        PyExc::GpuOutOfMemory => GpuOutOfMemory::new_err(msg),
        PyExc::OS => PyOSError::new_err(msg),
        PyExc::Runtime => PyRuntimeError::new_err(msg),
    }
}

/// The process's GPU handle, made once (a `Gpu` loads the kernels; every
/// plan shares it). Failures are not cached: each call retries.
fn gpu() -> Result<Gpu, Error> {
    static GPU: OnceLock<Mutex<Option<Gpu>>> = OnceLock::new();
    let cell = GPU.get_or_init(|| Mutex::new(None));
    let mut slot = cell.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(g) = slot.as_ref() {
        return Ok(g.clone());
    }
    let g = Gpu::new()?;
    *slot = Some(g.clone());
    Ok(g)
}

/// Where a plan runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Device {
    Auto,
    Cpu,
    Gpu,
}

fn parse_device(s: &str) -> PyResult<Device> {
    match s {
        "auto" => Ok(Device::Auto),
        "cpu" => Ok(Device::Cpu),
        "gpu" | "cuda" => Ok(Device::Gpu),
        _ => Err(PyValueError::new_err(format!("device = {s:?} is not one of \"auto\", \"cpu\", \"gpu\""))),
    }
}

/// The GPU for `device`: `None` for the CPU (asked for, or `auto` without
/// a GPU); a `GpuError` for `gpu` without one, or a GPU that fails to start.
fn pick(device: Device) -> Result<Option<Gpu>, Error> {
    match device {
        Device::Cpu => Ok(None),
        Device::Gpu => gpu().map(Some),
        Device::Auto => match gpu() {
            Ok(g) => Ok(Some(g)),
            Err(Error::NoGpu { .. }) => Ok(None),
            Err(e) => Err(e),
        },
    }
}

/// The transform a plan uses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Transform {
    /// The NTT (one prime or RNS towers), default kernel choice.
    Ntt,
    /// The DGT.
    Dgt,
    /// The planner's choice (`Multiplier::new` on a GPU, no wisdom;
    /// `planner::decide_without_wisdom` on the CPU).
    Auto,
}

/// The planner's multiplier for one word size (boxed: it is large).
struct WordMultiplier<W: Coeff>(Box<Multiplier<W>>);

fn no_decision(choice: Choice) -> Decision {
    Decision { choice, from_wisdom: false, measured_us: None }
}

impl<W: Coeff> WordMultiplier<W> {
    fn new(t: Transform, gpu: Option<Gpu>, n: usize, modulus: Modulus, batch: usize) -> Result<Self, Error> {
        polymul::params::check_n(n)?;
        // `NttPlan` and `DgtPlan` force their transform; `Multiplier` asks the planner.
        let forced = match t {
            Transform::Ntt => Some(no_decision(Choice::Ntt { kernel: NttKernel::Auto, radix: None })),
            Transform::Dgt => Some(no_decision(Choice::Dgt {
                config: DgtConfig::default_for(n.trailing_zeros().saturating_sub(1)),
            })),
            Transform::Auto => None,
        };
        let m = match (forced, gpu) {
            (Some(d), Some(g)) => Multiplier::with_decision(&g, n, modulus, d)?,
            (Some(d), None) => Multiplier::cpu_with_decision(n, modulus, d)?,
            (None, Some(g)) => Multiplier::new(&g, n, modulus, batch)?,
            (None, None) => {
                let d = planner::decide_without_wisdom(&modulus, n);
                Multiplier::cpu_with_decision(n, modulus, d)?
            }
        };
        Ok(WordMultiplier(Box::new(m)))
    }

    /// The DGT on the CPU: its CPU model (exact, not fast).
    fn dgt_model(&self) -> bool {
        self.0.gpu().is_none() && matches!(self.0.decision().choice, Choice::Dgt { .. })
    }

    fn primes(&self) -> Vec<u64> {
        self.0.primes().to_vec()
    }

    fn backend(&self) -> String {
        if self.dgt_model() { "CPU (DGT model)".to_string() } else { self.0.backend().to_string() }
    }

    fn gpu(&self) -> Option<&Gpu> {
        self.0.gpu()
    }

    fn decision(&self) -> String {
        let summary = self.0.decision().summary();
        if self.dgt_model() { format!("{summary} (CPU model)") } else { summary }
    }

    fn transform_host(&self, data: &mut [W], inverse: bool) -> Result<(), Error> {
        // `*self.0`: method lookup on the Box itself would stop at the plan traits' blanket impls.
        let m = &*self.0;
        if inverse { m.inverse(data) } else { m.forward(data) }
    }

    fn polymul_host(&self, a: &[W], b: &[W], out: &mut [W]) -> Result<(), Error> {
        let c = self.0.polymul(a, b)?;
        if c.len() != out.len() {
            return Err(Error::LengthMismatch { what: "out", got: out.len(), expected: c.len() });
        }
        out.copy_from_slice(&c);
        Ok(())
    }

    /// Device data: in place (`forward`, `inverse`) or `out ← a ⊗ b`.
    ///
    /// # Safety
    /// The pointers are device memory of the GPU's primary context, `len`
    /// words each, alive for the call, that nothing else accesses while
    /// the call's work runs, and for `polymul` `out` overlaps neither `a`
    /// nor `b` (which may be the same array); `stream` as for
    /// [`Gpu::ordered_with`].
    unsafe fn device(&self, op: DevOp, ptrs: [u64; 3], len: usize, stream: u64) -> Result<(), Error> {
        let m = &*self.0;
        let Some(g) = m.gpu().cloned() else {
            return Err(Error::NeedsGpu { what: "device arrays" });
        };
        // SAFETY: forwarded to the caller: each pointer is `len` words of
        // device memory of the primary context, alive for the call and
        // touched by nothing else meanwhile; `a` and `b` are shared views
        // (they may alias each other) and `out`, the only mutable one,
        // overlaps neither. The views do not outlive the closure.
        unsafe {
            g.ordered_with(stream, || match op {
                DevOp::Forward | DevOp::Inverse => {
                    let x = DeviceView::<W>::from_raw_parts_mut(&g, ptrs[0], len)?;
                    if op == DevOp::Inverse { m.inverse(x) } else { m.forward(x) }
                }
                DevOp::Polymul => {
                    let a = DeviceView::<W>::from_raw_parts(&g, ptrs[0], len)?;
                    let b = DeviceView::<W>::from_raw_parts(&g, ptrs[1], len)?;
                    let out = DeviceView::<W>::from_raw_parts_mut(&g, ptrs[2], len)?;
                    m.polymul_into(a, b, out)
                }
            })
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum DevOp {
    Forward,
    Inverse,
    Polymul,
}

/// The multiplier of whichever word size the Python object was made for.
enum AnyWordMultiplier {
    U32(WordMultiplier<u32>),
    U64(WordMultiplier<u64>),
}

macro_rules! each {
    ($self:expr, $e:ident => $body:expr) => {
        match $self {
            AnyWordMultiplier::U32($e) => $body,
            AnyWordMultiplier::U64($e) => $body,
        }
    };
}

/// A host buffer given by address: `len` words of `W` at `ptr`.
///
/// # Safety
/// The Python layer passes the data address of a C-contiguous NumPy array
/// of `len` elements of `W`'s dtype that it keeps alive for the call and
/// does not otherwise touch meanwhile.
unsafe fn host<'a, W>(ptr: usize, len: usize) -> PyResult<&'a mut [W]> {
    if ptr == 0 || !ptr.is_multiple_of(std::mem::align_of::<W>()) {
        return Err(PyValueError::new_err("internal: a host buffer is null or misaligned"));
    }
    // SAFETY: forwarded to the caller.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr as *mut W, len) })
}

/// The compiled plan behind `polymul.NttPlan`, `RnsPlan`, `DgtPlan` and
/// `Multiplier` (use those; this class takes raw addresses).
#[pyclass(module = "polymul._polymul", frozen)]
struct Core {
    eng: AnyWordMultiplier,
    n: usize,
    word: u32,
    /// The RNS basis for big-integer products' limb encoding (made on
    /// first use).
    basis: OnceLock<Result<RnsBasis<u64>, String>>,
}

fn modulus_of(bits: u32, towers: usize, primes: Option<Vec<u64>>, q: Option<u64>) -> Modulus {
    match (q, primes) {
        (Some(q), _) => Modulus::Prime(q),
        (None, Some(p)) => Modulus::Primes(p),
        (None, None) if towers == 1 => Modulus::Bits(bits),
        (None, None) => Modulus::Rns { bits, towers },
    }
}

#[pymethods]
impl Core {
    /// `Core(transform, n, word, bits, towers, primes, q, device, batch)`.
    #[new]
    #[pyo3(signature = (transform, n, word=64, bits=62, towers=1, primes=None, q=None, device="auto", batch=1))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        transform: &str,
        n: usize,
        word: u32,
        bits: u32,
        towers: usize,
        primes: Option<Vec<u64>>,
        q: Option<u64>,
        device: &str,
        batch: usize,
    ) -> PyResult<Self> {
        let t = match transform {
            "ntt" => Transform::Ntt,
            "dgt" => Transform::Dgt,
            "auto" => Transform::Auto,
            _ => return Err(PyValueError::new_err(format!("unknown transform {transform:?}"))),
        };
        let device = parse_device(device)?;
        if word != 32 && word != 64 {
            return Err(PyValueError::new_err(format!("word = {word} is not supported: choose 32 or 64")));
        }
        if towers == 0 {
            return Err(to_py(Error::EmptyBasis));
        }
        let modulus = modulus_of(bits, towers, primes, q);
        let eng = py
            .detach(|| -> Result<AnyWordMultiplier, Error> {
                let g = pick(device)?;
                match word {
                    32 => Ok(AnyWordMultiplier::U32(WordMultiplier::new(t, g, n, modulus, batch.max(1))?)),
                    _ => Ok(AnyWordMultiplier::U64(WordMultiplier::new(t, g, n, modulus, batch.max(1))?)),
                }
            })
            .map_err(to_py)?;
        Ok(Core { eng, n, word, basis: OnceLock::new() })
    }

    /// Words per polynomial.
    #[getter]
    fn n(&self) -> usize {
        self.n
    }

    /// Bits per word (32 or 64).
    #[getter]
    fn word(&self) -> u32 {
        self.word
    }

    /// The primes, one per tower.
    #[getter]
    fn primes(&self) -> Vec<u64> {
        each!(&self.eng, e => e.primes())
    }

    /// `GPU <name>` or `CPU backend (<k> threads)`.
    #[getter]
    fn backend(&self) -> String {
        each!(&self.eng, e => e.backend())
    }

    /// Whether it runs on a GPU.
    #[getter]
    fn on_gpu(&self) -> bool {
        each!(&self.eng, e => e.gpu().is_some())
    }

    /// The transform and configuration chosen.
    #[getter]
    fn decision(&self) -> String {
        each!(&self.eng, e => e.decision())
    }

    /// The GPU's ordinal, or `None` on the CPU.
    #[getter]
    fn device_id(&self) -> Option<u32> {
        each!(&self.eng, e => e.gpu().map(|g| g.info().ordinal))
    }

    /// In-place forward (`inverse=False`) or inverse transform of `len`
    /// host words at `ptr` (tower-major).
    fn transform_host(&self, py: Python<'_>, ptr: usize, len: usize, inverse: bool) -> PyResult<()> {
        match &self.eng {
            AnyWordMultiplier::U32(e) => {
                // SAFETY: the Python layer's contract (see `host`).
                let d = unsafe { host::<u32>(ptr, len)? };
                py.detach(|| e.transform_host(d, inverse)).map_err(to_py)
            }
            AnyWordMultiplier::U64(e) => {
                // SAFETY: as above.
                let d = unsafe { host::<u64>(ptr, len)? };
                py.detach(|| e.transform_host(d, inverse)).map_err(to_py)
            }
        }
    }

    /// `out ← a ⊗ b` for `len` host words each (tower-major).
    fn polymul_host(&self, py: Python<'_>, a: usize, b: usize, out: usize, len: usize) -> PyResult<()> {
        match &self.eng {
            AnyWordMultiplier::U32(e) => {
                // SAFETY: the Python layer's contract (see `host`); `out`
                // is a fresh array, distinct from `a` and `b`.
                let (a, b, o) =
                    unsafe { (host::<u32>(a, len)?, host::<u32>(b, len)?, host::<u32>(out, len)?) };
                py.detach(|| e.polymul_host(a, b, o)).map_err(to_py)
            }
            AnyWordMultiplier::U64(e) => {
                // SAFETY: as above.
                let (a, b, o) =
                    unsafe { (host::<u64>(a, len)?, host::<u64>(b, len)?, host::<u64>(out, len)?) };
                py.detach(|| e.polymul_host(a, b, o)).map_err(to_py)
            }
        }
    }

    /// Device arrays: `op` is `forward`, `inverse` (in place at `a`) or
    /// `polymul` (`out ← a ⊗ b`); `len` words each; ordered with the raw
    /// CUDA stream `stream`.
    #[pyo3(signature = (op, len, stream, a, b=0, out=0))]
    #[allow(clippy::too_many_arguments)]
    fn device_op(
        &self,
        py: Python<'_>,
        op: &str,
        len: usize,
        stream: u64,
        a: u64,
        b: u64,
        out: u64,
    ) -> PyResult<()> {
        let op = match op {
            "forward" => DevOp::Forward,
            "inverse" => DevOp::Inverse,
            "polymul" => DevOp::Polymul,
            _ => return Err(PyValueError::new_err(format!("unknown device operation {op:?}"))),
        };
        let ptrs = [a, b, out];
        // `out` becomes a mutable view: it must not overlap an operand
        // (the Python layer refuses `out` at `a`'s or `b`'s address too).
        let bytes = (len as u64).saturating_mul(u64::from(self.word / 8));
        let overlaps = |p: u64, q: u64| p < q.saturating_add(bytes) && q < p.saturating_add(bytes);
        if op == DevOp::Polymul && out != 0 && (overlaps(out, a) || overlaps(out, b)) {
            return Err(PyValueError::new_err("out must not share memory with a or b"));
        }
        // SAFETY: the Python layer passes the data pointers of device arrays
        // it keeps alive (checked by DeviceView::from_raw_parts(_mut)
        // against the context), not touched by anything else meanwhile,
        // and their stream; `out` overlaps neither operand (checked above).
        py.detach(|| each!(&self.eng, e => unsafe { e.device(op, ptrs, len, stream) })).map_err(to_py)
    }

    /// Negacyclic products modulo Q (the product of the primes) of
    /// big-integer polynomials, through the RNS conversions.
    fn polymul_big(&self, py: Python<'_>, a: Vec<BigUint>, b: Vec<BigUint>) -> PyResult<Vec<BigUint>> {
        let AnyWordMultiplier::U64(e) = &self.eng else {
            return Err(PyValueError::new_err(
                "big-integer products need a plan of 64-bit words (word=64): the RNS conversions run on u64 towers",
            ));
        };
        let n = self.n;
        py.detach(|| -> Result<Vec<BigUint>, PyErr> {
            let basis = self
                .basis
                .get_or_init(|| RnsBasis::<u64>::from_primes(n, &e.primes()).map_err(|x| x.to_string()))
                .as_ref()
                .map_err(|msg| PyValueError::new_err(msg.clone()))?;
            let la = basis.to_limbs(&a).map_err(to_py)?;
            if b.len() != a.len() {
                return Err(to_py(Error::LengthMismatch { what: "b", got: b.len(), expected: a.len() }));
            }
            let lb = basis.to_limbs(&b).map_err(to_py)?;
            // The core's own plan: device conversions on an RNS plan, CPU ones otherwise.
            let c = e.0.polymul_limbs(&la, &lb).map_err(to_py)?;
            basis.from_limbs(&c).map_err(to_py)
        })
    }

    /// Q, the product of the primes.
    #[getter]
    fn modulus(&self) -> BigUint {
        self.primes().iter().fold(BigUint::from(1u32), |acc, &p| acc * p)
    }
}

/// NTT-friendly primes (`q ≡ 1 mod 2N`) of `bits` bits for N, largest
/// first, with ψ (the primitive 2N-th root of unity); with `dgt=True`, the
/// DGT's primes `p ≡ −1 mod N` (no ψ).
#[pyfunction]
#[pyo3(signature = (n, bits=62, count=1, dgt=false))]
fn params<'py>(
    py: Python<'py>,
    n: usize,
    bits: u32,
    count: usize,
    dgt: bool,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let found: Vec<(u64, Option<u64>)> = py
        .detach(|| -> Result<_, Error> {
            polymul::params::check_n(n)?;
            if dgt {
                Ok(polymul::dgt::dgt_primes(bits, n, count)?.into_iter().map(|p| (p, None)).collect())
            } else {
                polymul::params::ntt_primes(bits, n, count)?
                    .into_iter()
                    .map(|q| Ok((q, Some(polymul::params::primitive_root_2n(q, n)?))))
                    .collect()
            }
        })
        .map_err(to_py)?;
    found
        .into_iter()
        .map(|(q, psi)| {
            let d = PyDict::new(py);
            d.set_item("q", q)?;
            d.set_item("bits", 64 - q.leading_zeros())?;
            if let Some(psi) = psi {
                d.set_item("psi", psi)?;
            }
            Ok(d)
        })
        .collect()
}

/// `GPU <name>` if a CUDA GPU can be used, else `CPU backend (<k> threads)`.
/// Raises `GpuError` for a GPU that is present but fails to start.
#[pyfunction]
fn backend(py: Python<'_>) -> PyResult<String> {
    py.detach(|| match gpu() {
        Ok(g) => Ok(format!("GPU {}", g.info().name)),
        Err(Error::NoGpu { .. }) => Ok(format!("CPU backend ({} threads)", rayon_threads())),
        Err(e) => Err(to_py(e)),
    })
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Whether a CUDA GPU can be used.
#[pyfunction]
fn gpu_available(py: Python<'_>) -> bool {
    py.detach(|| gpu().is_ok())
}

/// `(kind, exception type)` for every kind of library error, the type
/// `None` where this package chose none (it would raise `RuntimeError`):
/// the table `tests/test_errors.py` checks against the documented one.
#[pyfunction]
fn _error_kinds(py: Python<'_>) -> Vec<(String, Option<Bound<'_, pyo3::types::PyType>>)> {
    ErrorKind::ALL
        .iter()
        .map(|&k| {
            let t = known_exception(k).map(|e| match e {
                PyExc::Value => py.get_type::<PyValueError>(),
                PyExc::Gpu => py.get_type::<GpuError>(),
                PyExc::GpuOutOfMemory => py.get_type::<GpuOutOfMemory>(),
                PyExc::OS => py.get_type::<PyOSError>(),
                PyExc::Runtime => py.get_type::<PyRuntimeError>(),
            });
            (format!("{k:?}"), t)
        })
        .collect()
}

/// The compiled core of the `polymul` package.
#[pymodule]
fn _polymul(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Core>()?;
    m.add_function(wrap_pyfunction!(params, m)?)?;
    m.add_function(wrap_pyfunction!(backend, m)?)?;
    m.add_function(wrap_pyfunction!(gpu_available, m)?)?;
    m.add_function(wrap_pyfunction!(_error_kinds, m)?)?;
    m.add("GpuError", m.py().get_type::<GpuError>())?;
    m.add("GpuOutOfMemory", m.py().get_type::<GpuOutOfMemory>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
