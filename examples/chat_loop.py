"""A minimal chat app with memroute memory: read lines from stdin, answer, remember in the background.

    python examples/chat_loop.py --root ./memory --user jasmin              # offline: no key, no network
    python examples/chat_loop.py --user jasmin --model openai/gpt-4o-mini   # any litellm model

The memory block (`pipe.context(user)`) goes into the system prompt once, at session start; it is
a snapshot and does not change mid-session. After every exchange the turn is handed to the
PostTurnHook, which returns at once; what the user said shows up in USER.md / MEMORY.md a moment
later (type /memory to look). On exit (Ctrl-D, /quit) the hook drains; anything it could not
finish stays queued on disk and is processed the next time the app starts.

With --model, the same model answers the chat and routes the memory (litellm reads the API key
from the usual environment variable, e.g. OPENAI_API_KEY).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any, TextIO

from pipeline import MemoryPipeline, PostTurnHook

HISTORY_TURNS = 6  # earlier messages sent along as context for the memory router


def reply(model: str | None, system: str, history: list[dict[str, str]]) -> str:
    if model is None:
        return "(offline) Got it."
    import litellm  # only the LLM path needs it

    response: Any = litellm.completion(model=model, messages=[{"role": "system", "content": system}, *history])
    return str(response.choices[0].message.content or "")


def chat(args: argparse.Namespace, stdin: TextIO = sys.stdin, out: TextIO = sys.stdout) -> int:
    engine = args.engine or ("llm" if args.model else "offline")
    pipe = MemoryPipeline(root=args.root, engine=engine, model=args.model)
    hook = PostTurnHook(pipe, workers=2)
    system = "You are a helpful assistant. What you know about the user:\n\n" + pipe.context(args.user)
    history: list[dict[str, str]] = []
    print(f"memroute chat as {args.user!r} ({engine}); /memory shows the files, /quit or Ctrl-D exits.", file=out)
    try:
        for line in stdin:
            text = line.strip()
            if not text:
                continue
            if text == "/quit":
                break
            if text == "/memory":
                hook.drain(timeout=5)
                shown = pipe.show(args.user)
                print(shown["user_md"] + "\n" + shown["memory_md"], file=out)
                continue
            history.append({"role": "user", "content": text})
            answer = reply(args.model, system, history)
            history.append({"role": "assistant", "content": answer})
            print(f"assistant: {answer}", file=out, flush=True)
            # The last exchange is the turn; a few earlier messages ride along as context.
            hook.submit(args.user, history[-2 * HISTORY_TURNS:], conversation_id=args.conversation)
    finally:
        drained = hook.close(timeout=args.drain_timeout)
        stats = hook.stats()
        pipe.close()
    note = "" if drained else " (the rest stays queued for next start)"
    print(f"memory: {stats['done']} turn(s) processed, {stats['parked']} parked{note}", file=out)
    return 0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--root", default=None, help="memory root (default $MEMROUTE_HOME or ~/.memroute)")
    p.add_argument("--user", default="me")
    p.add_argument("--model", default=None, help="litellm model string; default: offline, no network")
    p.add_argument("--engine", choices=("offline", "llm", "hybrid"), default=None)
    p.add_argument("--conversation", default="chat-loop")
    p.add_argument("--drain-timeout", type=float, default=30.0)
    return chat(p.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
