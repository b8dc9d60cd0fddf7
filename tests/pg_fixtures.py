"""PostgreSQL fixtures: one throwaway cluster per test session, a fresh database per test.

Skipped, with the reason, where PostgreSQL is not installed (.ci/run installs it, so CI runs them).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from pg_cluster import Cluster, start_cluster, unavailable_reason


@pytest.fixture(scope="session")
def pg_cluster() -> Iterator[Cluster]:
    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(f"PostgreSQL store tests: {reason}")
    cluster = start_cluster()
    try:
        yield cluster
    finally:
        cluster.stop()


TEMPLATE = "memroute_migrated"


@pytest.fixture(scope="session")
def pg_template(pg_cluster: Cluster) -> str:
    """A database with every migration applied, copied for each test (a copy is cheaper than migrating)."""
    from pipeline.store.postgres.store import PostgresStore

    PostgresStore(pg_cluster.create_database(TEMPLATE)).close()
    return TEMPLATE


@pytest.fixture
def pg_dsn(pg_cluster: Cluster, pg_template: str) -> Iterator[str]:
    """The DSN of a new database holding the schema and no rows, dropped after the test."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    dsn = pg_cluster.create_database(name, template=pg_template)
    try:
        yield dsn
    finally:
        pg_cluster.drop_database(name)
