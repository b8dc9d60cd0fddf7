"""Mem0 OSS (the `mem0ai` package, `pip install 'memroute[bench-mem0]'`) as a system under test.

Mem0 runs as a default install does: its embedded Qdrant vector store (on disk, in the case's
work directory instead of /tmp/qdrant) and its SQLite history database, with the OpenAI provider
for both the LLM and the embedder, pointed at the benchmark's OpenAI-compatible endpoint. Its
telemetry is switched off before it is imported (it would otherwise send events and fetch a
notice config over the network). What it spends is counted on its own OpenAI clients."""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pipeline.errors import SystemUnavailable
from pipeline.evals.systems import StoredItem, SystemSpec, SystemUnderTest, SystemUsage, message_text

INSTALL = "pip install 'memroute[bench-mem0]'"
DEFAULT_EMBED_DIMS = 1536  # Mem0's own default (OpenAI text-embedding-3-small)
PLACEHOLDER_KEY = "sk-local-no-key"  # local OpenAI-compatible servers accept any key


def _import_mem0() -> Any:
    os.environ["MEM0_TELEMETRY"] = "False"  # read when mem0 is first imported
    try:
        import mem0
        from mem0.memory import main as mem0_main
        from mem0.memory import telemetry
    except ImportError as exc:
        raise SystemUnavailable(f"--system mem0 needs the mem0ai package ({exc}): {INSTALL}") from None
    # Imported earlier with telemetry on: switch it off where Mem0 reads the flag.
    telemetry.MEM0_TELEMETRY = False
    mem0_main.MEM0_TELEMETRY = False
    # Its per-instance warnings about optional extras (spaCy, fastembed) would print once a case.
    logging.getLogger("mem0").setLevel(logging.ERROR)
    return mem0


def _model_name(model: str) -> str:
    provider, sep, name = model.partition("/")
    if sep and provider != "openai":
        raise SystemUnavailable(
            f"--system mem0 talks to an OpenAI-compatible endpoint: give --model openai/NAME (got {model!r})"
        )
    return name if sep else model


def check(spec: SystemSpec) -> None:
    if not spec.model:
        raise SystemUnavailable("--system mem0 needs a --model (an OpenAI-compatible one: openai/NAME)")
    _model_name(spec.model)
    if os.environ.get("OPENROUTER_API_KEY"):
        raise SystemUnavailable("--system mem0: unset OPENROUTER_API_KEY (Mem0 would send every call to OpenRouter)")
    _import_mem0()


class _Counted:
    """Wraps a client method: counts calls and the tokens the server reports."""

    def __init__(self, fn: Callable[..., Any], on_usage: Callable[[Any], None]) -> None:
        self.fn = fn
        self.on_usage = on_usage

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        response = None
        try:
            response = self.fn(*args, **kwargs)
            return response
        finally:
            self.on_usage(getattr(response, "usage", None))


class Mem0System(SystemUnderTest):
    name = "mem0"
    notes = (
        "Mem0 OSS add(turn messages, user_id); earlier conversation is put in its message store first, "
        "where its extraction reads the last messages as context",
        "Mem0 OSS takes no timestamp (add(timestamp=...) is platform-only): it dates memories by the clock",
        "as `pip install mem0ai` installs it: without its nlp/extras packages (spaCy, fastembed), so no entity "
        "links and no BM25 keyword search (neither changes what add() extracts from a fresh store)",
    )

    def __init__(self, spec: SystemSpec, workdir: Path) -> None:
        check(spec)
        mem0 = _import_mem0()
        assert spec.model is not None
        opts = spec.options
        key = os.environ.get("OPENAI_API_KEY") or PLACEHOLDER_KEY
        dims = int(opts.get("embed_dims") or DEFAULT_EMBED_DIMS)
        embedder: dict[str, Any] = {
            "model": _model_name(opts.get("embed_model") or spec.model),
            "api_key": key,
            "openai_base_url": opts.get("embed_api_base") or spec.api_base,
        }
        if opts.get("embed_dims"):
            embedder["embedding_dims"] = dims
        self.qdrant_path = workdir / "qdrant"
        self.history_db = workdir / "history.db"
        config = {
            "vector_store": {
                "provider": "qdrant",
                "config": {"path": str(self.qdrant_path), "embedding_model_dims": dims},
            },
            "llm": {
                "provider": "openai",
                "config": {"model": _model_name(spec.model), "api_key": key, "openai_base_url": spec.api_base},
            },
            "embedder": {"provider": "openai", "config": embedder},
            "history_db_path": str(self.history_db),
        }
        self.memory = mem0.Memory.from_config(config)
        self._usage = SystemUsage()
        bounds = opts.get("engine_options") or {}
        timeout, retries = bounds.get("timeout"), bounds.get("max_retries")
        self._count(timeout, retries)

    def _count(self, timeout: float | None, retries: int | None) -> None:
        """Count every request Mem0 sends, on its own clients (bounded like memroute's when asked)."""
        limits: dict[str, Any] = {}
        if timeout is not None:
            limits["timeout"] = timeout
        if retries is not None:
            limits["max_retries"] = retries
        llm, embedder = self.memory.llm, self.memory.embedding_model
        if limits:
            llm.client = llm.client.with_options(**limits)
            embedder.client = embedder.client.with_options(**limits)

        def chat(usage: Any) -> None:
            self._usage.calls += 1
            self._usage.prompt_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)
            self._usage.completion_tokens += int(getattr(usage, "completion_tokens", 0) or 0)

        def embed(usage: Any) -> None:
            self._usage.embed_calls += 1
            self._usage.embed_tokens += int(getattr(usage, "prompt_tokens", 0) or 0)

        completions = llm.client.chat.completions
        completions.create = _Counted(completions.create, chat)
        embeddings = embedder.client.embeddings
        embeddings.create = _Counted(embeddings.create, embed)

    def _scope(self, user: str) -> str | None:
        try:
            from mem0.memory.main import _build_session_scope
        except ImportError:  # a Mem0 without its message store: no context to seed
            return None
        scope: str = _build_session_scope({"user_id": user})
        return scope

    def add(
        self,
        user: str,
        messages: list[dict[str, Any]],
        timestamp: datetime | None,
        *,
        history: Sequence[dict[str, Any]] = (),
        turn_id: str = "",
    ) -> None:
        plain = [{"role": m.get("role", "user"), "content": message_text(m)} for m in messages]
        context = [{"role": m.get("role", "user"), "content": message_text(m)} for m in history]
        scope = self._scope(user)
        if context and scope is not None:
            self.memory.db.save_messages(context, scope)
        self.memory.add(plain, user_id=user, metadata={"turn": turn_id} if turn_id else None)

    def seed(self, user: str, user_md: str | None, memory_md: str | None) -> bool:
        from pipeline.evals.scorers import content_lines

        lines = [
            line
            for text, sections in ((user_md, True), (memory_md, False))
            if text
            for (_, line) in content_lines(text, with_sections=sections)
        ]
        if lines:  # stored as they are (infer=False): no model call, one embedding each
            self.memory.add(
                [{"role": "user", "content": line} for line in lines],
                user_id=user,
                metadata={"turn": "initial"},
                infer=False,
            )
        return True

    def stored(self, user: str) -> list[StoredItem]:
        found = self.memory.get_all(filters={"user_id": user}, limit=10_000)
        rows = found.get("results", []) if isinstance(found, dict) else list(found or [])
        items = []
        for row in rows:
            meta = row.get("metadata") or {}
            turn = meta.get("turn") or row.get("turn")
            items.append(StoredItem(text=str(row.get("memory", "")), where="vector store", turn=turn or None))
        return items

    def usage(self) -> SystemUsage:
        return SystemUsage(**self._usage.to_json())

    def data_paths(self) -> list[Path]:
        from mem0.memory.setup import mem0_dir

        return [Path(mem0_dir)]  # its config and, with telemetry on, a vector store of its own

    def close(self) -> None:
        close = getattr(self.memory, "close", None)
        if close is not None:
            close()
        client = getattr(self.memory.vector_store, "client", None)
        if client is not None and hasattr(client, "close"):
            client.close()  # the embedded Qdrant's lock on its folder


def mem0(spec: SystemSpec, workdir: Path) -> SystemUnderTest:
    return Mem0System(spec, workdir)


mem0.check = check  # type: ignore[attr-defined]
