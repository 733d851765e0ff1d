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
//! plan on a GPU (`device=`: one [`Gpu`] per CUDA ordinal, made once and
//! shared), or on the CPU the CPU backend's NTT or the DGT's CPU model. The
//! transform is chosen only by the planner ([`Multiplier::with_decision`] /
//! [`Multiplier::cpu_with_decision`] of a [`Decision`] made here): on a GPU
//! with the process's wisdom (`load_wisdom`, the file `polymul tune`
//! writes), `Multiplier` takes [`planner::decide`]'s choice and `NttPlan` /
//! `DgtPlan` keep their transform family (as `polymul mul` and `mul --dgt`
//! do); on the CPU there is no wisdom key: `Multiplier` takes
//! [`planner::decide_without_wisdom`]. Big-integer products run on the same
//! multiplier ([`Multiplier::polymul_limbs`]).
//!
//! `device="all"` or a list of ordinals makes one multiplier of the same
//! decision per GPU and spreads host-array calls over them by batch
//! ([`MultiPlan::by_batch`]); device arrays and big-integer products stay
//! on one GPU (device arrays are refused, big integers run on the first).

use num_bigint::BigUint;
use polymul::dgt::DgtConfig;
use polymul::planner::{self, Choice, Decision, Modulus, Multiplier, Wisdom, WisdomKey, default_wisdom_path};
use polymul::rns::RnsBasis;
// The plan traits, unnamed: `Transform` here is this module's enum.
use polymul::{
    Coeff, DeviceView, Error, ErrorKind, Gpu, MultiPlan, Plan as _, Product as _, Tensor, Transform as _,
};
use pyo3::create_exception;
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyList, PyString, PyTuple};
use std::collections::BTreeMap;
use std::path::PathBuf;
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
    new_err(exception_for(e.kind()), e.to_string())
}

/// An exception of type `exc` with `msg`.
fn new_err(exc: PyExc, msg: String) -> PyErr {
    match exc {
        PyExc::Value => PyValueError::new_err(msg),
        PyExc::Gpu => GpuError::new_err(msg),
        PyExc::GpuOutOfMemory => GpuOutOfMemory::new_err(msg),
        PyExc::OS => PyOSError::new_err(msg),
        PyExc::Runtime => PyRuntimeError::new_err(msg),
    }
}

/// [`to_py`] with `extra` appended to the message.
fn to_py_with(e: Error, extra: &str) -> PyErr {
    if extra.is_empty() {
        return to_py(e);
    }
    new_err(exception_for(e.kind()), format!("{e}{extra}"))
}

/// The process's GPU handles, one per ordinal, each made on first use (a
/// `Gpu` loads the kernels; every plan on that device shares it) under one
/// lock, so two threads never start the same device twice. Failures are
/// not cached: each call retries.
fn gpu(ordinal: u32) -> Result<Gpu, Error> {
    static GPUS: OnceLock<Mutex<BTreeMap<u32, Gpu>>> = OnceLock::new();
    let cell = GPUS.get_or_init(|| Mutex::new(BTreeMap::new()));
    let mut gpus = cell.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(g) = gpus.get(&ordinal) {
        return Ok(g.clone());
    }
    let g = Gpu::with_device(ordinal)?;
    gpus.insert(ordinal, g.clone());
    Ok(g)
}

/// Where a plan runs.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Device {
    /// GPU 0 if there is one, else the CPU backend.
    Auto,
    /// The CPU backend.
    Cpu,
    /// The GPU of this CUDA ordinal.
    Gpu(u32),
    /// Every GPU of the machine.
    All,
    /// These GPUs (at least two, no repeats).
    Several(Vec<u32>),
}

/// What `device=` may be, for the error messages.
const DEVICE_FORMS: &str = "\"auto\", \"cpu\", \"cuda\" (= \"gpu\", GPU 0), \"cuda:N\" (= \"gpu:N\"), a GPU ordinal N (an int ≥ 0), \"all\" (every GPU) or a list of distinct ordinals";

/// `device=` of a plan: `"auto"`, `"cpu"`, `"cuda"`/`"gpu"` (GPU 0),
/// `"cuda:N"`/`"gpu:N"`, or an int `N ≥ 0` (a CUDA ordinal, as
/// `CUDA_VISIBLE_DEVICES` numbers them). Anything else is a `ValueError`;
/// whether GPU `N` exists is only known when it is opened ([`pick`]).
fn parse_device(obj: &Bound<'_, PyAny>) -> PyResult<Device> {
    let bad = |what: String| PyValueError::new_err(format!("device = {what} is not one of {DEVICE_FORMS}"));
    if let Ok(s) = obj.cast::<PyString>() {
        let s = s.to_cow()?;
        return parse_device_str(&s).ok_or_else(|| bad(format!("{s:?}")));
    }
    // A list or tuple of ordinals: several GPUs (one is that GPU).
    if obj.is_instance_of::<PyList>() || obj.is_instance_of::<PyTuple>() {
        let mut ordinals = Vec::new();
        for item in obj.try_iter()? {
            let item = item?;
            if item.is_instance_of::<PyList>() || item.is_instance_of::<PyTuple>() {
                return Err(bad(format!("{} (a list of lists)", obj.repr()?)));
            }
            match parse_device(&item)? {
                Device::Gpu(i) if !ordinals.contains(&i) => ordinals.push(i),
                _ => return Err(bad(format!("{} (a list needs distinct GPU ordinals)", obj.repr()?))),
            }
        }
        return match ordinals.len() {
            0 => Err(bad("[] (an empty list)".into())),
            1 => Ok(Device::Gpu(ordinals[0])),
            _ => Ok(Device::Several(ordinals)),
        };
    }
    // An int (Python's, NumPy's: anything with __index__), never a bool.
    if obj.is_instance_of::<PyBool>() {
        return Err(bad(obj.repr()?.to_string()));
    }
    match obj.extract::<i128>() {
        Ok(i) => u32::try_from(i).map(Device::Gpu).map_err(|_| bad(i.to_string())),
        Err(_) => Err(bad(format!("{} (a {})", obj.repr()?, obj.get_type().name()?))),
    }
}

/// The string forms of [`parse_device`]; `None` if `s` is none of them.
fn parse_device_str(s: &str) -> Option<Device> {
    match s {
        "auto" => return Some(Device::Auto),
        "all" => return Some(Device::All),
        "cpu" => return Some(Device::Cpu),
        "gpu" | "cuda" => return Some(Device::Gpu(0)),
        _ => {}
    }
    let digits = s.strip_prefix("cuda:").or_else(|| s.strip_prefix("gpu:"))?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok().map(Device::Gpu)
}

/// The GPU for `device`: `None` for the CPU (asked for, or `auto` without
/// a GPU); a `GpuError` for a GPU without one, an ordinal the machine does
/// not have ([`Error::NoSuchDevice`]), or a GPU that fails to start.
fn pick(device: &Device) -> Result<Option<Gpu>, Error> {
    match *device {
        Device::Cpu => Ok(None),
        Device::Gpu(ordinal) => gpu(ordinal).map(Some),
        Device::All | Device::Several(_) => pick_all(device).map(|g| g.into_iter().next()),
        Device::Auto => match gpu(0) {
            Ok(g) => Ok(Some(g)),
            Err(Error::NoGpu { .. }) => Ok(None),
            Err(e) => Err(e),
        },
    }
}

/// The GPUs of `device="all"` (every ordinal) or a list; one GPU for the
/// other forms (none on the CPU).
fn pick_all(device: &Device) -> Result<Vec<Gpu>, Error> {
    match device {
        Device::All => (0..Gpu::device_count()?).map(gpu).collect(),
        Device::Several(ordinals) => ordinals.iter().map(|&o| gpu(o)).collect(),
        other => Ok(pick(other)?.into_iter().collect()),
    }
}

/// The process's wisdom: what `load_wisdom` read (merged, entry by entry),
/// empty at import. Plans on a GPU look their key up in it.
fn wisdom() -> std::sync::MutexGuard<'static, Wisdom> {
    static WISDOM: OnceLock<Mutex<Wisdom>> = OnceLock::new();
    WISDOM.get_or_init(|| Mutex::new(Wisdom::new())).lock().unwrap_or_else(|p| p.into_inner())
}

/// The transform a plan uses.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Transform {
    /// The NTT (one prime or RNS towers): on a GPU the kernel and radix of
    /// the wisdom entry for the plan's key if that entry chose the NTT,
    /// else the automatic kernel choice.
    Ntt,
    /// The DGT: on a GPU the configuration of the wisdom entry if it chose
    /// the DGT, else the default configuration for N.
    Dgt,
    /// The planner's choice ([`planner::decide`] with the process's wisdom
    /// on a GPU; [`planner::decide_without_wisdom`] on the CPU).
    Auto,
}

fn parse_transform(transform: &str) -> PyResult<Transform> {
    match transform {
        "ntt" => Ok(Transform::Ntt),
        "dgt" => Ok(Transform::Dgt),
        "auto" => Ok(Transform::Auto),
        _ => Err(PyValueError::new_err(format!(
            "transform = {transform:?} is not one of \"auto\", \"ntt\", \"dgt\""
        ))),
    }
}

/// The default decision of the transform family `dgt` fixes, without
/// wisdom: the [`planner::rule`] (the NTT) or the DGT's default
/// configuration for N.
fn family_default(dgt: bool, n: usize) -> Decision {
    let choice = if dgt {
        Choice::Dgt { config: DgtConfig::default_for(n.trailing_zeros().saturating_sub(1)) }
    } else {
        planner::rule()
    };
    Decision { choice, from_wisdom: false, measured_us: None }
}

/// The wisdom key of a plan: the device's name (`gpu`'s, else
/// `device_name`), N, word, towers and batch bucket, as
/// [`planner::wisdom_key`] makes it; `None` on the CPU (no device, no key).
fn key_for(
    gpu: Option<&Gpu>,
    device_name: Option<&str>,
    n: usize,
    word: u32,
    modulus: &Modulus,
    batch: usize,
) -> Option<WisdomKey> {
    let device = match (device_name, gpu) {
        (Some(name), _) => name.to_string(),
        (None, Some(g)) => g.info().name.clone(),
        (None, None) => return None,
    };
    Some(WisdomKey {
        device,
        log_n: n.trailing_zeros(),
        word_bits: word,
        towers: modulus.towers(),
        batch_bucket: planner::batch_bucket(batch),
    })
}

/// What a plan of transform `t` for `key` (`None`: on the CPU) uses, with
/// the process's wisdom: as `polymul mul` / `mul --dgt` decide, a forced
/// family keeps a wisdom entry of its own family and otherwise gives way
/// to its default. On the CPU: `NttPlan` the NTT, `DgtPlan` the DGT's
/// default, `Multiplier` [`planner::decide_without_wisdom`].
fn decide_for(t: Transform, key: Option<&WisdomKey>, modulus: &Modulus, n: usize) -> Decision {
    let Some(key) = key else {
        return match t {
            Transform::Ntt => family_default(false, n),
            Transform::Dgt => family_default(true, n),
            Transform::Auto => planner::decide_without_wisdom(modulus, n),
        };
    };
    let decided = planner::decide(key, modulus, n, Some(&wisdom()));
    let is_dgt = matches!(decided.choice, Choice::Dgt { .. });
    match t {
        Transform::Auto => decided,
        Transform::Ntt if !is_dgt => decided,
        Transform::Dgt if is_dgt => decided,
        Transform::Ntt | Transform::Dgt => family_default(t == Transform::Dgt, n),
    }
}

/// The planner's multiplier for one word size: one (boxed: it is large),
/// or one per GPU spread by batch (`device="all"` or a list).
enum WordMultiplier<W: Coeff> {
    One(Box<Multiplier<W>>),
    Several(Box<MultiPlan<W, Multiplier<W>>>),
}

impl<W: Coeff> WordMultiplier<W> {
    /// The multiplier of `decision` on each of `gpus` (several: spread by
    /// batch), else on the CPU.
    fn new(gpus: Vec<Gpu>, n: usize, modulus: Modulus, decision: Decision) -> Result<Self, Error> {
        Ok(match gpus.len() {
            0 => WordMultiplier::One(Box::new(Multiplier::cpu_with_decision(n, modulus, decision)?)),
            1 => WordMultiplier::One(Box::new(Multiplier::with_decision(&gpus[0], n, modulus, decision)?)),
            _ => {
                let each = gpus
                    .iter()
                    .map(|g| Multiplier::with_decision(g, n, modulus.clone(), decision.clone()))
                    .collect::<Result<Vec<_>, Error>>()?;
                WordMultiplier::Several(Box::new(MultiPlan::by_batch(each)?))
            }
        })
    }

    /// The (first) multiplier: what the plan reports, and what runs what
    /// is not spread.
    fn m(&self) -> &Multiplier<W> {
        match self {
            WordMultiplier::One(m) => m,
            WordMultiplier::Several(multi) => &multi.plans()[0],
        }
    }

    /// The GPUs' ordinals (none on the CPU).
    fn ordinals(&self) -> Vec<u32> {
        match self {
            WordMultiplier::One(m) => m.gpu().map(|g| g.info().ordinal).into_iter().collect(),
            WordMultiplier::Several(multi) => {
                multi.plans().iter().filter_map(|p| p.gpu().map(|g| g.info().ordinal)).collect()
            }
        }
    }

    /// The DGT on the CPU: its CPU model (exact, not fast).
    fn dgt_model(&self) -> bool {
        self.m().gpu().is_none() && matches!(self.m().decision().choice, Choice::Dgt { .. })
    }

    fn primes(&self) -> Vec<u64> {
        self.m().primes().to_vec()
    }

    fn backend(&self) -> String {
        match self {
            _ if self.dgt_model() => "CPU (DGT model)".to_string(),
            WordMultiplier::One(m) => m.backend().to_string(),
            WordMultiplier::Several(multi) => multi.backend().to_string(),
        }
    }

    fn gpu(&self) -> Option<&Gpu> {
        self.m().gpu()
    }

    fn decision(&self) -> String {
        let summary = self.m().decision().summary();
        if self.dgt_model() { format!("{summary} (CPU model)") } else { summary }
    }

    fn transform_host(&self, data: &mut [W], inverse: bool) -> Result<(), Error> {
        match self {
            WordMultiplier::One(m) => {
                // `**m`: method lookup on the Box itself would stop at the plan traits' blanket impls.
                let m = &**m;
                if inverse { m.inverse(data) } else { m.forward(data) }
            }
            WordMultiplier::Several(multi) => {
                let multi = &**multi;
                if inverse { multi.inverse(data) } else { multi.forward(data) }
            }
        }
    }

    fn polymul_host(&self, a: &[W], b: &[W], out: &mut [W]) -> Result<(), Error> {
        match self {
            WordMultiplier::One(m) => {
                let c = m.polymul(a, b)?;
                if c.len() != out.len() {
                    return Err(Error::LengthMismatch { what: "out", got: out.len(), expected: c.len() });
                }
                out.copy_from_slice(&c);
                Ok(())
            }
            WordMultiplier::Several(multi) => (**multi).polymul_into(a, b, out),
        }
    }

    fn tensor_host(&self, a: &[W], b: &[W], out: &mut [W]) -> Result<(), Error> {
        match self {
            WordMultiplier::One(m) => Tensor::<W, [W]>::tensor_into(&**m, a, b, out),
            WordMultiplier::Several(multi) => {
                let c = (**multi).tensor(a, b)?;
                if c.len() != out.len() {
                    return Err(Error::LengthMismatch { what: "out", got: out.len(), expected: c.len() });
                }
                out.copy_from_slice(&c);
                Ok(())
            }
        }
    }

    /// Whether device calls check their operands' reduction on the device
    /// (the GPU NTT plans; not the DGT, whose operands the Python layer
    /// checks on the host).
    fn device_checks(&self) -> bool {
        self.m().gpu().is_some() && !matches!(self.m().decision().choice, Choice::Dgt { .. })
    }

    /// Device data: in place (`forward`, `inverse`) or `out ← a ⊗ b`.
    ///
    /// # Safety
    /// The pointers are device memory of the plan GPU's primary context, `len`
    /// words each, alive for the call, that nothing else accesses while
    /// the call's work runs, and for `polymul` `out` overlaps neither `a`
    /// nor `b` (which may be the same array); `stream` as for
    /// [`Gpu::ordered_with`].
    unsafe fn device(&self, op: DevOp, ptrs: [u64; 3], len: usize, stream: u64) -> Result<(), Error> {
        let WordMultiplier::One(m) = self else {
            return Err(Error::SpreadMismatch {
                what: "a device array (a plan on several GPUs takes host arrays)",
            });
        };
        let m = &**m;
        let Some(g) = m.gpu().cloned() else {
            return Err(Error::NeedsGpu { what: "device arrays" });
        };
        // A check queued by an earlier call that found unreduced words.
        m.take_reduced_error()?;
        let checks = self.device_checks();
        let out_len = if op == DevOp::Tensor { len / 2 * 3 } else { len };
        // SAFETY: forwarded to the caller: each pointer is `len` words of
        // device memory of the primary context, alive for the call and
        // touched by nothing else meanwhile; `a` and `b` are shared views
        // (they may alias each other) and `out`, the only mutable one,
        // overlaps neither. The views do not outlive the closure.
        unsafe {
            g.ordered_with(stream, || match op {
                DevOp::Forward | DevOp::Inverse => {
                    let x = DeviceView::<W>::from_raw_parts_mut(&g, ptrs[0], len)?;
                    if checks {
                        m.check_reduced_async(x)?;
                    }
                    if op == DevOp::Inverse { m.inverse(x) } else { m.forward(x) }
                }
                DevOp::Polymul | DevOp::Tensor => {
                    let a = DeviceView::<W>::from_raw_parts(&g, ptrs[0], len)?;
                    let b = DeviceView::<W>::from_raw_parts(&g, ptrs[1], len)?;
                    let out = DeviceView::<W>::from_raw_parts_mut(&g, ptrs[2], out_len)?;
                    if checks {
                        m.check_reduced_async(a)?;
                        if ptrs[1] != ptrs[0] {
                            m.check_reduced_async(b)?;
                        }
                    }
                    if op == DevOp::Tensor {
                        Tensor::<W, DeviceView<W>>::tensor_into(m, a, b, out)
                    } else {
                        m.polymul_into(a, b, out)
                    }
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
    Tensor,
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
    check_host_ptr::<W>(ptr)?;
    // SAFETY: forwarded to the caller.
    Ok(unsafe { std::slice::from_raw_parts_mut(ptr as *mut W, len) })
}

/// A host buffer given by address, read only: `len` words of `W` at `ptr`
/// (the operands of a product, which may be one array: `plan.polymul(a,
/// a)`, or a read-only NumPy array).
///
/// # Safety
/// The Python layer passes the data address of a C-contiguous NumPy array
/// of `len` elements of `W`'s dtype that it keeps alive for the call and
/// that nothing writes meanwhile.
unsafe fn host_ref<'a, W>(ptr: usize, len: usize) -> PyResult<&'a [W]> {
    check_host_ptr::<W>(ptr)?;
    // SAFETY: forwarded to the caller.
    Ok(unsafe { std::slice::from_raw_parts(ptr as *const W, len) })
}

fn check_host_ptr<W>(ptr: usize) -> PyResult<()> {
    if ptr == 0 || !ptr.is_multiple_of(std::mem::align_of::<W>()) {
        return Err(PyValueError::new_err("internal: a host buffer is null or misaligned"));
    }
    Ok(())
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

/// The modulus of a plan after the checks of its parameters that no plan
/// constructor makes first: N, the word, at least one tower.
fn checked_modulus(
    n: usize,
    word: u32,
    bits: u32,
    towers: usize,
    primes: Option<Vec<u64>>,
    q: Option<u64>,
) -> PyResult<Modulus> {
    if word != 32 && word != 64 {
        return Err(PyValueError::new_err(format!("word = {word} is not supported: choose 32 or 64")));
    }
    polymul::params::check_n(n).map_err(to_py)?;
    if towers == 0 {
        return Err(to_py(Error::EmptyBasis));
    }
    Ok(modulus_of(bits, towers, primes, q))
}

#[pymethods]
impl Core {
    /// `Core(transform, n, word, bits, towers, primes, q, device, batch)`.
    #[new]
    #[pyo3(signature = (transform, n, word=64, bits=62, towers=1, primes=None, q=None, device=None, batch=1))]
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
        device: Option<&Bound<'_, PyAny>>,
        batch: usize,
    ) -> PyResult<Self> {
        let t = parse_transform(transform)?;
        let device = device.map_or(Ok(Device::Auto), parse_device)?;
        let modulus = checked_modulus(n, word, bits, towers, primes, q)?;
        let batch = batch.max(1);
        let eng = py.detach(|| -> PyResult<AnyWordMultiplier> {
            let gpus = pick_all(&device).map_err(to_py)?;
            let key = key_for(gpus.first(), None, n, word, &modulus, batch);
            let decision = decide_for(t, key.as_ref(), &modulus, n);
            // A plan the wisdom chose that cannot be built (an edited
            // file) says where it came from.
            let hint = decision.from_wisdom.then(|| {
                format!(
                    "; the loaded wisdom chose {} for this key: fix the wisdom file, or polymul.clear_wisdom() \
                     to plan by the rule",
                    decision.summary()
                )
            });
            let made = match word {
                32 => WordMultiplier::new(gpus, n, modulus, decision).map(AnyWordMultiplier::U32),
                _ => WordMultiplier::new(gpus, n, modulus, decision).map(AnyWordMultiplier::U64),
            };
            made.map_err(|e| to_py_with(e, hint.as_deref().unwrap_or("")))
        })?;
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

    /// Whether a wisdom entry decided the transform (else the rule).
    #[getter(from_wisdom)]
    fn decided_by_wisdom(&self) -> bool {
        each!(&self.eng, e => e.m().decision().from_wisdom)
    }

    /// The GPU's ordinal (the first GPU's on several), or `None` on the CPU.
    #[getter]
    fn device_id(&self) -> Option<u32> {
        each!(&self.eng, e => e.gpu().map(|g| g.info().ordinal))
    }

    /// Every GPU's ordinal (one for a plan on one GPU, none on the CPU).
    #[getter]
    fn device_ids(&self) -> Vec<u32> {
        each!(&self.eng, e => e.ordinals())
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
                // SAFETY: the Python layer's contract (see `host` and
                // `host_ref`): `a` and `b` (maybe one array) are only read;
                // `out` is a fresh array, distinct from both.
                let (a, b, o) =
                    unsafe { (host_ref::<u32>(a, len)?, host_ref::<u32>(b, len)?, host::<u32>(out, len)?) };
                py.detach(|| e.polymul_host(a, b, o)).map_err(to_py)
            }
            AnyWordMultiplier::U64(e) => {
                // SAFETY: as above.
                let (a, b, o) =
                    unsafe { (host_ref::<u64>(a, len)?, host_ref::<u64>(b, len)?, host::<u64>(out, len)?) };
                py.detach(|| e.polymul_host(a, b, o)).map_err(to_py)
            }
        }
    }

    /// `out ← a ⊗ b`, the ciphertext tensor product of `len` host words
    /// each (`out`: `len / 2 · 3` words; the layout of `polymul::Tensor`).
    fn tensor_host(&self, py: Python<'_>, a: usize, b: usize, out: usize, len: usize) -> PyResult<()> {
        let out_len = len / 2 * 3;
        match &self.eng {
            AnyWordMultiplier::U32(e) => {
                // SAFETY: the Python layer's contract (see `host` and
                // `host_ref`): `a` and `b` (maybe one array) are only read;
                // `out` is a fresh array of `out_len` words, distinct from both.
                let (a, b, o) = unsafe {
                    (host_ref::<u32>(a, len)?, host_ref::<u32>(b, len)?, host::<u32>(out, out_len)?)
                };
                py.detach(|| e.tensor_host(a, b, o)).map_err(to_py)
            }
            AnyWordMultiplier::U64(e) => {
                // SAFETY: as above.
                let (a, b, o) = unsafe {
                    (host_ref::<u64>(a, len)?, host_ref::<u64>(b, len)?, host::<u64>(out, out_len)?)
                };
                py.detach(|| e.tensor_host(a, b, o)).map_err(to_py)
            }
        }
    }

    /// Whether device calls check their operands' reduction on the device
    /// (a word of mapped memory read at the next call) rather than needing the Python
    /// layer's check on the host.
    #[getter]
    fn device_checks(&self) -> bool {
        each!(&self.eng, e => e.device_checks())
    }

    /// Waits for the plan's GPU work, then raises `ValueError` if a device
    /// call's operand was not reduced (checked on the device).
    fn synchronize(&self, py: Python<'_>) -> PyResult<()> {
        py.detach(|| {
            each!(&self.eng, e => match e {
                WordMultiplier::One(m) => {
                    m.synchronize()?;
                    m.take_reduced_error()
                }
                WordMultiplier::Several(_) => Ok(()),
            })
        })
        .map_err(to_py)
    }

    /// Device arrays: `op` is `forward`, `inverse` (in place at `a`),
    /// `polymul` (`out ← a ⊗ b`) or `tensor` (`out ← a ⊗ b`, the
    /// ciphertext tensor product: `out` holds `len / 2 · 3` words); `len`
    /// words each; ordered with the raw CUDA stream `stream`. On the GPU
    /// NTT plans the operands' reduction is checked by a kernel queued
    /// first, and a failure is raised by the next call (or `synchronize`).
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
            "tensor" => DevOp::Tensor,
            _ => return Err(PyValueError::new_err(format!("unknown device operation {op:?}"))),
        };
        let ptrs = [a, b, out];
        // `out` becomes a mutable view: it must not overlap an operand
        // (the Python layer refuses `out` at `a`'s or `b`'s address too).
        let word = u64::from(self.word / 8);
        let bytes = (len as u64).saturating_mul(word);
        let out_bytes = if op == DevOp::Tensor { bytes / 2 * 3 } else { bytes };
        let overlaps = |p: u64, q: u64| p < q.saturating_add(bytes) && q < p.saturating_add(out_bytes);
        if matches!(op, DevOp::Polymul | DevOp::Tensor) && out != 0 && (overlaps(out, a) || overlaps(out, b))
        {
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
            let c = e.m().polymul_limbs(&la, &lb).map_err(to_py)?;
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
    py.detach(|| match gpu(0) {
        Ok(g) => Ok(format!("GPU {}", g.info().name)),
        Err(Error::NoGpu { .. }) => Ok(format!("CPU backend ({} threads)", rayon_threads())),
        Err(e) => Err(to_py(e)),
    })
}

fn rayon_threads() -> usize {
    std::thread::available_parallelism().map(|n| n.get()).unwrap_or(1)
}

/// Whether a CUDA GPU (GPU 0) can be used.
#[pyfunction]
fn gpu_available(py: Python<'_>) -> bool {
    py.detach(|| gpu(0).is_ok())
}

/// The number of CUDA devices the driver reports (0 without a GPU or
/// driver): the ordinals `device=` takes are `0..device_count()`.
#[pyfunction]
fn device_count(py: Python<'_>) -> u32 {
    py.detach(|| Gpu::device_count().unwrap_or(0))
}

/// The planner's decision for a plan of these parameters, without making
/// the plan: `(summary, from_wisdom, measured µs per polynomial)`. On the
/// device `device` names (its wisdom key), or with `device_name` on a GPU
/// of that name (no GPU is opened: what a plan there would use).
#[pyfunction]
#[pyo3(signature = (transform, n, word=64, bits=62, towers=1, primes=None, q=None, device=None, batch=1, device_name=None))]
#[allow(clippy::too_many_arguments)]
fn decide(
    py: Python<'_>,
    transform: &str,
    n: usize,
    word: u32,
    bits: u32,
    towers: usize,
    primes: Option<Vec<u64>>,
    q: Option<u64>,
    device: Option<&Bound<'_, PyAny>>,
    batch: usize,
    device_name: Option<String>,
) -> PyResult<(String, bool, Option<f64>)> {
    let t = parse_transform(transform)?;
    let device = device.map_or(Ok(Device::Auto), parse_device)?;
    let modulus = checked_modulus(n, word, bits, towers, primes, q)?;
    let batch = batch.max(1);
    py.detach(|| {
        let g = if device_name.is_some() { None } else { pick(&device).map_err(to_py)? };
        let key = key_for(g.as_ref(), device_name.as_deref(), n, word, &modulus, batch);
        let d = decide_for(t, key.as_ref(), &modulus, n);
        Ok((d.summary(), d.from_wisdom, d.measured_us))
    })
}

/// Reads the wisdom file at `path` (`None`: where `polymul tune` writes
/// it, [`default_wisdom_path`]) and merges its entries into the process's
/// wisdom (an entry replaces one of the same key). Returns how many entries
/// it read and the file. A missing file is `FileNotFoundError` when named,
/// nothing read (0) at the default path; a file that is not wisdom is a
/// `ValueError`.
#[pyfunction]
#[pyo3(signature = (path=None))]
fn load_wisdom(py: Python<'_>, path: Option<PathBuf>) -> PyResult<(usize, Option<PathBuf>)> {
    py.detach(|| {
        let named = path.is_some();
        let Some(path) = path.or_else(default_wisdom_path) else {
            return Ok((0, None));
        };
        match Wisdom::load(&path).map_err(to_py)? {
            Some(w) => {
                let count = w.entries.len();
                let mut mine = wisdom();
                for e in w.entries {
                    mine.insert(e);
                }
                Ok((count, Some(path)))
            }
            None if named => Err(PyFileNotFoundError::new_err(format!(
                "no wisdom file at {}: `polymul tune --out FILE` writes one on a GPU machine, \
                 polymul.save_wisdom(FILE) saves what this process loaded",
                path.display()
            ))),
            None => Ok((0, Some(path))),
        }
    })
}

/// Writes the process's wisdom to `path` (atomically: a temporary file,
/// then a rename; the folder is made). `OSError` if it cannot be written.
#[pyfunction]
fn save_wisdom(py: Python<'_>, path: PathBuf) -> PyResult<()> {
    py.detach(|| {
        let w = wisdom().clone();
        w.save(&path).map_err(to_py)
    })
}

/// Forgets every wisdom entry of the process: plans made after it are
/// planned by the rule.
#[pyfunction]
fn clear_wisdom() {
    *wisdom() = Wisdom::new();
}

/// The process's wisdom as the JSON of a wisdom file.
#[pyfunction]
fn wisdom_json() -> String {
    wisdom().to_json()
}

/// Where `polymul tune` writes wisdom and `load_wisdom()` reads it:
/// `$POLYMUL_WISDOM`, else `$XDG_CACHE_HOME/polymul/wisdom.json`, else
/// `~/.cache/polymul/wisdom.json`; `None` if none of these is set.
#[pyfunction]
fn wisdom_path() -> Option<PathBuf> {
    default_wisdom_path()
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

/// How `device=` reads `device`: `"auto"`, `"cpu"` or the GPU ordinal,
/// without opening anything (for the tests of the parser).
#[pyfunction]
fn _parse_device<'py>(py: Python<'py>, device: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyAny>> {
    Ok(match parse_device(device)? {
        Device::Auto => "auto".into_pyobject(py)?.into_any(),
        Device::Cpu => "cpu".into_pyobject(py)?.into_any(),
        Device::Gpu(i) => i.into_pyobject(py)?.into_any(),
        Device::All => "all".into_pyobject(py)?.into_any(),
        Device::Several(v) => v.into_pyobject(py)?.into_any(),
    })
}

/// The compiled core of the `polymul` package.
#[pymodule]
fn _polymul(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Core>()?;
    m.add_function(wrap_pyfunction!(params, m)?)?;
    m.add_function(wrap_pyfunction!(backend, m)?)?;
    m.add_function(wrap_pyfunction!(gpu_available, m)?)?;
    m.add_function(wrap_pyfunction!(device_count, m)?)?;
    m.add_function(wrap_pyfunction!(decide, m)?)?;
    m.add_function(wrap_pyfunction!(load_wisdom, m)?)?;
    m.add_function(wrap_pyfunction!(save_wisdom, m)?)?;
    m.add_function(wrap_pyfunction!(clear_wisdom, m)?)?;
    m.add_function(wrap_pyfunction!(wisdom_json, m)?)?;
    m.add_function(wrap_pyfunction!(wisdom_path, m)?)?;
    m.add_function(wrap_pyfunction!(_error_kinds, m)?)?;
    m.add_function(wrap_pyfunction!(_parse_device, m)?)?;
    m.add("GpuError", m.py().get_type::<GpuError>())?;
    m.add("GpuOutOfMemory", m.py().get_type::<GpuOutOfMemory>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
