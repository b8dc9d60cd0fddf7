"""On-disk cache of parsed LLM responses, so that re-running an eval costs nothing.

Key: sha256 of (stage, model, prompt version, response model, the full request messages, and the
engine settings that can change the answer: the server (api base), the transport, the re-asks).
Value: the parsed response as JSON plus the usage of the call that produced it.
One JSON file per key, written atomically; a corrupt file reads as a miss.
Privacy: a response that the one redaction (pipeline/guards/redaction.py) would change (a secret, a
contact, an injection) is not cached at all: a cache hit must give back what the model said.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def cache_key(
    *,
    stage: str,
    model: str,
    prompt_version: str,
    response_model: str,
    messages: list[dict[str, Any]],
    settings: dict[str, Any] | None = None,
) -> str:
    payload = json.dumps(
        {
            "stage": stage, "model": model, "prompt": prompt_version, "schema": response_model, "messages": messages,
            "settings": settings or {},
        },
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class ResponseCache:
    def __init__(self, directory: Path | str) -> None:
        self.directory = Path(directory)

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        try:
            data = json.loads(self._path(key).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) and "response" in data else None

    def put(self, key: str, response: Any, usage: dict[str, Any]) -> None:
        """Store one response; one holding anything the redaction would remove is skipped."""
        from pipeline.guards.redaction import redact_json

        if redact_json(response) != response:
            return
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                json.dump({"response": response, "usage": usage}, f, ensure_ascii=False)
            os.replace(tmp, path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def __len__(self) -> int:
        return sum(1 for _ in self.directory.glob("*/*.json")) if self.directory.exists() else 0
