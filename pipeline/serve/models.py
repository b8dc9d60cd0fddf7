"""Request and response bodies (they make the OpenAPI schema that client generators read)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class ContentPart(BaseModel):
    """An OpenAI content part; only text parts are read, other kinds are accepted and ignored."""

    model_config = ConfigDict(extra="allow")
    type: str
    text: str | None = None


class ChatMessage(BaseModel):
    """An OpenAI chat message: role and content (a string, or content parts)."""

    model_config = ConfigDict(extra="allow")
    role: str
    content: str | list[ContentPart] | None = None


class TurnIn(BaseModel):
    messages: list[ChatMessage] = Field(description="the conversation up to and including the turn: the last user "
                                                    "message and what follows it is the turn, earlier ones context")
    timestamp: str | None = Field(None, description="ISO 8601 time of the turn (default: when it is accepted)")
    conversation_id: str | None = Field(None, max_length=200)
    turn_id: str | None = Field(None, max_length=200, description="your id for the turn: a resubmission is a no-op")


class TurnAccepted(BaseModel):
    turn_id: str
    status: Literal["queued", "retrying"] = Field(description="queued: stored durably, it will be applied in order")


class DecisionOut(BaseModel):
    model_config = ConfigDict(extra="allow")
    route: str
    op: str | None = None
    outcome: str | None = None
    rule: str | None = Field(None, description="the stable id of what decided (fact/role-noun, model/llm, guard/...); "
                                                "null in decisions logged before rule ids were kept")
    removal: Literal["forget", "change_of_fact"] | None = Field(
        None, description="op remove: a forget request (erased everywhere) or a change of fact (archived)")
    asked: bool | None = Field(None, description="the user asked in so many words to keep it")


class TurnApplied(BaseModel):
    turn_id: str
    status: Literal["done"]
    decisions: list[DecisionOut]


class DecisionLog(BaseModel):
    decisions: list[DecisionOut]


class FieldIn(BaseModel):
    value: str = Field(min_length=1)
    section: str | None = Field(None, description="USER.md section for a new field (default: Identity)")


class ToolIn(BaseModel):
    """The Hermes Agent memory tool's arguments."""

    action: str = Field(description="add | replace | remove")
    target: str = Field(description="user | memory")
    content: str | None = None
    old_text: str | None = None
    section: str | None = None


class Hits(BaseModel):
    hits: list[dict[str, Any]]


class Changes(BaseModel):
    changes: list[dict[str, Any]]


class ContextOut(BaseModel):
    context: str


class Health(BaseModel):
    ok: bool
    version: str
