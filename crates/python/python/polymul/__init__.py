"""polymul: negacyclic polynomial multiplication in Z_q[X]/(X^N + 1).

NumPy arrays (and CUDA arrays: CuPy, PyTorch, anything with
``__cuda_array_interface__`` or DLPack) in, products out — on the GPU when
there is one, else on polymul's CPU backend.

>>> import numpy as np, polymul
>>> plan = polymul.NttPlan(1024, bits=62)            # GPU if present, else the CPU
>>> a = np.random.randint(0, plan.q, (8, 1024), dtype=np.uint64)
>>> c = plan.polymul(a, a)                           # a·a mod (X^N + 1, q), per row
>>> c.shape
(8, 1024)

Plans: :class:`NttPlan` (one prime), :class:`RnsPlan` (RNS towers, and
big-integer products modulo Q through the RNS conversions), :class:`DgtPlan`
(the discrete Galois transform) and :class:`Multiplier` (the planner's
choice). Each takes ``device=`` (``"auto"``, ``"cpu"``, ``"cuda"``,
``"cuda:N"``, an ordinal ``N``, or several GPUs: ``"all"`` or a list of
ordinals, over which host arrays are spread by batch) and ``dtype=``
(``numpy.uint32`` or ``numpy.uint64``, the default; ``word=32``/``64`` is
the same).

Wisdom: :func:`load_wisdom` reads the decisions ``polymul tune`` measured
on a GPU (or a file :func:`save_wisdom` wrote); plans made after it on that
GPU use them. :func:`decide` shows what a plan would use.

Errors, each with the library's message: :class:`ValueError` for
bad input and for an operation the plan does not offer (a DGT plan's
``forward``, a CUDA array given to a plan on the CPU), :class:`GpuError` for
no GPU where one is required (or a GPU ordinal the machine does not have)
and device failures (:class:`GpuOutOfMemory`, a subclass, when the GPU's
memory runs out), :class:`OSError` for a file that cannot be written
(:class:`FileNotFoundError` for a wisdom file that is not there).
"""

from __future__ import annotations

import contextlib as _contextlib
import json as _json
import os as _os

import numpy as _np

# The extension opens the NVIDIA driver's libcuda.so.1 at its first GPU query
# (not at import); without it, polymul runs on the CPU.
from ._polymul import Core as _Core
from ._polymul import GpuError, GpuOutOfMemory, __version__
from ._polymul import backend as _backend
from ._polymul import clear_wisdom as _clear_wisdom
from ._polymul import decide as _decide
from ._polymul import device_count as _device_count
from ._polymul import load_wisdom as _load_wisdom
from ._polymul import save_wisdom as _save_wisdom
from ._polymul import wisdom_json as _wisdom_json
from ._polymul import wisdom_path as _wisdom_path
from ._polymul import gpu_available as _gpu_available
from ._polymul import params as _params

__all__ = [
    "NttPlan",
    "RnsPlan",
    "DgtPlan",
    "Multiplier",
    "auto",
    "params",
    "backend",
    "gpu_available",
    "device_count",
    "decide",
    "load_wisdom",
    "save_wisdom",
    "clear_wisdom",
    "wisdom_entries",
    "wisdom_path",
    "GpuError",
    "GpuOutOfMemory",
    "negacyclic_reference",
    "__version__",
]

_DTYPES = {32: _np.dtype(_np.uint32), 64: _np.dtype(_np.uint64)}
# DLPack device types: kDLCUDA, kDLCUDAManaged.
_DLPACK_CUDA = (2, 13)


def params(n, bits=62, count=1, dgt=False):
    """Primes for N = ``n``: ``count`` NTT-friendly primes ``q ≡ 1 (mod 2N)``
    of ``bits`` bits, largest first, each as ``{"q": q, "bits": b, "psi": ψ}``
    (ψ the primitive 2N-th root of unity the NTT uses); with ``dgt=True`` the
    DGT's primes ``p ≡ −1 (mod N)`` (no ψ).

    Raises ``ValueError`` for a bad N, width or count (not enough primes)."""
    return _params(_u(n, "n"), _u(bits, "bits", 32), _u(count, "count"), bool(dgt))


def backend():
    """``"GPU <name>"`` when a CUDA GPU can be used, else
    ``"CPU backend (<k> threads)"``. Raises :class:`GpuError` for a GPU that
    is present but fails to start."""
    return _backend()


def gpu_available():
    """Whether a CUDA GPU can be used (GPU 0: plans with ``device="auto"``
    use it)."""
    return _gpu_available()


def device_count():
    """The number of CUDA GPUs the driver reports (0 without a GPU): the
    ordinals ``device=`` takes are ``0`` to ``device_count() - 1``, numbered
    as ``CUDA_VISIBLE_DEVICES`` leaves them."""
    return _device_count()


# --- wisdom ------------------------------------------------------------------


def _path(p, name):
    """A str path the extension can take: ``p`` (a str, bytes or
    os.PathLike) that the file system's encoding can encode, else
    ValueError."""
    try:
        p = _os.fspath(p)
    except TypeError:
        raise ValueError(f"{name} = {p!r} is not a file path (a str or os.PathLike)") from None
    p = _os.fsdecode(p) if isinstance(p, bytes) else p
    try:
        _os.fsencode(p)
    except UnicodeEncodeError as e:
        # (a lone surrogate such as "\ud800": no file can have this name)
        raise ValueError(f"{name} = {p!r} is not a file name this system can encode: {e.reason}") from None
    return p


def load_wisdom(path=None):
    """Reads a wisdom file and merges its entries into this process's
    wisdom (an entry replaces a loaded one of the same key); returns how
    many entries the file had.

    Wisdom is what ``polymul tune`` measured on a GPU: for each device name,
    N, word size, tower count and batch bucket, the fastest NTT kernel and
    radix or DGT configuration. Plans made afterwards on a GPU of that name
    use the entry of their key (the nearest batch bucket if not the same):
    :class:`Multiplier` whatever it chose, :class:`NttPlan` /
    :class:`RnsPlan` an NTT entry, :class:`DgtPlan` a DGT entry (an entry of
    the other transform leaves them on their default). Plans on the CPU have
    no wisdom key and never use it. Plans already made keep their choice.

    ``path=None`` reads where ``polymul tune`` writes (:func:`wisdom_path`):
    nothing there is not an error (returns 0). A named file that does not
    exist raises ``FileNotFoundError``; a file that is not wisdom of this
    version (not JSON, another format or version) raises ``ValueError``, and
    nothing of it is loaded."""
    count, _ = _load_wisdom(None if path is None else _path(path, "path"))
    return count


def save_wisdom(path):
    """Writes this process's wisdom (every entry :func:`load_wisdom`
    merged) to ``path`` as a wisdom file ``load_wisdom`` and the ``polymul``
    command line read; atomically (a temporary file, then a rename), making
    the folder. Raises ``OSError`` if it cannot be written."""
    _save_wisdom(_path(path, "path"))


def clear_wisdom():
    """Forgets every loaded wisdom entry: plans made afterwards follow the
    planner's rule."""
    _clear_wisdom()


def wisdom_entries():
    """This process's wisdom entries, as in the file: a list of dicts
    ``{"key": {"device", "log_n", "word_bits", "towers", "batch_bucket"},
    "winner": {"transform": "ntt", "kernel", "radix"} or {"transform": "dgt",
    "config": {...}}, "us_per_poly", "candidates"}``."""
    return _json.loads(_wisdom_json())["entries"]


def wisdom_path():
    """Where ``polymul tune`` writes wisdom and ``load_wisdom()`` reads it:
    ``$POLYMUL_WISDOM``, else ``$XDG_CACHE_HOME/polymul/wisdom.json``, else
    ``~/.cache/polymul/wisdom.json`` (a str; ``None`` if none of these
    variables is set)."""
    p = _wisdom_path()
    return None if p is None else str(p)


_TRANSFORMS = ("auto", "ntt", "dgt")


def decide(
    n,
    bits=62,
    towers=1,
    primes=None,
    q=None,
    batch=1,
    word=None,
    device="auto",
    *,
    dtype=None,
    transform="auto",
    device_name=None,
):
    """What a plan of these parameters would use, without making it: a dict
    ``{"decision": str, "from_wisdom": bool, "measured_us": float or None}``
    (``decision`` as a plan's :attr:`~NttPlan.decision`; ``measured_us`` the
    wisdom entry's µs per polynomial).

    ``transform``: ``"auto"`` (:class:`Multiplier`), ``"ntt"``
    (:class:`NttPlan`, :class:`RnsPlan`) or ``"dgt"`` (:class:`DgtPlan`).
    The decision is the one on ``device`` (its wisdom key has the GPU's
    name; on the CPU no wisdom applies), or with ``device_name`` the one on
    a GPU of that name (no GPU is needed: e.g. to check a wisdom file made
    on another machine). Raises ``ValueError`` for bad parameters and
    :class:`GpuError` as the plan would."""
    if transform not in _TRANSFORMS:
        raise ValueError(f'transform = {transform!r} is not one of "auto", "ntt", "dgt"')
    if device_name is not None and not isinstance(device_name, str):
        raise ValueError(f"device_name = {device_name!r} is not a str (a GPU's name, as plan.backend shows it)")
    if transform == "dgt" and q is not None:
        primes, q = [_u(q, "q")], None
    summary, from_wisdom, us = _decide(
        transform,
        _u(n, "n"),
        _word(word, dtype),
        _u(bits, "bits", 32),
        _u(towers, "towers"),
        _primes(primes),
        None if q is None else _u(q, "q"),
        device,
        _u(batch, "batch"),
        device_name,
    )
    return {"decision": summary, "from_wisdom": from_wisdom, "measured_us": us}


def negacyclic_reference(a, b, q):
    """The schoolbook negacyclic product of two coefficient lists modulo
    ``q`` in pure Python (quadratic; for checking small cases)."""
    n = len(a)
    if len(b) != n:
        raise ValueError(f"b has {len(b)} coefficients, expected {n}")
    c = [0] * n
    for i, x in enumerate(a):
        x = int(x)
        if x == 0:
            continue
        for j, y in enumerate(b):
            k = i + j
            if k < n:
                c[k] += x * int(y)
            else:
                c[k - n] -= x * int(y)
    return [v % q for v in c]


# --- device arrays -----------------------------------------------------------


def _is_device(x):
    mod = type(x).__module__
    if mod.startswith("cupy"):
        return hasattr(x, "data") and hasattr(x, "device")
    if mod.startswith("torch") and hasattr(x, "is_cuda"):
        return bool(x.is_cuda)
    if hasattr(x, "__cuda_array_interface__"):
        return True
    dev = getattr(x, "__dlpack_device__", None)
    if dev is not None and not isinstance(x, _np.ndarray):
        try:
            return int(dev()[0]) in _DLPACK_CUDA
        except Exception:  # noqa: BLE001 - a foreign object's failure means "not a CUDA array"
            return False
    return False


def _as_cai(x):
    """(array, its __cuda_array_interface__): DLPack-only CUDA arrays are
    viewed through CuPy (zero-copy)."""
    if hasattr(x, "__cuda_array_interface__"):
        return x, x.__cuda_array_interface__
    try:
        import cupy
    except ImportError as e:
        raise ValueError(
            "a DLPack CUDA array without __cuda_array_interface__ needs CuPy to be viewed; "
            "install cupy or pass a CuPy array or PyTorch tensor"
        ) from e
    y = cupy.from_dlpack(x)
    return y, y.__cuda_array_interface__


def _view(x, itemsize):
    """(array, data pointer, shape, typestr, C-contiguous, device ordinal or
    None, the interface's stream or None) of a CUDA array: CuPy arrays read
    directly (their ``__cuda_array_interface__`` builds a dict per access),
    the others through the interface (DLPack-only ones viewed through
    CuPy)."""
    if type(x).__module__.startswith("cupy") and hasattr(x, "data") and hasattr(x, "flags"):
        return x, int(x.data.ptr), tuple(x.shape), x.dtype.str, bool(x.flags.c_contiguous), int(x.device.id), None
    x, cai = _as_cai(x)
    return (
        x,
        int(cai["data"][0]),
        tuple(cai["shape"]),
        cai["typestr"],
        _c_contiguous(cai, itemsize),
        _device_id_of(x),
        cai.get("stream"),
    )


def _stream_of(x, cai, stream):
    """The raw CUstream to order the work with: the caller's ``stream``
    (an int, CuPy ``Stream`` or PyTorch ``Stream``), else the array's
    interface's, else the current stream of its library, else 0."""
    if stream is not None:
        for attr in ("ptr", "cuda_stream"):
            if hasattr(stream, attr):
                return int(getattr(stream, attr))
        return int(stream)
    s = cai.get("stream") if isinstance(cai, dict) else cai
    if s is not None:
        return int(s)
    mod = type(x).__module__.split(".")[0]
    try:
        if mod == "cupy":
            import cupy

            if x.device.id == cupy.cuda.runtime.getDevice():
                return int(cupy.cuda.get_current_stream().ptr)
            with x.device:  # the current stream of the array's GPU
                return int(cupy.cuda.get_current_stream().ptr)
        if mod == "torch":
            import torch

            return int(torch.cuda.current_stream(x.device).cuda_stream)
    except Exception:  # noqa: BLE001 - fall back to the legacy default stream
        pass
    return 0


def _device_id_of(x):
    """The CUDA ordinal of a device array where its library says (CuPy,
    PyTorch, DLPack), else None."""
    try:
        mod = type(x).__module__.split(".")[0]
        if mod == "cupy":
            return int(x.device.id)
        if mod == "torch":
            return int(x.device.index)
        dev = getattr(x, "__dlpack_device__", None)
        if dev is not None:
            return int(dev()[1])
    except Exception:  # noqa: BLE001 - unknown: the library's own check (the pointer's context) decides
        pass
    return None


def _c_contiguous(cai, itemsize):
    strides = cai.get("strides")
    if strides is None:
        return True
    expect = itemsize
    for dim, st in zip(reversed(cai["shape"]), reversed(strides)):
        if dim > 1 and st != expect:
            return False
        expect *= dim
    return True


def _clone(x, stream):
    """A copy of the device array ``x`` made on the raw stream ``stream``
    (so polymul's work, ordered after that stream, sees it complete)."""
    mod = type(x).__module__.split(".")[0]
    if mod == "cupy":
        import cupy

        with cupy.cuda.ExternalStream(stream) if stream not in (0, 1, 2) else _contextlib.nullcontext():
            return x.copy()
    if mod == "torch":
        import torch

        if stream in (0, 1, 2):
            return x.clone()
        with torch.cuda.stream(torch.cuda.ExternalStream(stream, device=x.device)):
            return x.clone()
    return x.copy()


def _empty(x, shape, stream):
    """An uninitialised device array of ``x``'s library, dtype and device,
    of ``shape``, allocated on the raw stream ``stream``."""
    mod = type(x).__module__.split(".")[0]
    if mod == "cupy":
        import cupy

        with x.device:
            with cupy.cuda.ExternalStream(stream) if stream not in (0, 1, 2) else _contextlib.nullcontext():
                return cupy.empty(shape, dtype=x.dtype)
    if mod == "torch":
        import torch

        if stream in (0, 1, 2):
            return torch.empty(shape, dtype=x.dtype, device=x.device)
        with torch.cuda.stream(torch.cuda.ExternalStream(stream, device=x.device)):
            return torch.empty(shape, dtype=x.dtype, device=x.device)
    import cupy

    return cupy.empty(shape, dtype=x.dtype)


def _tensor_shape(shape, n):
    """The shape of the tensor product's output for inputs of ``shape``:
    the polynomial axis (second to last) scaled by 3/2 where it is even,
    else ``(polynomials · 3/2, N)``."""
    shape = tuple(shape)
    if len(shape) >= 2 and shape[-2] % 2 == 0:
        return shape[:-2] + (shape[-2] // 2 * 3, shape[-1])
    size = 1
    for d in shape:
        size *= d
    return (size // n // 2 * 3, n)


# --- plans -------------------------------------------------------------------


class _Plan:
    """What every plan has: see :class:`NttPlan`."""

    __slots__ = ("_core", "_fast")

    def __init__(self, core):
        self._core = core
        # What every device call asks, read once (the core's getters cross
        # into Rust each time).
        word = core.word
        self._fast = {
            "n": core.n,
            "towers": len(core.primes),
            "word": word,
            "itemsize": word // 8,
            "typestr": "<u4" if word == 32 else "<u8",
            "on_gpu": core.on_gpu,
            "several": len(core.device_ids) > 1,
            "device_id": core.device_id,
            "device_checks": core.device_checks,
        }

    # properties
    @property
    def n(self):
        """Coefficients per polynomial (N)."""
        return self._core.n

    @property
    def word(self):
        """Bits per word: 32 (``uint32``) or 64 (``uint64``)."""
        return self._core.word

    @property
    def dtype(self):
        """The NumPy dtype of the plan's words."""
        return _DTYPES[self._core.word]

    @property
    def primes(self):
        """The primes, one per tower (one for a single-prime plan)."""
        return list(self._core.primes)

    @property
    def towers(self):
        """The number of RNS towers (1 for a single prime)."""
        return len(self._core.primes)

    @property
    def q(self):
        """The prime of a single-prime plan (the first tower's otherwise)."""
        return self._core.primes[0]

    @property
    def modulus(self):
        """Q, the product of the primes (a Python int)."""
        return self._core.modulus

    @property
    def backend(self):
        """Where it runs: ``"GPU <name>"`` or ``"CPU backend (<k> threads)"``."""
        return self._core.backend

    @property
    def on_gpu(self):
        """True when it runs on a CUDA GPU, False on the CPU backend."""
        return self._core.on_gpu

    @property
    def device(self):
        """``"cuda:N"`` (the GPU of ordinal N), ``"cpu"``, or on several GPUs
        the list of their ordinals: a value ``device=`` takes."""
        ids = self._core.device_ids
        if len(ids) > 1:
            return list(ids)
        i = self._core.device_id
        return "cpu" if i is None else f"cuda:{i}"

    @property
    def device_id(self):
        """The GPU's CUDA ordinal (the first GPU's on several), or ``None``
        on the CPU."""
        return self._core.device_id

    @property
    def device_ids(self):
        """Every GPU's CUDA ordinal: one for a plan on one GPU, several for
        ``device="all"`` or a list, none on the CPU."""
        return list(self._core.device_ids)

    @property
    def decision(self):
        """The transform and configuration the plan uses (one line)."""
        return self._core.decision

    @property
    def from_wisdom(self):
        """True when a loaded wisdom entry (:func:`load_wisdom`) chose the
        transform, False when the planner's rule did."""
        return self._core.from_wisdom

    def __repr__(self):
        primes = self.primes
        shown = f"primes={primes}" if len(primes) <= 4 else f"towers={len(primes)}, primes=[{primes[0]}, ...]"
        return f"{type(self).__name__}(n={self.n}, word={self.word}, {shown}, backend={self.backend!r})"

    # host arrays
    def _host(self, x, name, copy):
        """A C-contiguous array of the plan's dtype with ``x``'s values
        (a copy when ``copy``), after the shape and dtype checks."""
        if not isinstance(x, _np.ndarray):
            if isinstance(x, (list, tuple)):
                x = _words_of_list(x, self.dtype, name)
            else:
                raise ValueError(
                    f"{name} is a {type(x).__name__}: pass a NumPy array of uint32/uint64, "
                    "a CUDA array (CuPy, PyTorch) or a list of ints"
                )
        dt = x.dtype
        if dt != self.dtype and not (dt == _np.uint32 and self.word == 64):
            raise ValueError(
                f"{name} has dtype {dt}: a plan of {self.word}-bit words takes "
                f"{self.dtype}" + (" (or uint32)" if self.word == 64 else "")
            )
        self._check_shape(x.shape, name)
        if copy:
            return _np.array(x, dtype=self.dtype, order="C", copy=True)
        y = _np.ascontiguousarray(x, dtype=self.dtype)
        # A contiguous view may still be misaligned (an array over a byte
        # buffer at an odd offset, as Dask's and pickle's deserialized frames
        # can be): the extension takes aligned words only, so copy it.
        return y if y.flags.aligned else y.copy()

    def _check_shape(self, shape, name):
        n, k = self._fast["n"], self._fast["towers"]
        if len(shape) == 0:
            raise ValueError(f"{name} is a scalar: pass an array of shape (N,) or (batch, N) with N = {n}")
        if shape[-1] != n:
            raise ValueError(f"{name} has {shape[-1]} coefficients per polynomial (last axis), expected N = {n}")
        size = 1
        for d in shape:
            size *= d
        if size == 0:
            raise ValueError(f"{name} is empty: pass at least one polynomial")
        if k > 1 and (size // n) % k != 0:
            raise ValueError(
                f"{name} has {size // n} polynomials, not a multiple of the {k} towers "
                f"(RNS data is tower-major: shape ({k}, N) or ({k}, batch, N))"
            )

    def forward(self, x, *, stream=None, inplace=False):
        """The forward negacyclic NTT of each polynomial of ``x`` (shape
        ``(N,)``, ``(batch, N)``; RNS: tower-major), as a new array (CUDA
        arrays: ``inplace=True`` transforms ``x`` itself and returns it).

        Raises ``ValueError`` for a wrong dtype, N or shape, or a
        coefficient ≥ q (CUDA arrays on the NTT plans: raised by the next
        call or :meth:`synchronize`); :class:`GpuError` for a device
        failure."""
        return self._transform(x, False, stream, inplace)

    def inverse(self, x, *, stream=None, inplace=False):
        """The inverse of :meth:`forward` (scaled by 1/N): back to
        coefficients. Arguments and errors as :meth:`forward`."""
        return self._transform(x, True, stream, inplace)

    def _transform(self, x, inverse, stream, inplace):
        if _is_device(x):
            return self._device_transform(x, inverse, stream, inplace)
        if inplace:
            raise ValueError("inplace=True is for CUDA arrays; host arrays are returned as new arrays")
        y = self._host(x, "data", copy=True)
        self._core.transform_host(y.ctypes.data, y.size, inverse)
        return y

    def polymul(self, a, b, *, stream=None, out=None):
        """The negacyclic products ``a·b mod (X^N + 1, q)``, row by row
        (RNS: tower by tower), as a new array of ``a``'s shape. Host arrays
        (NumPy) give a NumPy array; CUDA arrays (CuPy, PyTorch, DLPack) give
        an array of the same library on the same device (or fill ``out``),
        computed in place on the device without host copies, ordered with
        ``stream`` (default: the array's current stream).

        Raises ``ValueError`` for a wrong dtype, N or shape, shapes that
        differ, or a coefficient ≥ q (CUDA arrays on the NTT plans: raised
        by the next call or :meth:`synchronize`); :class:`GpuError` for a
        device failure."""
        if _is_device(a) or _is_device(b):
            return self._device_polymul(a, b, stream, out)
        if out is not None:
            raise ValueError("out= is for CUDA arrays; host products are returned as new arrays")
        ha = self._host(a, "a", copy=False)
        hb = self._host(b, "b", copy=False)
        if ha.size != hb.size:
            raise ValueError(f"b has {hb.size} coefficients, expected {ha.size} (the length of a)")
        c = _np.empty_like(ha)
        self._core.polymul_host(ha.ctypes.data, hb.ctypes.data, c.ctypes.data, ha.size)
        return c.reshape(ha.shape)

    # device arrays
    def _device_array(self, x, name):
        """(array, view) of a CUDA operand after the plan's checks; the
        view is :func:`_view`'s tuple."""
        f = self._fast
        if not f["on_gpu"]:
            raise ValueError(
                f"{name} is a CUDA array but this plan runs on the {self.backend}; "
                "make the plan with device='cuda' (or 'auto' on a machine with a GPU)"
            )
        if f["several"]:
            raise ValueError(
                f"{name} is a CUDA array but this plan spans GPUs {self.device_ids}: device arrays live on "
                "one GPU; make one plan per GPU (device='cuda:N') for them, or pass host (NumPy) arrays"
            )
        v = _view(x, f["itemsize"])
        x, dev = v[0], v[5]
        if dev is not None and dev != f["device_id"]:
            raise ValueError(
                f"{name} is on cuda:{dev} but this plan runs on {self.device}: "
                f"make the plan with device='cuda:{dev}', or move the array"
            )
        if v[3] != f["typestr"]:
            raise ValueError(
                f"{name} has type {v[3]}: a plan of {f['word']}-bit words takes "
                f"{self.dtype} ({f['typestr']}) on the device"
            )
        self._check_shape(v[2], name)
        if not v[4]:
            raise ValueError(f"{name} is not C-contiguous: pass a contiguous CUDA array (.copy() it)")
        if not f["device_checks"]:
            # The DGT's device calls: compared on the host (one
            # synchronisation per operand). The NTT plans check on the
            # device, without waiting (see ``synchronize``).
            self._check_reduced(x, name)
        size = 1
        for d in v[2]:
            size *= d
        return x, v, size

    def _check_reduced(self, x, name):
        """Every coefficient below its tower's prime, checked on the device
        (a reduction: only one flag comes to the host)."""
        mod = type(x).__module__.split(".")[0]
        k = self.towers
        try:
            if mod == "cupy":
                import cupy

                p = cupy.asarray(self.primes, dtype=x.dtype).reshape(k, 1)
                bad = bool((x.reshape(k, -1) >= p).any())
            elif mod == "torch":
                import torch

                p = torch.tensor([int(v) for v in self.primes], dtype=x.dtype, device=x.device).reshape(k, 1)
                bad = bool((x.reshape(k, -1) >= p).any())
            else:
                return
        except (TypeError, RuntimeError, NotImplementedError):
            return  # a library without comparisons of this dtype: unchecked
        if bad:
            what = f"q = {self.q}" if k == 1 else f"its tower's prime (primes {self.primes})"
            raise ValueError(f"{name} has a coefficient that is not reduced modulo {what}; reduce inputs first")

    def _device_transform(self, x, inverse, stream, inplace):
        x, v, size = self._device_array(x, "data")
        s = _stream_of(x, v[6], stream)
        if inplace:
            y, ptr = x, v[1]
        else:
            y = _clone(x, s)
            ptr = _view(y, self._fast["itemsize"])[1]
        self._core.device_op("inverse" if inverse else "forward", size, s, ptr)
        return y

    def _device_pair(self, a, b):
        """Both operands of a device product checked: CUDA arrays of the
        plan's words and one length. ``(a, a's view, b, b's view, words)``
        (views as :func:`_view` gives them)."""
        for name, v in (("a", a), ("b", b)):
            if not _is_device(v):
                raise ValueError(f"{name} is a host array but the other operand is a CUDA array: pass both on the GPU")
        a, av, size = self._device_array(a, "a")
        b, bv, bsize = self._device_array(b, "b")
        if bsize != size:
            raise ValueError(f"b has {bsize} coefficients, expected {size} (the length of a)")
        return a, av, b, bv, size

    def _device_polymul(self, a, b, stream, out):
        a, av, b, bv, size = self._device_pair(a, b)
        s = _stream_of(a, av[6], stream)
        out, optr = self._device_out(a, av, out, av[2], size, s)
        if optr in (av[1], bv[1]):
            raise ValueError("out must not share memory with a or b")
        self._core.device_op("polymul", size, s, av[1], bv[1], optr)
        return out

    def _device_out(self, a, av, out, shape, size, s):
        """(out, its data pointer): a new array of ``a``'s library, dtype and
        device of ``shape`` (``size`` words), or the caller's ``out``
        checked to be a C-contiguous CUDA array of ``size`` words of
        ``a``'s dtype."""
        if out is None:
            out = _empty(a, shape, s)
            return out, _view(out, self._fast["itemsize"])[1]
        if not _is_device(out):
            raise ValueError("out must be a CUDA array of the result's shape and a's dtype")
        ov = _view(out, self._fast["itemsize"])
        osize = 1
        for d in ov[2]:
            osize *= d
        if ov[3] != av[3] or osize != size or not ov[4]:
            raise ValueError(f"out must be a C-contiguous CUDA array of a's dtype and {size} coefficients")
        return ov[0], ov[1]

    def tensor(self, a, b, *, stream=None, out=None):
        """The ciphertext tensor product: ``a`` and ``b`` hold ciphertexts
        ``(c0, c1)``, two polynomials each in the plan's layout (RNS:
        tower-major, so one ciphertext of ``k`` towers has shape ``(k, 2,
        N)``; ``m`` ciphertexts ``(k, 2m, N)`` or ``(k, m, 2, N)``); the
        result holds, for each ciphertext, ``a0·b0``, ``a0·b1 + a1·b0`` and
        ``a1·b1`` (negacyclic products, each tower modulo its prime), with
        the polynomial axis 3/2 as long (``(k, 3, N)`` for one ciphertext).
        Host arrays give a NumPy array; CUDA arrays an array of their
        library on their device (or fill ``out``), ordered with ``stream``
        as :meth:`polymul`.

        Raises ``ValueError`` for a wrong dtype, N or shape, an odd number
        of polynomials per tower, shapes that differ, or a coefficient ≥ q
        (for CUDA arrays on the NTT plans: raised by the next call or
        :meth:`synchronize`, see there); :class:`GpuError` for a device
        failure."""
        if _is_device(a) or _is_device(b):
            a, av, b, bv, size = self._device_pair(a, b)
            self._check_pairs(size, "a")
            s = _stream_of(a, av[6], stream)
            out, optr = self._device_out(a, av, out, _tensor_shape(av[2], self._fast["n"]), size // 2 * 3, s)
            self._core.device_op("tensor", size, s, av[1], bv[1], optr)
            return out
        if out is not None:
            raise ValueError("out= is for CUDA arrays; host products are returned as new arrays")
        ha = self._host(a, "a", copy=False)
        hb = self._host(b, "b", copy=False)
        if ha.size != hb.size:
            raise ValueError(f"b has {hb.size} coefficients, expected {ha.size} (the length of a)")
        self._check_pairs(ha.size, "a")
        c = _np.empty(_tensor_shape(ha.shape, self.n), dtype=self.dtype)
        self._core.tensor_host(ha.ctypes.data, hb.ctypes.data, c.ctypes.data, ha.size)
        return c

    def _check_pairs(self, size, name):
        polys = size // (self.n * self.towers)
        if polys % 2:
            raise ValueError(
                f"{name} holds {polys} polynomial(s) per tower; ciphertexts are pairs (c0, c1): pass 2m "
                "polynomials per tower (tower-major, ciphertext j's c0 and c1 at 2j and 2j + 1)"
            )

    def synchronize(self):
        """Waits for the plan's queued GPU work, then raises ``ValueError``
        if the operand of an earlier device call was not reduced.

        When an unreduced CUDA operand is reported: the NTT plans check
        device operands with a kernel queued just before the call, on the
        GPU, without waiting for it (the host learns the result from a
        word in mapped memory). So the call itself runs, on wrong words;
        the error is raised by the first device call of this plan that
        starts after that check ran, and at the latest by this method. The
        DGT plans compare device operands on the host before the call
        instead. Host (NumPy) operands are always checked before the call."""
        self._core.synchronize()

    # big integers
    def polymul_big(self, a, b):
        """Negacyclic products modulo Q (the product of the plan's primes)
        of polynomials with big-integer coefficients: ``a`` and ``b`` are
        object arrays (or nested lists) of Python ints in ``[0, Q)``, shape
        ``(N,)`` or ``(batch, N)``; the result is an object array of Python
        ints of ``a``'s shape. Runs through the RNS conversions (64-bit
        words).

        Raises ``ValueError`` for a wrong shape, a non-integer, a negative
        coefficient or one ≥ Q."""
        xa = self._big(a, "a")
        xb = self._big(b, "b")
        if xa.size != xb.size:
            raise ValueError(f"b has {xb.size} coefficients, expected {xa.size} (the length of a)")
        c = self._core.polymul_big(self._ints(xa, "a"), self._ints(xb, "b"))
        out = _np.empty(len(c), dtype=object)
        out[:] = c
        return out.reshape(xa.shape)

    def _big(self, x, name):
        arr = _np.asarray(x, dtype=object) if not isinstance(x, _np.ndarray) else x
        if len(arr.shape) == 0 or arr.shape[-1] != self.n:
            got = "a scalar" if len(arr.shape) == 0 else f"{arr.shape[-1]} coefficients per polynomial"
            raise ValueError(f"{name} has {got}, expected N = {self.n} (shape (N,) or (batch, N))")
        if arr.size == 0:
            raise ValueError(f"{name} is empty: pass at least one polynomial")
        return arr

    @staticmethod
    def _ints(arr, name):
        out = []
        for i, v in enumerate(arr.ravel().tolist()):
            if isinstance(v, bool) or not isinstance(v, (int, _np.integer)):
                raise ValueError(f"{name}[{i}] is a {type(v).__name__}: coefficients are Python ints")
            v = int(v)
            if v < 0:
                raise ValueError(f"{name}[{i}] = {v} is negative; reduce it modulo Q first")
            out.append(v)
        return out


def _words_of_list(x, dtype, name):
    """A nested list (or tuple) of ints as an array of ``dtype``: every
    item an int (Python's or NumPy's; not a bool, float or string) from 0
    to the dtype's maximum, else ValueError. (NumPy's own conversion would
    truncate ``1.5`` to ``1`` and take ``True`` as ``1``.)"""
    try:
        arr = _np.array(x, dtype=object)
    except ValueError as e:  # ragged nesting NumPy cannot shape
        raise ValueError(f"{name}: {e}; pass a list of N ints, or of rows of N ints") from None
    top = (1 << (8 * dtype.itemsize)) - 1
    flat = arr.ravel().tolist()
    for i, v in enumerate(flat):
        if isinstance(v, bool) or not isinstance(v, (int, _np.integer)):
            raise ValueError(f"{name}[{i}] is a {type(v).__name__}: coefficients are integers from 0 to q - 1")
        if not 0 <= int(v) <= top:
            raise ValueError(f"{name}[{i}] = {int(v)} is not from 0 to q - 1 (nor fits {dtype})")
    return _np.array([int(v) for v in flat], dtype=dtype).reshape(arr.shape)


def _u(v, name, width=64):
    """A non-negative int below 2^width (the Rust argument's type: u64,
    usize or u32), else ValueError."""
    if isinstance(v, bool) or not isinstance(v, (int, _np.integer)):
        raise ValueError(f"{name} = {v!r} is not an integer")
    v = int(v)
    if not 0 <= v < 1 << width:
        raise ValueError(f"{name} = {v} is out of range: it must be from 0 to 2^{width} - 1")
    return v


def _primes(primes):
    if primes is None:
        return None
    if isinstance(primes, (str, bytes)) or not hasattr(primes, "__iter__"):
        raise ValueError(f"primes = {primes!r} is not a list of primes")
    primes = [_u(p, "prime") for p in primes]
    if not primes:
        raise ValueError("an RNS basis needs at least one prime")
    return primes


def _word(word, dtype):
    """The word size (32 or 64) of ``word=`` and ``dtype=``: either, both if
    they agree, 64 (``uint64``) when neither is given."""
    w = None if word is None else _u(word, "word")
    if w is not None and w not in (32, 64):
        raise ValueError(f"word = {w} is not supported: choose 32 or 64")
    if dtype is None:
        return 64 if w is None else w
    try:
        dt = _np.dtype(dtype)
    except TypeError:
        dt = None
    by_dtype = {_np.dtype(_np.uint32): 32, _np.dtype(_np.uint64): 64}.get(dt)
    if by_dtype is None:
        raise ValueError(f"dtype = {dtype!r} is not supported: choose numpy.uint32 or numpy.uint64")
    if w is not None and w != by_dtype:
        raise ValueError(
            f"word = {w} and dtype = {dt} disagree: give one of them ({dt} is word = {by_dtype})"
        )
    return by_dtype


class NttPlan(_Plan):
    """Negacyclic NTT and products modulo one prime ``q``.

    ``NttPlan(n, q=None, bits=62, word=None, device="auto", *,
    dtype=None)``: N a power of two from 2 to 2^24; ``q`` an NTT-friendly
    prime (``q ≡ 1 mod 2N``, at most 62 bits for ``uint64`` words, 30 for
    ``uint32``) or, without it, the largest such prime of ``bits`` bits.

    ``dtype``: the words' type, ``numpy.uint64`` (the default) or
    ``numpy.uint32`` (a type or its name; ``word=64`` / ``word=32`` is the
    same, and both given must agree). The plan's arrays are of that type
    (a ``uint64`` plan also takes ``uint32`` input); it is fixed when the
    plan is made, not inferred from the arrays.

    ``device``: ``"auto"`` (GPU 0 when there is one, else the CPU backend),
    ``"cpu"``, ``"cuda"`` / ``"gpu"`` (GPU 0), ``"cuda:N"`` / ``"gpu:N"`` or
    an int ``N`` (the GPU of CUDA ordinal N; :class:`GpuError` without a GPU
    or for an N the machine does not have, see :func:`device_count`).

    On a GPU the plan uses the NTT kernel and radix of a loaded wisdom entry
    for its key (:func:`load_wisdom`), else the automatic kernel choice.
    Raises ``ValueError`` for bad parameters."""

    __slots__ = ()

    def __init__(self, n, q=None, bits=62, word=None, device="auto", *, dtype=None):
        q = None if q is None else _u(q, "q")
        super().__init__(_Core("ntt", _u(n, "n"), _word(word, dtype), _u(bits, "bits", 32), 1, None, q, device, 1))


class RnsPlan(_Plan):
    """RNS: products modulo Q = q_0·…·q_{K−1}, one NTT tower per prime.

    ``RnsPlan(n, bits=62, towers=K, primes=None, word=None,
    device="auto", *, dtype=None)``: K primes of ``bits`` bits, or the given
    ``primes``; ``dtype``/``word`` and ``device`` as :class:`NttPlan`. Word
    arrays are tower-major (shape ``(K, N)`` or ``(K, batch, N)``: the
    residues modulo each prime); :meth:`polymul_big` takes big integers
    modulo Q."""

    __slots__ = ()

    def __init__(self, n, bits=62, towers=1, primes=None, word=None, device="auto", *, dtype=None):
        primes = _primes(primes)
        super().__init__(
            _Core(
                "ntt", _u(n, "n"), _word(word, dtype), _u(bits, "bits", 32), _u(towers, "towers"), primes, None, device, 1
            )
        )


class DgtPlan(_Plan):
    """Products through the discrete Galois transform over GF(p²) (primes
    ``p ≡ −1 mod N``; see ``polymul.params(n, bits, dgt=True)``).

    ``DgtPlan(n, q=None, bits=62, towers=1, primes=None, word=None,
    device="auto", *, dtype=None)``; ``dtype``/``word`` and ``device`` as
    :class:`NttPlan`. The DGT plan multiplies only: :meth:`forward` and
    :meth:`inverse` raise ``ValueError``. On a GPU it uses the configuration
    of a loaded DGT wisdom entry for its key, else the default for N; on the
    CPU it runs the DGT's CPU model (exact, not fast)."""

    __slots__ = ()

    def __init__(self, n, q=None, bits=62, towers=1, primes=None, word=None, device="auto", *, dtype=None):
        primes = [_u(q, "q")] if q is not None else _primes(primes)
        super().__init__(
            _Core(
                "dgt", _u(n, "n"), _word(word, dtype), _u(bits, "bits", 32), _u(towers, "towers"), primes, None, device, 1
            )
        )

    def forward(self, x, *, stream=None, inplace=False):
        """Not offered: a DGT plan only multiplies (its transform works on
        GF(p²) pairs, not on coefficients in NTT order). Raises
        ``ValueError``; use :class:`NttPlan` for transforms."""
        raise ValueError("a DGT plan only multiplies (polymul); use polymul.NttPlan for forward/inverse transforms")

    def inverse(self, x, *, stream=None, inplace=False):
        """Not offered, as :meth:`forward`: raises ``ValueError``."""
        raise ValueError("a DGT plan only multiplies (polymul); use polymul.NttPlan for forward/inverse transforms")


class Multiplier(_Plan):
    """The planner's one-call entry point: the transform (an NTT kernel or
    the DGT) chosen for N, the modulus and the batch size on this machine's
    GPU, else the CPU backend.

    ``Multiplier(n, bits=62, towers=1, primes=None, q=None, batch=1,
    word=None, device="auto", *, dtype=None)``; ``dtype``/``word`` and
    ``device`` as :class:`NttPlan`. On a GPU the planner takes a loaded
    wisdom entry for the key (device, N, word, towers, batch bucket; see
    :func:`load_wisdom`), else its rule; see :attr:`decision` for what was
    chosen and :attr:`from_wisdom` for why."""

    __slots__ = ()

    def __init__(self, n, bits=62, towers=1, primes=None, q=None, batch=1, word=None, device="auto", *, dtype=None):
        super().__init__(
            _Core(
                "auto",
                _u(n, "n"),
                _word(word, dtype),
                _u(bits, "bits", 32),
                _u(towers, "towers"),
                _primes(primes),
                None if q is None else _u(q, "q"),
                device,
                _u(batch, "batch"),
            )
        )


def auto(n, bits=62, towers=1, primes=None, q=None, batch=1, word=None, device="auto", *, dtype=None):
    """``Multiplier(...)``: the planner's choice for these parameters."""
    return Multiplier(
        n, bits=bits, towers=towers, primes=primes, q=q, batch=batch, word=word, device=device, dtype=dtype
    )
