"""THE mapping from an error to the exit code (0 ok, 1 the work failed, 2 usage), and how an error
is told to the user: one line on stderr, never a traceback."""

from __future__ import annotations

import sys

from pipeline.errors import MemrouteError


class UsageError(MemrouteError):
    """Bad command-line input: exit code 2."""


class CommandFailed(MemrouteError):
    """The command could not do its work (an unknown user, a read-only root): exit code 1."""


def exit_code(e: BaseException) -> int:
    """2 for input the user must fix (a bad flag, user id, message, input file, setting or tool
    call), 1 for everything else (the work failed)."""
    from pipeline.engines import EngineConfigError
    from pipeline.erasure import NothingToForget
    from pipeline.evals import EvalInputError
    from pipeline.settings import SettingsError
    from pipeline.tool import ToolUsageError
    from pipeline.transcripts import InputError
    from pipeline.turns import BadTurn
    from pipeline.userdir import InvalidUserId

    usage_errors = (
        UsageError, InvalidUserId, BadTurn, ToolUsageError, EngineConfigError, SettingsError, NothingToForget,
        EvalInputError, InputError,
    )
    return 2 if isinstance(e, usage_errors) else 1


def report_error(e: BaseException, prog: str = "memroute") -> int:
    """Say what went wrong in one line on stderr; return the exit code."""
    message = str(e).splitlines()[0] if str(e) else type(e).__name__
    if isinstance(e, OSError) and e.filename:
        message = f"{e.strerror or e}: {e.filename}"
    print(f"{prog}: error: {message}", file=sys.stderr)
    return exit_code(e)


__all__ = ["CommandFailed", "UsageError", "exit_code", "report_error"]
