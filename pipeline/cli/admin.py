"""The commands about the whole root: status, users, doctor, completion."""

from __future__ import annotations

import argparse
from typing import Any

from pipeline.cli.common import AddCommand, note, print_json, resolve_settings
from pipeline.store.interface import empty_queue_status


def register(add: AddCommand, sub: Any, parser: argparse.ArgumentParser) -> None:
    add(
        "status",
        "post-turn hook queue (queued, done, failed, parked), failed turns waiting for `retry`, and the last error",
        _cmd_status,
    )
    add("users", "list the users under the root: file sizes and last change", _cmd_users)
    add("doctor", "check the root, store, migrations, model and key, and show versions and settings (for bug reports)",
        _cmd_doctor, engine=True)
    k = sub.add_parser(
        "keys",
        help="list the USER.md key vocabulary: each key's section, meaning and whether it holds one value or several",
        description="list the USER.md key vocabulary, the keys every engine writes: each key's section, what it "
                    "holds, whether it holds one value or collects several, and the words that name it",
    )
    shape = k.add_mutually_exclusive_group()
    shape.add_argument("--json", action="store_true", dest="as_json", help="print the vocabulary as JSON")
    shape.add_argument("--markdown", action="store_true", help="print the table of the labeling guide (training/KEYS.md)")
    k.set_defaults(handler=_cmd_keys)
    p = sub.add_parser(
        "completion",
        help="print a shell completion script",
        description='print a shell completion script, generated from the parser: eval "$(memroute completion bash)" '
                    'in ~/.bashrc (zsh: the same in ~/.zshrc; fish: memroute completion fish > '
                    '~/.config/fish/completions/memroute.fish)',
    )
    p.add_argument("shell", choices=["bash", "zsh", "fish"], help="the shell to complete in")
    p.set_defaults(handler=lambda args: _cmd_completion(args, parser), command_parser=p)


def _cmd_keys(args: argparse.Namespace) -> int:
    from pipeline import vocabulary

    if args.as_json:
        print(vocabulary.as_json())
        return 0
    if args.markdown:
        print(vocabulary.markdown_table())
        return 0
    width = max(len(k.name) for k in vocabulary.VOCABULARY)
    for section, keys in vocabulary.by_section():
        print(section)
        for key in keys:
            how = "several values" if key.multi else "one value"
            tags = "".join(f" [{t}]" for t, on in (("always kept", key.kept), ("contact, on request", key.contact)) if on)
            print(f"  {key.name:<{width}}  {how:<14}  {key.meaning}{tags}")
    return 0


def _cmd_status(args: argparse.Namespace) -> int:
    settings = resolve_settings(args)
    store, _ = settings.location.open(read_only=True)
    with store:  # read-only, and immutable where the root is (issue 18)
        held = store.exists()
        status = store.hook_queue_status() if held else empty_queue_status()
        # Turns that failed in process_turn (CLI, batch, API) wait in the store, not in the hook's queue.
        failed_turns = store.failed_turns() if held else []
        usage = store.usage_totals() if held else {}  # model calls and tokens, per stage and model, failed included
    status["failed_turns"] = len(failed_turns)
    status["usage"] = usage
    if args.as_json:
        print_json(status)
    else:
        counts = ", ".join(f"{k} {status[k]}" for k in ("queued", "running", "done", "failed", "parked"))
        print(f"hook queue: {counts}")
        print(f"failed turns waiting for `memroute retry`: {len(failed_turns)}")
        if failed_turns:
            last = failed_turns[-1]
            print(f"last failed turn ({last['user_id']}, {last['updated_at']}): {last['error']}")
        if status.get("last_error"):
            print(f"last hook error ({status.get('last_error_at')}): {status['last_error']}")
    return 0


def _cmd_users(args: argparse.Namespace) -> int:
    settings = resolve_settings(args)
    location = settings.location
    store, documents = location.open(read_only=True)
    with store:
        users = documents.user_summaries()
    if args.as_json:
        print_json(users)
        return 0
    if not users:
        note(f"no users {location.where}")
        return 0
    width = max(len(u["user_id"]) for u in users)
    print(f"{'user':<{width}}  {'USER.md':>13}  {'MEMORY.md':>13}  last change")
    for u in users:
        user_usage = f"{u['user_chars']:,}/{settings.user_limit:,}"
        memory_usage = f"{u['memory_chars']:,}/{settings.memory_limit:,}"
        print(f"{u['user_id']:<{width}}  {user_usage:>13}  {memory_usage:>13}  {u['last_change'] or '-'}")
    return 0


def _cmd_doctor(args: argparse.Namespace) -> int:
    from pipeline.cli.doctor import render, report

    data = report(resolve_settings(args))
    if args.as_json:
        print_json(data)
    else:
        print(render(data))
    return 0 if data["ok"] else 1


def _cmd_completion(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from pipeline.cli.completion import SHELLS

    print(SHELLS[args.shell](parser), end="")
    return 0


