"""`memroute serve` (HTTP API) and `memroute mcp` (MCP server): memory for chat apps in any language.

Built on the public API of MemoryPipeline and PostTurnHook only. Needs the optional extra
`memroute[serve]` (fastapi, uvicorn, mcp); nothing here is imported by `import pipeline` or by
the CLI's start, so the core install stays light.

    config.py   what a server is started with: root, host, port, tokens, limits
    auth.py     bearer tokens bound to sets of users; a user outside the set is 404
    limits.py   body size (413), messages per turn and characters per message (422)
    errors.py   every error is JSON {"error": {"code", "message"}} with a stable code
    profile.py  the profile view: both files parsed, each field and entry with its provenance
    routes.py   the /v1 endpoints
    app.py      the app factory (pipeline + durable hook in the lifespan, MCP mounted when asked)
    mcp_server.py  the MCP tools and resources (stdio, and streamable HTTP inside the app)
    run.py      running them (the `serve` and `mcp` options are parsed in pipeline/cli/serve.py)
"""
