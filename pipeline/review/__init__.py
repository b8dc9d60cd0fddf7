"""The review page (`/review/` in `memroute serve`): a person sees what is remembered, why, and
fixes it in one click. Server-rendered (Jinja2), a little progressive enhancement, no external
assets. `mount(app)` adds it to the serve app."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from fastapi import FastAPI


def mount(app: FastAPI) -> None:
    """Add /review/ (pages and actions) and /review/static/ to the serve app."""
    from starlette.staticfiles import StaticFiles

    from pipeline.review.routes import HERE, router
    from pipeline.review.security import Secrets

    config = app.state.config
    app.state.review_secrets = Secrets(config.root, config.review_secret)
    app.include_router(router)
    app.mount("/review/static", StaticFiles(directory=HERE / "static"), name="review-static")
