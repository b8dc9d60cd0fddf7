"""The seed example of issue 2 (Jasmin) and the files docs/design.md expects from it."""

JASMIN_USER_MD = """# USER

## Identity
- Name: Jasmin
- Role: Frontend engineer

## Preferences
- Response style: conclusion first
- Usual stack: Next.js
"""

JASMIN_MEMORY_MD = """# MEMORY

- [2026-07-30] agent-demo: hero section on the global site changed to an animated gradient.
- [2026-07-30] Related project: agent-demo / global site (global region)
"""

JASMIN_SAYS = (
    "I'm Jasmin, a frontend engineer, and I like conclusion-first communication. I'm working on the global "
    "site for agent-demo (an AI agent app) with Next.js. Last week we changed the hero section to an animated gradient."
)
