"""The `memroute` command: this package owns all argument parsing and printing; the work is done
by the library (pipeline.core, pipeline.batch, pipeline.evals, ...). One module per command
family (memory, batch, evals, admin); common.py holds the shared options and settings; errors.py
the one mapping from errors to exit codes (0 success, 1 the work failed, 2 usage error).
Handlers import their machinery lazily so `memroute --help` stays fast and never imports litellm."""

from __future__ import annotations

import argparse
import gc
import os
import sys
from collections.abc import Sequence

from pipeline.cli import admin, batch, evals, imports, label, memory, review, serve, store_cmds
from pipeline.cli.common import Handler, add_common
from pipeline.cli.errors import UsageError, exit_code, report_error
from pipeline.errors import CommandFailed


def build_parser() -> argparse.ArgumentParser:
    from pipeline import __version__

    parser = argparse.ArgumentParser(
        prog="memroute",
        description="Route what a user says after each chat turn to USER.md, MEMORY.md or the skip list.",
        epilog="Exit codes: 0 success, 1 the work failed, 2 usage error. `memroute COMMAND --help` for each command.",
    )
    parser.add_argument("--version", action="version", version=f"memroute {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    def add(name: str, help_text: str, handler: Handler, side_by_side: bool = False,
            engine: bool = False) -> argparse.ArgumentParser:
        """A command with the options every command takes; `engine`: it runs one (model options too)."""
        p = sub.add_parser(name, help=help_text, description=help_text)
        add_common(p, side_by_side=side_by_side, engine=engine or side_by_side)
        p.set_defaults(handler=handler, command_parser=p)
        return p

    memory.register(add)
    imports.register(add)
    review.register(add)
    batch.register(add)
    evals.register(add)
    label.register(add)
    serve.register(add)
    store_cmds.register(add)
    admin.register(add, sub, parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # pydantic scans every installed package's entry points for plugins when the first model is
    # built; the CLI uses none, and the scan is a large share of `memroute turn`'s start.
    os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
    # Importing pydantic, the rules and the guards allocates a lot and triggers many cyclic-GC
    # passes that find nothing; collection is switched back on once the pipeline is built (or
    # when a long job such as eval or batch starts).
    gc.disable()
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    owner: argparse.ArgumentParser = vars(args).pop("command_parser", parser)
    if unknown:  # said by the command's own parser, with its usage, not the top-level one
        owner.error(f"unrecognized arguments: {' '.join(unknown)}{_did_you_mean(owner, unknown)}")
    try:
        code: int = args.handler(args)
        return code
    except KeyboardInterrupt:
        print("memroute: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `memroute ... | head`: the reader left; nothing to report
        sys.stdout = open(os.devnull, "w")  # silences the flush at exit
        return 0
    except Exception as e:
        return report_error(e)
    finally:
        gc.enable()


def _did_you_mean(parser: argparse.ArgumentParser, unknown: Sequence[str]) -> str:
    """' (did you mean --json?)' for a misspelt option of this command, else ''."""
    import difflib

    options = [o for action in parser._actions for o in action.option_strings if o.startswith("--")]
    for word in unknown:
        if word.startswith("--"):
            close = difflib.get_close_matches(word.split("=", 1)[0], options, n=1, cutoff=0.6)
            if close:
                return f" (did you mean {close[0]}?)"
    return ""


__all__ = ["CommandFailed", "UsageError", "build_parser", "exit_code", "main"]
