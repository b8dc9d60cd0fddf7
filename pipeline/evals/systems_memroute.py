"""memroute itself as a system under test: the public MemoryPipeline with the offline, llm or
hybrid engine, on the benchmark's work directory as its root (files and SQLite database). The
items it holds are the lines of USER.md and MEMORY.md, each attributed to the turn its history
says last wrote it."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from pipeline.errors import SystemUnavailable
from pipeline.evals.cases import EngineSpec
from pipeline.evals.scorers import content_lines
from pipeline.evals.systems import StoredItem, SystemSpec, SystemUnderTest, SystemUsage


class MemrouteSystem(SystemUnderTest):
    notes = ("memroute's public API: MemoryPipeline.process_turn(user, history + turn, timestamp)",)

    def __init__(self, spec: SystemSpec, workdir: Path, engine: str) -> None:
        from pipeline.evals.runner import default_pipeline_factory

        self.name = f"memroute-{engine}"
        self.root = workdir
        options: dict[str, Any] = {"api_base": spec.api_base}
        limits = {k: v for k, v in spec.options.get("engine_options", {}).items() if v is not None}
        if limits:
            options["engine_options"] = limits
        for key in ("user_limit", "memory_limit"):
            if spec.options.get(key) is not None:
                options[key] = spec.options[key]
        # No answer cache: a benchmark counts every call the system makes.
        self.pipe = default_pipeline_factory(workdir, EngineSpec(engine=engine, model=None if engine == "offline" else spec.model), None, options)
        self._usage = SystemUsage()

    def add(
        self,
        user: str,
        messages: list[dict[str, Any]],
        timestamp: datetime | None,
        *,
        history: Sequence[dict[str, Any]] = (),
        turn_id: str = "",
    ) -> None:
        result = self.pipe.process_turn(user, [*history, *messages], timestamp=timestamp, turn_id=turn_id or None)
        u = result.usage
        self._usage = self._usage.plus(
            SystemUsage(calls=u.calls, prompt_tokens=u.input_tokens, completion_tokens=u.output_tokens)
        )
        if result.status == "failed":
            raise RuntimeError(f"turn failed: {result.error or 'no error message'}")

    def seed(self, user: str, user_md: str | None, memory_md: str | None) -> bool:
        udir = self.root / user
        udir.mkdir(parents=True, exist_ok=True)
        for name, text in (("USER.md", user_md), ("MEMORY.md", memory_md)):
            if text is not None:
                (udir / name).write_text(text, encoding="utf-8")
        return True

    def stored(self, user: str) -> list[StoredItem]:
        shown = self.pipe.show(user)
        written: dict[str, str] = {}  # a written value -> the turn that wrote it (latest wins)
        for row in self.pipe.history(user):
            if row.get("new_value") and row.get("turn_id"):
                written[str(row["new_value"]).strip()] = str(row["turn_id"])
        items: list[StoredItem] = []
        for file, text, sections in (("USER.md", shown["user_md"], True), ("MEMORY.md", shown["memory_md"], False)):
            for (section, line), n in content_lines(text, with_sections=sections).items():
                turn = next((t for value, t in written.items() if value and value in line), None)
                where = f"{file} · {section}" if section else file
                items += [StoredItem(text=line, where=where, turn=turn)] * n
        return items

    def usage(self) -> SystemUsage:
        return self._usage

    def close(self) -> None:
        self.pipe.close()


def _check_model(spec: SystemSpec) -> None:
    if not spec.model:
        raise SystemUnavailable(f"--system {spec.system} needs a --model")


def offline(spec: SystemSpec, workdir: Path) -> SystemUnderTest:
    return MemrouteSystem(spec, workdir, "offline")


def llm(spec: SystemSpec, workdir: Path) -> SystemUnderTest:
    _check_model(spec)
    return MemrouteSystem(spec, workdir, "llm")


def hybrid(spec: SystemSpec, workdir: Path) -> SystemUnderTest:
    _check_model(spec)
    return MemrouteSystem(spec, workdir, "hybrid")

