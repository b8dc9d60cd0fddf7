"""One settings model builds a pipeline, in the CLI and in Python: command-line flags > environment >
config file > defaults.

The CLI resolves it once (`resolve`, the only place that reads MEMROUTE_* and the config file)
and passes it down explicitly: `build_pipeline(settings)` turns it into the pipeline (Python callers
may build a Settings themselves), and batch worker processes receive the same Settings. Each value remembers where it
came from, so `memroute doctor` can show it.

The config file is `$MEMROUTE_CONFIG`, else `memroute.toml` in the memory root. Example:

    engine = "llm"
    model = "openai/gpt-4o-mini"
    api_base = "http://127.0.0.1:8000/v1"
    user_limit = 1375
    memory_limit = 2200
    timeout = 30          # seconds per model request
    deadline = 60         # seconds one turn may spend on model calls in all (retries included)
    max_retries = 3       # transport retries per model request
    structured = "auto"   # how structured output is asked for: auto, tools, json_schema, json
    slow_model = false    # a model on CPU: timeout 120, deadline 300, max_retries 1 unless set
    store = "postgresql://memroute@db.internal/memroute"   # memory in PostgreSQL (pip install 'memroute[postgres]')
    log_quotes = false    # keep the redacted words of skipped statements in the decision log
    candidate_ttl_days = 60
    cache_dir = "~/.cache/memroute/evals"   # cached model answers of `memroute eval`

The root itself is not read from the file (the file lives in the root): `--root`, else
`$MEMROUTE_HOME`, else `~/.memroute`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from pipeline.errors import SettingsError
from pipeline.ledgers.memory_md import DEFAULT_MEMORY_LIMIT
from pipeline.ledgers.user_md import DEFAULT_USER_LIMIT
from pipeline.limits import DEFAULT_DEADLINE_S, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_S
from pipeline.store.location import ROOT_ENV, Location, default_root, shown_url

if TYPE_CHECKING:
    from pipeline.core import MemoryPipeline
    from pipeline.engines.base import Engine

CONFIG_NAME = "memroute.toml"
CONFIG_ENV = "MEMROUTE_CONFIG"
Source = Literal["flag", "env", "file", "default"]

# setting -> its environment variable (the names the library and the README already use)
ENV_NAMES: dict[str, str] = {
    "root": ROOT_ENV,
    "engine": "MEMROUTE_ENGINE",
    "model": "MEMROUTE_MODEL",
    "api_base": "MEMROUTE_API_BASE",
    "user_limit": "MEMROUTE_USER_LIMIT",
    "memory_limit": "MEMROUTE_MEMORY_LIMIT",
    "timeout": "MEMROUTE_TIMEOUT",
    "deadline": "MEMROUTE_DEADLINE",
    "max_retries": "MEMROUTE_MAX_RETRIES",
    "structured": "MEMROUTE_STRUCTURED",
    "slow_model": "MEMROUTE_SLOW_MODEL",
    "store": "MEMROUTE_STORE",
    "log_quotes": "MEMROUTE_LOG_QUOTES",
    "candidate_ttl_days": "MEMROUTE_CANDIDATE_TTL_DAYS",
    "cache_dir": "MEMROUTE_CACHE",
}
FILE_KEYS = tuple(name for name in ENV_NAMES if name != "root")


class Settings(BaseModel):
    """What a pipeline is built with, in the CLI (`resolve`: flags > env > file > defaults) and in
    Python (`build_pipeline(Settings(model=...))`, or MemoryPipeline's own keywords, whose defaults
    are these). Each default is written once, where it belongs (the caps in the ledgers, the model
    limits in engines/base.py, the root in default_root)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    root: Path = Field(default_factory=default_root, description="memory root")
    engine: str | None = Field(
        None, description="routing engine: offline, llm, hybrid or an installed one (default: llm when a model is set, else offline)"
    )
    model: str | None = Field(None, description="litellm model string")
    api_base: str | None = Field(None, description="base URL of an OpenAI-compatible server")
    user_limit: int = Field(DEFAULT_USER_LIMIT, gt=0, description="USER.md cap in characters")
    memory_limit: int = Field(DEFAULT_MEMORY_LIMIT, gt=0, description="MEMORY.md cap in characters")
    timeout: float = Field(DEFAULT_TIMEOUT_S, gt=0, description="seconds per model request")
    deadline: float = Field(
        DEFAULT_DEADLINE_S, gt=0, description="seconds one turn may spend on model calls in all (retries, backoff included)"
    )
    max_retries: int = Field(DEFAULT_MAX_RETRIES, ge=0, description="transport retries per model request")
    structured: Literal["auto", "tools", "json_schema", "json"] = Field(
        "auto",
        description="how structured output is asked for: tools (forced tool call), json_schema (response_format, "
        "a grammar on local servers), json (JSON mode), auto (by provider, one fallback)",
    )
    slow_model: bool = Field(
        False, description="a model on CPU: timeout 120 s, deadline 300 s, 1 retry, unless those are set"
    )
    store: str | None = Field(
        None, description="a postgresql:// URL: keep memory in PostgreSQL (default: files and SQLite under the root)"
    )
    log_quotes: bool = Field(False, description="keep the redacted words of skipped statements in the decision log")
    candidate_ttl_days: float | None = Field(
        None, gt=0, description="days a candidate waits for confirmation (default: the library's, 60)"
    )
    cache_dir: Path = Field(default_factory=lambda: default_cache_dir({}), description="cached model answers of eval")
    config_file: Path | None = Field(None, description="the config file that was read, if any")
    sources: dict[str, Source] = Field(default_factory=dict, description="where each setting came from")

    @field_validator("model", "api_base", "store", mode="before")
    @classmethod
    def _empty_is_unset(cls, value: Any) -> Any:
        return None if value == "" else value

    @field_validator("user_limit", "memory_limit", "max_retries", "timeout", "deadline", "candidate_ttl_days",
                     mode="before")
    @classmethod
    def _a_bool_is_no_number(cls, value: Any) -> Any:
        if isinstance(value, bool):  # True would be a cap of 1 character
            raise ValueError("expected a number, not true or false")
        return value

    @field_validator("store")
    @classmethod
    def _a_database_url(cls, value: str | None) -> str | None:
        if value is not None and not value.startswith(("postgresql://", "postgres://")):
            raise ValueError("expected a postgresql:// URL (a folder is chosen with --root)")
        return value

    @property
    def location(self) -> Location:
        """Where memory is kept: --store's database when set, else the root."""

        return Location(self.root, self.store)

    @property
    def engine_name(self) -> str:
        """The engine that will run: the explicit one, else llm with a model, else offline."""
        return self.engine or ("llm" if self.model else "offline")

    def shown(self) -> list[tuple[str, str, str]]:
        """(name, value, source) for every setting, for `memroute doctor`."""
        rows = []
        for name in ENV_NAMES:
            value = getattr(self, name)
            source = self.sources.get(name, "default")
            if name == "engine" and value is None:
                value = f"{self.engine_name} (llm when a model is set, else offline)"
            if isinstance(value, str):
                value = shown_url(value)  # never a password on screen or in a bug report (store, api_base)
            where = {"env": f"env {ENV_NAMES[name]}", "file": f"file {self.config_file}"}.get(source, source)
            rows.append((name, "" if value is None else str(value), where))
        return rows


def resolve(flags: Mapping[str, Any], environ: Mapping[str, str] | None = None) -> Settings:
    """Settings from flags (None = not given), the environment and the config file, in that order."""
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    sources: dict[str, Source] = {}

    def take(name: str, value: Any, source: Source) -> None:
        if name not in values and value is not None and value != "":
            values[name] = value
            sources[name] = source

    take("root", flags.get("root"), "flag")
    take("root", env.get(ENV_NAMES["root"]), "env")
    root = Path(values["root"]).expanduser() if "root" in values else default_root({})

    for name in FILE_KEYS:
        take(name, flags.get(name), "flag")
        take(name, env.get(ENV_NAMES[name]), "env")
    config_file = _config_path(root, env)
    if config_file is not None:
        for name, value in read_config(config_file).items():
            take(name, value, "file")
    values["cache_dir"] = Path(values["cache_dir"]).expanduser() if "cache_dir" in values else default_cache_dir(env)
    if isinstance(values.get("slow_model"), str):
        values["slow_model"] = values["slow_model"].strip().lower() not in ("0", "false", "no", "off", "")
    if values.get("slow_model"):
        for name, value in SLOW_MODEL.items():
            if name not in values:
                values[name] = value
                sources[name] = sources["slow_model"]  # doctor shows where the 120 s came from
    try:
        return Settings(**{**values, "root": root}, config_file=config_file, sources=sources)
    except ValidationError as e:
        first = e.errors()[0]
        name = str(first["loc"][0]) if first["loc"] else "?"
        where = {"flag": f"--{name.replace('_', '-')}", "env": ENV_NAMES.get(name, name), "file": f"{config_file}"}
        raise SettingsError(
            f"bad setting {name} from {where.get(sources.get(name, 'default'), 'default')}: {first['msg']}"
        ) from None


# A model on CPU (a 1.5B model on 2 cores answers a classify call in 5-60 s, ~12 tokens/s): one
# request may take a minute or two, and retrying a timed-out request mostly doubles the wait.
SLOW_MODEL: dict[str, Any] = {"timeout": 120.0, "deadline": 300.0, "max_retries": 1}


def default_cache_dir(env: Mapping[str, str]) -> Path:
    """Root-independent, so a second run of the same eval suite reuses the LLM engine's cache."""
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "memroute" / "evals"


def build_engine(settings: Settings, engine: str | Engine | None = None) -> Engine:
    """The engine the settings name (`engine` overrides it), with their model, server, timeout and retries."""
    from pipeline.engines import make_engine

    return make_engine(
        engine or settings.engine_name,
        model=settings.model,
        api_base=settings.api_base,
        timeout=settings.timeout,
        max_retries=settings.max_retries,
        deadline=settings.deadline,
        structured=settings.structured,
    )


def build_pipeline(
    settings: Settings,
    *,
    root: str | Path | None = None,
    engine: str | Engine | None = None,
    **options: Any,
) -> MemoryPipeline:
    """A MemoryPipeline with everything passed explicitly from the settings (`root`, `engine` and
    any MemoryPipeline keyword override them). The store is opened where the settings say
    (Location: the root, or --store's database), the one way stores are opened."""
    from pipeline.core import MemoryPipeline

    kwargs: dict[str, Any] = {
        "model": settings.model,
        "api_base": settings.api_base,
        "timeout": settings.timeout,
        "deadline": settings.deadline,
        "max_retries": settings.max_retries,
        "structured": settings.structured,
        "user_limit": settings.user_limit,
        "memory_limit": settings.memory_limit,
        "log_quotes": settings.log_quotes,
        "candidate_ttl_days": settings.candidate_ttl_days,
        **options,
    }
    root = Path(root) if root is not None else settings.root
    if "store" not in kwargs and "documents" not in kwargs:

        location = Location(root, settings.store)
        kwargs["store"], kwargs["documents"] = location.open(
            read_only=bool(kwargs.get("read_only")), log_quotes=settings.log_quotes
        )
    return MemoryPipeline(root=root, engine=engine or settings.engine_name, **kwargs)


def _config_path(root: Path, env: Mapping[str, str]) -> Path | None:
    explicit = env.get(CONFIG_ENV)
    if explicit:
        path = Path(explicit).expanduser()
        if not path.is_file():
            raise SettingsError(f"${CONFIG_ENV} names {path}, which is not a file")
        return path
    path = root / CONFIG_NAME
    try:
        return path if path.is_file() else None
    except OSError:  # a root we may not even look into: the command says so when it opens it
        return None


def read_config(path: Path) -> dict[str, Any]:
    """The settings in a TOML file; unknown keys are an error (a typo should not be ignored)."""
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        with path.open("rb") as fh:
            data = tomllib.load(fh)
    except OSError as e:
        raise SettingsError(f"cannot read config file {path}: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise SettingsError(f"config file {path} is not UTF-8 text (byte {e.start}): save it as UTF-8") from None
    except RecursionError:
        raise SettingsError(f"config file {path} is not a settings file: its values are nested too deeply") from None
    except tomllib.TOMLDecodeError as e:
        raise SettingsError(f"config file {path} is not valid TOML: {e}") from None
    unknown = sorted(set(data) - set(FILE_KEYS))
    if unknown:
        raise SettingsError(f"config file {path}: unknown setting {unknown[0]!r} (known: {', '.join(FILE_KEYS)})")
    for name, value in data.items():
        expected, what = FILE_TYPES[name]
        # bool is an int to Python, not to a person: `user_limit = true` is no cap of 1 character.
        if not isinstance(value, expected) or (isinstance(value, bool) and bool not in expected):
            raise SettingsError(f"config file {path}: setting {name} = {_shown_value(value)} is not {what}")
    return dict(data)


# What each setting of the file must be (TOML's types), and how a message names it.
FILE_TYPES: dict[str, tuple[tuple[type, ...], str]] = {
    "engine": ((str,), "text (offline, llm, hybrid)"),
    "model": ((str,), "text (a model name)"),
    "api_base": ((str,), "text (a URL)"),
    "user_limit": ((int,), "a whole number of characters"),
    "memory_limit": ((int,), "a whole number of characters"),
    "timeout": ((int, float), "a number of seconds"),
    "deadline": ((int, float), "a number of seconds"),
    "max_retries": ((int,), "a whole number"),
    "structured": ((str,), "text (auto, tools, json_schema, json)"),
    "slow_model": ((bool,), "true or false"),
    "store": ((str,), "text (a postgresql:// URL)"),
    "log_quotes": ((bool,), "true or false"),
    "candidate_ttl_days": ((int, float), "a number of days"),
    "cache_dir": ((str,), "text (a folder path)"),
}


def _shown_value(value: Any) -> str:
    """A value as TOML spells it (true, 5, "text"), short, and never a URL's password."""
    import json

    text = shown_url(json.dumps(value, ensure_ascii=False, default=str))
    return text if len(text) <= 60 else text[:57] + "..."


__all__ = [
    "CONFIG_ENV",
    "CONFIG_NAME",
    "ENV_NAMES",
    "SLOW_MODEL",
    "Settings",
    "SettingsError",
    "build_pipeline",
    "default_cache_dir",
    "read_config",
    "resolve",
]
