"""How the engine asks for structured output, and how much output a stage may generate.

`--structured` (LLMEngine `structured=`):

- `tools`: a forced tool call (instructor Mode.TOOLS): OpenAI, Anthropic and most hosted APIs.
- `json_schema`: `response_format: {type: json_schema}` (instructor Mode.JSON_SCHEMA). A local
  server (llama.cpp, vLLM, LM Studio) turns the schema into a grammar, so the answer is valid JSON
  of the schema from its first token; litellm passes it to Ollama as `format`.
- `json`: `response_format: {type: json_object}` with the schema in the system message, for a
  server that knows JSON mode but not schemas (parsed as Mode.JSON_SCHEMA parses: the content).
- `auto` (the default): `tools` for OpenAI's own API and hosted providers, `json_schema` for an
  OpenAI-compatible server of your own (`openai/NAME` with an api_base) and for Ollama, vLLM, LM
  Studio and llamafile models; if the first kind's answer cannot be parsed (llama.cpp's server
  ignores an object `tool_choice` and answers in text), the next kind is tried once and kept for
  the rest of the process (tools -> json_schema -> json).

Every request carries `max_tokens`, derived per stage from the schema's bounds and the input
(`answer_budget`): a classify answer cannot need more than a few hundred tokens, so a model that
runs away stops there instead of generating for minutes. The JSON modes also send a stop
sequence (three newlines) that valid JSON never contains: a model that pads its answer with
blank lines stops at once.
"""

from __future__ import annotations

import json
import logging
import math
import re
import threading
from typing import Any, Literal

from pipeline.errors import WrongMode

log = logging.getLogger("memroute.engines.llm")

Structured = Literal["auto", "tools", "json_schema", "json"]
STRUCTURED: tuple[str, ...] = ("auto", "tools", "json_schema", "json")
_NEXT: dict[str, str] = {"tools": "json_schema", "json_schema": "json"}
# Stops a model that pads its answer with blank lines (valid JSON never holds three newlines in a row).
RUNAWAY_STOP = "\n\n\n"

# litellm providers that are local OpenAI-like servers or Ollama: json_schema first.
_SCHEMA_PROVIDERS = ("ollama/", "ollama_chat/", "hosted_vllm/", "lm_studio/", "llamafile/", "openai_like/")
_OPENAI_HOSTS = ("api.openai.com",)


def check_structured(value: str) -> str:
    if value not in STRUCTURED:
        raise ValueError(f"structured must be one of {', '.join(STRUCTURED)}, not {value!r}")
    return value


def instructor_mode(mode: str) -> Any:
    """The instructor mode that parses and re-asks for our setting (json is sent as json_object
    with the schema in the system message, but read like json_schema: the message content)."""
    from instructor import Mode

    return Mode.TOOLS if mode == "tools" else Mode.JSON_SCHEMA


def default_mode(kind: str, name: str, server: str | None) -> str:
    """`auto`'s first choice for a transport: by provider and server."""
    if kind == "openai":
        if server is None or any(host in server for host in _OPENAI_HOSTS):
            return "tools"
        return "json_schema"
    if kind == "litellm" and name.startswith(_SCHEMA_PROVIDERS):
        return "json_schema"
    return "tools"


class Chosen:
    """What `auto` settled on per (transport kind, model, server), for the rest of the process: one
    probe per run, not one per turn (an eval builds an engine per case)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._modes: dict[tuple[str, str, str | None], str] = {}

    def get(self, key: tuple[str, str, str | None]) -> str | None:
        return self._modes.get(key)

    def fall_back(self, key: tuple[str, str, str | None], failed: str) -> str | None:
        """The mode after `failed`, remembered; None when there is none left. Another thread that
        already moved on wins (its mode is returned)."""
        with self._lock:
            current = self._modes.get(key, failed)
            if current != failed:
                return current
            nxt = _NEXT.get(failed)
            if nxt is not None:
                self._modes[key] = nxt
            return nxt

    def clear(self) -> None:
        with self._lock:
            self._modes.clear()


CHOSEN = Chosen()


def on_the_wire(kwargs: dict[str, Any], mode: str, *, local: bool = False) -> dict[str, Any]:
    """instructor's request, adjusted for the mode: json sends json_object and puts the (compact)
    schema at the end of the system message, so it stays in the cached prefix; the JSON modes, and
    tools mode on a server of your own (`local`), get the runaway stop."""
    if mode == "tools" and not local:
        return kwargs
    out = dict(kwargs)
    if mode == "json":
        fmt = out.get("response_format") or {}
        schema = (fmt.get("json_schema") or {}).get("schema") if isinstance(fmt, dict) else None
        out["response_format"] = {"type": "json_object"}
        if schema is not None:
            note = "\n\nAnswer with one JSON object that matches this JSON schema:\n" + json.dumps(
                schema, ensure_ascii=False, separators=(",", ":")
            )
            messages = [dict(m) if isinstance(m, dict) else m for m in out.get("messages", [])]
            if messages and isinstance(messages[0], dict) and messages[0].get("role") == "system":
                messages[0]["content"] = str(messages[0].get("content") or "") + note
            else:
                messages.insert(0, {"role": "system", "content": note.strip()})
            out["messages"] = messages
    stop = out.get("stop")
    if stop is None:
        out["stop"] = [RUNAWAY_STOP]
    return out


_FENCE = re.compile(r"^\s*```[a-zA-Z]*\s*\n?(.*?)\n?\s*```\s*$", re.S)


def unfenced(response: Any, mode: str, *, auto: bool) -> Any:
    """Check the answer's form: in tools mode it must hold a tool call; in the JSON modes its
    content is JSON, a ```json fence around it taken off. Under `auto` a wrong form raises
    WrongMode (the next mode is tried); otherwise instructor's parser reports it (a re-ask)."""
    try:
        message = response.choices[0].message
    except (AttributeError, IndexError, TypeError):
        return response
    if mode == "tools":
        if not (getattr(message, "tool_calls", None) or getattr(message, "function_call", None)) and auto:
            raise WrongMode(mode, "the server answered without a tool call")
        return response
    content = getattr(message, "content", None)
    calls = getattr(message, "tool_calls", None)
    if not (content or "").strip() and calls:  # a server that answered with a tool call anyway
        content = getattr(calls[0].function, "arguments", None)
    if not isinstance(content, str):
        return response
    match = _FENCE.match(content)
    if match:
        content = match.group(1)
    if content != message.content:
        try:
            message.content = content
        except (AttributeError, TypeError, ValueError):
            pass
    if auto and mode == "json_schema" and not content.strip().startswith(("{", "[")):
        finish = getattr(response.choices[0], "finish_reason", None)
        if finish != "length":  # a cut answer is a budget problem, not a form problem
            raise WrongMode(mode, "the server answered with text that is not JSON")
    return response


def rejected_mode(exc: BaseException, mode: str) -> bool:
    """A 400 that says the server does not take this mode's parameters (tools, response_format)."""
    status = getattr(exc, "status_code", None)
    if status not in (400, 422):
        return False
    text = str(exc).casefold()
    words = ("tool",) if mode == "tools" else ("response_format", "json_schema", "json_object", "format")
    return any(w in text for w in words)


# --- how much a stage may generate ---------------------------------------------------------------

_UNSPACED = re.compile(r"[\u0e00-\u0eff\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uff00-\uffef]")


def estimate_tokens(text: str) -> int:
    """A generous token count: a character per token in scripts without spaces, three characters
    per token elsewhere (real tokenizers do better on both)."""
    unspaced = len(_UNSPACED.findall(text))
    return unspaced + math.ceil((len(text) - unspaced) / 3)


def _skeleton_tokens(schema: dict[str, Any]) -> int:
    """Tokens of one statement's JSON without its free text: property names, quotes, punctuation
    and the longest enum value of each property, for the largest route object."""
    defs = schema.get("$defs", {})

    def size(obj: dict[str, Any]) -> int:
        chars = 2
        for name, prop in obj.get("properties", {}).items():
            prop = defs.get(prop["$ref"].rsplit("/", 1)[-1], prop) if "$ref" in prop else prop
            longest = max((len(str(v)) for v in prop.get("enum", [])), default=0)
            chars += len(name) + 6 + longest
        return math.ceil(chars / 3)

    return max(size(obj) for name, obj in defs.items() if "route" in obj.get("properties", {}))


# Small models pretty-print JSON even under a grammar (a newline and an indent before each property):
# a statement's whitespace, in tokens.
PRETTY = 16
# Ceilings per stage whatever the input: a turn that long is cut by the bound, and says so.
CAPS = {"classify": 1024, "consolidate": 4096, "compact_user": 2048}


def classify_budget(user_text: str) -> int:
    """max_tokens of a classify answer: every statement's skeleton (from the schema, and its
    whitespace when pretty-printed), plus the user's words about three times over (quote, value or
    entry, a little slack), for as many statements as the turn can hold (two, and one more per ~10
    tokens, at most the schema's maxItems); 320 at least, 1,024 at most."""
    from pipeline.engines.llm.schemas import MAX_STATEMENTS, classify_schema

    said = estimate_tokens(user_text)
    statements = min(MAX_STATEMENTS, 2 + said // 10)
    budget = 48 + statements * (_skeleton_tokens(classify_schema()) + PRETTY) + 3 * said
    return max(320, min(CAPS["classify"], budget))


def rewrite_budget(stage: str, listing: str, items: int) -> int:
    """max_tokens of a rewrite (consolidate MEMORY.md, compact USER.md): the answer is shorter
    than what it rewrites, plus each item's numbers and punctuation."""
    budget = 64 + 24 * items + estimate_tokens(listing)
    return max(256, min(CAPS[stage], budget))
