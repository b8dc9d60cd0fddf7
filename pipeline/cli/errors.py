"""How the CLI tells an error: one line on stderr, never a traceback, and the exit code the error's
family gives (pipeline/errors.py: 0 ok, 1 the work failed, 2 usage)."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import ParamSpec

from pipeline.errors import CommandFailed, MemrouteError, UsageError, exit_code


def report_error(e: BaseException, prog: str = "memroute") -> int:
    """Say what went wrong in one line on stderr; return the exit code."""
    message = str(e).splitlines()[0] if str(e) else type(e).__name__
    if isinstance(e, OSError) and e.filename:
        message = f"{e.strerror or e}: {e.filename}"
    print(f"{prog}: error: {message}", file=sys.stderr)
    return exit_code(e)


P = ParamSpec("P")


def reports_errors(prog: str) -> Callable[[Callable[P, int]], Callable[P, int]]:
    """For the commands callable from Python too (batch, eval): a memroute error becomes its one
    line on stderr and its exit code, as from `main`."""

    def wrap(run: Callable[P, int]) -> Callable[P, int]:
        @functools.wraps(run)
        def reporting(*args: P.args, **kwargs: P.kwargs) -> int:
            try:
                return run(*args, **kwargs)
            except MemrouteError as e:
                return report_error(e, prog)

        return reporting

    return wrap


__all__ = ["CommandFailed", "UsageError", "exit_code", "report_error", "reports_errors"]
