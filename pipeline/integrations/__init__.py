"""memroute where users plug it in: agent frameworks (optional extras, each module imports its
framework only when it is imported itself) and the pieces they share.

- `pipeline.integrations.remember`: free text through the turn path, answered as what was stored
  and what was skipped and why (the MCP `remember` tool and every framework's tool use it).
- `pipeline.integrations.langgraph` (extra `memroute[langgraph]`), `.openai_agents`
  (`memroute[openai-agents]`), `.pydantic_ai` (`memroute[pydantic-ai]`).
- `pipeline.integrations.imports`: Mem0 and Letta exports into USER.md and MEMORY.md.

Integrations use the public API only (`from pipeline import MemoryPipeline, PostTurnHook`).
Nothing here is imported by `import pipeline` or the CLI's start.
"""
