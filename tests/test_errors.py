"""Every exception memroute defines derives from MemrouteError (one `except` catches them all) and
keeps its builtin base; the CLI maps them to exit codes in one place."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import pytest

import pipeline
from pipeline.errors import MemrouteError


def _exception_classes() -> list[type[BaseException]]:
    found: list[type[BaseException]] = []
    for info in pkgutil.walk_packages(pipeline.__path__, "pipeline."):
        if info.name.endswith("__main__"):  # runs the command on import
            continue
        module = importlib.import_module(info.name)
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, BaseException) and obj.__module__ == module.__name__:
                found.append(obj)
    return found


def test_every_library_exception_derives_from_memroute_error() -> None:
    classes = _exception_classes()
    assert len(classes) >= 20  # the walk really found the library's exceptions
    strays = [f"{c.__module__}.{c.__qualname__}" for c in classes if not issubclass(c, MemrouteError)]
    assert strays == []


def test_builtin_bases_are_kept_for_existing_except_clauses() -> None:
    from pipeline.core import CandidateNotFound
    from pipeline.store.files import InvalidUserId
    from pipeline.turns import BadTurn

    assert issubclass(BadTurn, ValueError)
    assert issubclass(InvalidUserId, ValueError)
    assert issubclass(CandidateNotFound, LookupError)


@pytest.mark.parametrize(
    ("error", "code"),
    [
        ("pipeline.turns:BadTurn", 2),
        ("pipeline.store.files:InvalidUserId", 2),
        ("pipeline.settings:SettingsError", 2),
        ("pipeline.ledgers.errors:UnparseableLedger", 1),
        ("pipeline.stages.consolidate:ConsolidationError", 1),
    ],
)
def test_one_mapping_to_exit_codes(error: str, code: int) -> None:
    from pipeline.cli import exit_code

    module, name = error.split(":")
    cls = getattr(importlib.import_module(module), name)
    err = cls.__new__(cls)
    assert exit_code(err) == code
