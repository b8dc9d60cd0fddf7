"""A FastAPI chat service with memroute memory, the hook wired into the app's lifespan.

    pip install fastapi uvicorn                  # not memroute dependencies; this example only
    MEMROUTE_HOME=./memory uvicorn examples.fastapi_app:app
    MEMROUTE_MODEL=openai/gpt-4o-mini uvicorn examples.fastapi_app:app     # any litellm model

    curl -s localhost:8000/chat -H 'content-type: application/json' \\
         -d '{"user_id": "jasmin", "message": "I am Jasmin, a frontend engineer."}'
    curl -s localhost:8000/memory/jasmin ; curl -s localhost:8000/status

- The memory block goes into the system prompt once per conversation (a snapshot, cached here).
- After each reply, `await hook.asubmit(...)` stores the turn durably and returns; it never blocks
  the event loop. A full queue answers 503 so the client can retry.
- On shutdown the lifespan drains the hook for up to 10 s; unfinished turns stay on disk and the
  next start processes them. Run one app process per memory root (see PostTurnHook's notes).
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException
from pydantic import BaseModel

from pipeline import HookQueueFull, MemoryPipeline, PostTurnHook


class ChatIn(BaseModel):
    user_id: str
    message: str
    conversation_id: str = "default"


class ChatOut(BaseModel):
    reply: str
    turn_id: str


async def answer(model: str | None, system: str, history: list[dict[str, str]]) -> str:
    if model is None:
        return "(offline) Got it."
    import litellm

    response: Any = await litellm.acompletion(model=model, messages=[{"role": "system", "content": system}, *history])
    return str(response.choices[0].message.content or "")


def create_app(root: str | Path | None = None, model: str | None = None, engine: Any = None) -> FastAPI:
    model = model if model is not None else (os.environ.get("MEMROUTE_MODEL") or None)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        pipe = MemoryPipeline(root=root, engine=engine, model=model)
        app.state.pipe = pipe
        app.state.conversations = {}  # (user, conversation) -> {"system": ..., "history": [...]}
        async with PostTurnHook(pipe, workers=4) as hook:  # __aexit__ drains for up to 10 s
            app.state.hook = hook
            yield
        pipe.close()

    app = FastAPI(title="memroute chat example", lifespan=lifespan)

    @app.post("/chat", response_model=ChatOut)
    async def chat(body: ChatIn) -> ChatOut:
        pipe: MemoryPipeline = app.state.pipe
        hook: PostTurnHook = app.state.hook
        key = (body.user_id, body.conversation_id)
        convo = app.state.conversations.get(key)
        if convo is None:
            try:
                context = await asyncio.to_thread(pipe.context, body.user_id)
            except ValueError as e:  # an invalid user id
                raise HTTPException(status_code=422, detail=str(e)) from None
            convo = {"system": "You are a helpful assistant. What you know about the user:\n\n" + context, "history": []}
            app.state.conversations[key] = convo
        convo["history"].append({"role": "user", "content": body.message})
        reply = await answer(model, convo["system"], convo["history"])
        convo["history"].append({"role": "assistant", "content": reply})
        try:
            turn_id = await hook.asubmit(body.user_id, convo["history"][-12:], conversation_id=body.conversation_id)
        except HookQueueFull as e:
            raise HTTPException(status_code=503, detail=str(e)) from None
        return ChatOut(reply=reply, turn_id=turn_id)

    @app.get("/memory/{user_id}")
    async def memory(user_id: str) -> dict[str, Any]:
        try:
            return await asyncio.to_thread(app.state.pipe.show, user_id)  # type: ignore[no-any-return]
        except ValueError as e:
            raise HTTPException(status_code=422, detail=str(e)) from None

    @app.get("/status")
    async def status() -> dict[str, Any]:
        return await asyncio.to_thread(app.state.hook.stats)  # type: ignore[no-any-return]

    return app


app = create_app()
