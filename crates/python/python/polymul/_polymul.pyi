"""The compiled core (use the classes of `polymul`; this one takes raw addresses)."""

from typing import Optional, Sequence

__version__: str

class GpuError(RuntimeError): ...
class GpuOutOfMemory(GpuError): ...

def _error_kinds() -> list[tuple[str, Optional[type]]]: ...

class Core:
    def __init__(
        self,
        transform: str,
        n: int,
        word: int = 64,
        bits: int = 62,
        towers: int = 1,
        primes: Optional[Sequence[int]] = None,
        q: Optional[int] = None,
        device: str = "auto",
        batch: int = 1,
    ) -> None: ...
    n: int
    word: int
    primes: list[int]
    backend: str
    on_gpu: bool
    decision: str
    device_id: Optional[int]
    modulus: int
    def transform_host(self, ptr: int, len: int, inverse: bool) -> None: ...
    def polymul_host(self, a: int, b: int, out: int, len: int) -> None: ...
    def device_op(self, op: str, len: int, stream: int, a: int, b: int = 0, out: int = 0) -> None: ...
    def polymul_big(self, a: Sequence[int], b: Sequence[int]) -> list[int]: ...

def params(n: int, bits: int = 62, count: int = 1, dgt: bool = False) -> list[dict[str, int]]: ...
def backend() -> str: ...
def gpu_available() -> bool: ...
