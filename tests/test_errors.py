"""Every exception memroute defines derives from MemrouteError (one `except` catches them all) and
keeps its builtin base; each belongs to one family (pipeline/errors.py), which gives it one exit code
and one HTTP status, and the CLI, the HTTP API and the MCP server answer by that one mapping."""

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
        try:
            module = importlib.import_module(info.name)
        except ModuleNotFoundError as e:  # an integration whose framework is not installed (langgraph, ...)
            if (e.name or "").startswith("pipeline"):
                raise
            continue
        for _, obj in inspect.getmembers(module, inspect.isclass):
            if issubclass(obj, BaseException) and obj.__module__ == module.__name__:
                found.append(obj)
    return found


# The HTTP layer's own answer (a status and code chosen per response), never raised by the library.
NOT_LIBRARY_ERRORS = {"pipeline.serve.errors.ApiError"}


def _name(c: type[BaseException]) -> str:
    return f"{c.__module__}.{c.__qualname__}"


# Signals a module raises and catches itself, never out of it (they are no error a caller sees).
PRIVATE_SIGNALS = {"pipeline.serve.limits._TooLarge", "pipeline.engines.llm.schemas._Untranslated"}


def test_every_error_is_defined_in_pipeline_errors_in_its_family() -> None:
    elsewhere = [_name(c) for c in _exception_classes() if c.__module__ != "pipeline.errors"
                 and _name(c) not in NOT_LIBRARY_ERRORS | PRIVATE_SIGNALS]
    assert elsewhere == []


def test_every_library_exception_derives_from_memroute_error() -> None:
    classes = _exception_classes()
    assert len(classes) >= 20  # the walk really found the library's exceptions
    strays = [_name(c) for c in classes if not issubclass(c, MemrouteError) and _name(c) not in NOT_LIBRARY_ERRORS]
    assert strays == []


def test_every_error_type_has_one_exit_code_and_one_http_status_that_agree() -> None:
    pytest.importorskip("fastapi")
    from pipeline.cli import exit_code as cli_exit_code
    from pipeline.errors import FAMILIES, error_code, exit_code, family, http_status
    from pipeline.serve.errors import CODES, library_error_response

    checked = 0
    for cls in _exception_classes():
        if not issubclass(cls, MemrouteError):
            continue
        error = cls.__new__(cls)
        assert family(cls) in FAMILIES, _name(cls)
        code, status = exit_code(error), http_status(error)
        # usage errors are the caller's to fix (exit 2) and only they answer 422; not found 404, conflict 409
        assert (code == 2) == (status == 422), _name(cls)
        assert status in (404, 409, 422, 500, 502, 503), _name(cls)
        assert cli_exit_code(error) == code, _name(cls)  # the CLI answers by the same mapping
        response = library_error_response(error)
        assert response is not None and response.status_code == status, _name(cls)  # ... and so does the API
        assert error_code(error) in CODES, _name(cls)
        checked += 1
    assert checked >= 30


@pytest.mark.parametrize(
    ("error", "status"),
    [
        ("pipeline.errors:ReviewNotFound", 404),
        ("pipeline.errors:CandidateNotFound", 404),
        ("pipeline.errors:ReviewConflict", 409),
        ("pipeline.errors:ReviewRefused", 422),
        ("pipeline.errors:CapExceeded", 409),
        ("pipeline.errors:UnparseableLedger", 409),
        ("pipeline.errors:UnreadableFile", 409),
        ("pipeline.errors:HookQueueFull", 503),
        ("pipeline.errors:LLMError", 502),
        ("pipeline.errors:StoreOpenError", 503),
    ],
)
def test_errors_the_two_hand_kept_lists_disagreed_on(error: str, status: int) -> None:
    from pipeline.errors import exit_code, http_status

    module, name = error.split(":")
    cls = getattr(importlib.import_module(module), name)
    err = cls.__new__(cls)
    assert http_status(err) == status
    assert exit_code(err) == (2 if status == 422 else 1)


def test_builtin_bases_are_kept_for_existing_except_clauses() -> None:
    from pipeline.errors import BadTurn, CandidateNotFound, InvalidUserId

    assert issubclass(BadTurn, ValueError)
    assert issubclass(InvalidUserId, ValueError)
    assert issubclass(CandidateNotFound, LookupError)


@pytest.mark.parametrize(
    ("error", "code"),
    [
        ("pipeline.errors:BadTurn", 2),
        ("pipeline.errors:InvalidUserId", 2),
        ("pipeline.errors:SettingsError", 2),
        ("pipeline.errors:UnparseableLedger", 1),
        ("pipeline.errors:ConsolidationError", 1),
    ],
)
def test_one_mapping_to_exit_codes(error: str, code: int) -> None:
    from pipeline.cli import exit_code

    module, name = error.split(":")
    cls = getattr(importlib.import_module(module), name)
    err = cls.__new__(cls)
    assert exit_code(err) == code


@pytest.mark.parametrize(
    ("error", "code"),
    [
        ("pipeline.errors:BadTurn", "invalid_turn"),
        ("pipeline.errors:InvalidUserId", "invalid_user_id"),
        ("pipeline.errors:ToolUsageError", "invalid_tool_call"),
        ("pipeline.errors:NothingToForget", "nothing_to_forget"),
        ("pipeline.errors:CapExceeded", "over_cap"),
        ("pipeline.errors:MatchError", "conflict"),
        ("pipeline.errors:HookQueueFull", "queue_full"),
        ("pipeline.errors:HookClosed", "shutting_down"),
        ("pipeline.errors:ReviewNotFound", "not_found"),
    ],
)
def test_the_api_codes_clients_branch_on_stay(error: str, code: str) -> None:
    from pipeline.errors import error_code

    module, name = error.split(":")
    cls = getattr(importlib.import_module(module), name)
    assert error_code(cls.__new__(cls)) == code
