"""Type stubs of the polymul Python package."""

import os
from typing import Any, Optional, Sequence, TypeVar, TypedDict, Union

import numpy as np
import numpy.typing as npt

__version__: str

_Words = Union[npt.NDArray[np.uint32], npt.NDArray[np.uint64], Sequence[int]]
_A = TypeVar("_A")
# device=: "auto", "cpu", "cuda", "gpu", "cuda:N", "gpu:N", a CUDA ordinal N,
# or several GPUs: "all" or a list (tuple) of distinct ordinals.
_Device = Union[str, int, Sequence[int]]
# dtype=: numpy.uint32 / numpy.uint64, their names, or their np.dtype.
_DType = Union[type[np.uint32], type[np.uint64], str, np.dtype[Any]]
_Path = Union[str, bytes, os.PathLike[str], os.PathLike[bytes]]

class Decided(TypedDict):
    decision: str
    from_wisdom: bool
    measured_us: Optional[float]

class GpuError(RuntimeError):
    """A CUDA device failed: no GPU where one was required, out of device memory, a driver error.

    Bad input, and operations a plan does not offer (a DGT plan's forward, a
    CUDA array given to a plan on the CPU), raise ValueError; a file that
    cannot be written, OSError."""

class GpuOutOfMemory(GpuError):
    """The GPU ran out of memory: a smaller batch may fit."""

def params(n: int, bits: int = 62, count: int = 1, dgt: bool = False) -> list[dict[str, int]]: ...
def backend() -> str: ...
def gpu_available() -> bool: ...
def device_count() -> int: ...
def load_wisdom(path: Optional[_Path] = None) -> int:
    """Merges a wisdom file (default: where `polymul tune` writes) into this process's wisdom; returns its entry count."""
def save_wisdom(path: _Path) -> None:
    """Writes this process's wisdom to a file."""
def clear_wisdom() -> None: ...
def wisdom_entries() -> list[dict[str, Any]]: ...
def wisdom_path() -> Optional[str]: ...
def decide(
    n: int,
    bits: int = 62,
    towers: int = 1,
    primes: Optional[Sequence[int]] = None,
    q: Optional[int] = None,
    batch: int = 1,
    word: Optional[int] = None,
    device: _Device = "auto",
    *,
    dtype: Optional[_DType] = None,
    transform: str = "auto",
    device_name: Optional[str] = None,
) -> Decided:
    """What a plan of these parameters would use (with the loaded wisdom), without making it."""
def negacyclic_reference(a: Sequence[int], b: Sequence[int], q: int) -> list[int]: ...

class _Plan:
    @property
    def n(self) -> int: ...
    @property
    def word(self) -> int: ...
    @property
    def dtype(self) -> np.dtype[Any]: ...
    @property
    def primes(self) -> list[int]: ...
    @property
    def towers(self) -> int: ...
    @property
    def q(self) -> int: ...
    @property
    def modulus(self) -> int: ...
    @property
    def backend(self) -> str: ...
    @property
    def on_gpu(self) -> bool: ...
    @property
    def device(self) -> Union[str, list[int]]:
        """"cuda:N", "cpu", or the ordinals of several GPUs."""
    @property
    def device_id(self) -> Optional[int]: ...
    @property
    def device_ids(self) -> list[int]: ...
    @property
    def decision(self) -> str: ...
    @property
    def from_wisdom(self) -> bool: ...
    def forward(self, x: Any, *, stream: Any = None, inplace: bool = False) -> Any:
        """Forward negacyclic NTT of each polynomial (NumPy in → NumPy out; CUDA array in → same library out)."""
    def inverse(self, x: Any, *, stream: Any = None, inplace: bool = False) -> Any:
        """Inverse of forward (scaled by 1/N)."""
    def polymul(self, a: Any, b: Any, *, stream: Any = None, out: Any = None) -> Any:
        """Negacyclic products a·b mod (X^N + 1, q), row by row (RNS: tower by tower)."""
    def tensor(self, a: Any, b: Any, *, stream: Any = None, out: Any = None) -> Any:
        """Ciphertext tensor product: (a0·b0, a0·b1 + a1·b0, a1·b1) per ciphertext (pairs of polynomials)."""
    def synchronize(self) -> None:
        """Waits for the plan's GPU work; raises ValueError if an earlier device operand was not reduced."""
    def polymul_big(self, a: Any, b: Any) -> npt.NDArray[np.object_]:
        """Products modulo Q of big-integer polynomials (object arrays of Python ints)."""

class NttPlan(_Plan):
    def __init__(
        self,
        n: int,
        q: Optional[int] = None,
        bits: int = 62,
        word: Optional[int] = None,
        device: _Device = "auto",
        *,
        dtype: Optional[_DType] = None,
    ) -> None: ...

class RnsPlan(_Plan):
    def __init__(
        self,
        n: int,
        bits: int = 62,
        towers: int = 1,
        primes: Optional[Sequence[int]] = None,
        word: Optional[int] = None,
        device: _Device = "auto",
        *,
        dtype: Optional[_DType] = None,
    ) -> None: ...

class DgtPlan(_Plan):
    def __init__(
        self,
        n: int,
        q: Optional[int] = None,
        bits: int = 62,
        towers: int = 1,
        primes: Optional[Sequence[int]] = None,
        word: Optional[int] = None,
        device: _Device = "auto",
        *,
        dtype: Optional[_DType] = None,
    ) -> None: ...

class Multiplier(_Plan):
    def __init__(
        self,
        n: int,
        bits: int = 62,
        towers: int = 1,
        primes: Optional[Sequence[int]] = None,
        q: Optional[int] = None,
        batch: int = 1,
        word: Optional[int] = None,
        device: _Device = "auto",
        *,
        dtype: Optional[_DType] = None,
    ) -> None: ...

def auto(
    n: int,
    bits: int = 62,
    towers: int = 1,
    primes: Optional[Sequence[int]] = None,
    q: Optional[int] = None,
    batch: int = 1,
    word: Optional[int] = None,
    device: _Device = "auto",
    *,
    dtype: Optional[_DType] = None,
) -> Multiplier: ...
