"""The PostgreSQL store on a real (throwaway) PostgreSQL: schema, the per-user lock, documents,
records, recall in four scripts, erasure, and the shared queue's promises."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest

from pipeline.store.postgres.store import PostgresStore
from pipeline.types import Decision, Usage

TS = "2026-11-30T12:00:00+00:00"


@pytest.fixture
def store(pg_dsn: str) -> Any:
    with PostgresStore(pg_dsn) as s:
        yield s


def test_migrations_apply_once_even_when_two_processes_open_a_fresh_database(pg_cluster: Any) -> None:
    pg_dsn = pg_cluster.create_database("fresh_for_migrations")
    stores: list[PostgresStore] = []
    errors: list[BaseException] = []

    def open_one() -> None:
        try:
            stores.append(PostgresStore(pg_dsn))
        except BaseException as e:  # pragma: no cover - the failure is the assertion below
            errors.append(e)

    threads = [threading.Thread(target=open_one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert stores[0].applied_migrations() == ["p001_core", "p002_hook_queue", "p003_document_copies", "p004_annotations",
                                             "p005_store_keys", "p006_private_statistics",
                                             "p007_usage_cached_tokens", "p008_store_facts", "p009_decision_rule"]
    for s in stores:
        s.close()


def test_a_write_is_one_transaction_nothing_lands_when_it_fails(store: PostgresStore) -> None:
    with pytest.raises(RuntimeError):
        with store.edit("jasmin") as (conn, docs):
            assert docs.user is None
            store.write_document(conn, "jasmin", "USER.md", "# USER.md\n- Name: Jasmin\n")
            store.mark_turn(conn, user_id="jasmin", turn_id="t1", conversation_id=None, status="done", ts=TS)
            raise RuntimeError("the engine failed mid-write")
    assert store.read_documents("jasmin").user is None
    assert store.turn_status("jasmin", "t1") is None
    with store.edit("jasmin") as (conn, docs):
        store.write_document(conn, "jasmin", "USER.md", "# USER.md\n- Name: Jasmin\n")
    assert store.read_documents("jasmin").user == "# USER.md\n- Name: Jasmin\n"
    assert store.users() == ["jasmin"]


def test_the_user_lock_serialises_read_modify_write_across_threads(store: PostgresStore) -> None:
    """Eight writers each add 10 lines to one user's MEMORY.md: none is lost (lost updates would be)."""

    def writer(n: int) -> None:
        for i in range(10):
            with store.edit("amy") as (conn, docs):
                store.write_document(conn, "amy", "MEMORY.md", (docs.memory or "") + f"w{n}-{i}\n")

    threads = [threading.Thread(target=writer, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    lines = (store.read_documents("amy").memory or "").splitlines()
    assert len(lines) == 80 and len(set(lines)) == 80


def test_another_users_write_does_not_wait_for_a_held_lock(store: PostgresStore) -> None:
    held = threading.Event()
    release = threading.Event()

    def hold() -> None:
        with store.edit("slow") as (conn, _):
            held.set()
            release.wait(10)

    t = threading.Thread(target=hold)
    t.start()
    held.wait(10)
    start = time.monotonic()
    with store.edit("fast") as (conn, _):
        store.write_document(conn, "fast", "USER.md", "x")
    assert time.monotonic() - start < 1.0
    release.set()
    t.join()


def test_history_provenance_decisions_usage_and_turns(store: PostgresStore) -> None:
    with store.transaction() as conn:
        store.add_change(conn, user_id="u", target="user", op="upsert", key="City", old=None, new="Lyon",
                         why="moved", turn_id="t1", conversation_id="c", quote="I live in Lyon now",
                         engine="offline", model=None, prompt_version=None, ts=TS)
        store.add_decisions(conn, user_id="u", turn_id="t1", conversation_id="c", ts=TS, engine="offline",
                            model=None, prompt_version=None, usage=Usage(calls=1, input_tokens=5, output_tokens=2),
                            decisions=[Decision(route="skip", reason="mood", quote="ugh, what a day"),
                                       Decision(route="user", op="upsert", key="City", value="Lyon",
                                                quote="I live in Lyon now")])
        store.mark_turn(conn, user_id="u", turn_id="t1", conversation_id="c", status="failed", error="boom",
                        payload={"messages": [{"role": "user", "content": "hi"}]}, ts=TS)
        store.mark_turn(conn, user_id="u", turn_id="t1", conversation_id="c", status="done", ts=TS)
    assert [h["new_value"] for h in store.history("u")] == ["Lyon"]
    assert store.provenance("u", key="city")[0]["quote"] == "I live in Lyon now"
    decisions = store.decisions("u")
    assert decisions[0]["quote"] != "ugh, what a day" and decisions[0]["value"] is None  # a skip keeps a digest
    assert decisions[1]["match"] is None and decisions[1]["value"] == "Lyon"
    assert store.turns("u")[0]["attempts"] == 2 and store.turn_status("u", "t1") == "done"
    totals = store.usage_totals("u")
    assert (totals["calls"], totals["input_tokens"], totals["turns"]) == (1, 5, 1)


def test_a_stored_secret_is_redacted(store: PostgresStore) -> None:
    with store.transaction() as conn:
        store.mark_turn(conn, user_id="u", turn_id="t", conversation_id=None, status="failed",
                        error="my password is hunter2-Secret!", ts=TS,
                        payload={"messages": [{"role": "user", "content": "my password is hunter2-Secret!"}]})
    assert store.find_text("u", "hunter2-Secret!") == []


@pytest.mark.parametrize(
    ("text", "query"),
    [
        ("Works as a nurse at the city hospital", "hospital"),
        ("Arbeitet als Krankenpfleger im Stadtkrankenhaus", "krankenhaus"),
        ("住在上海，喜欢喝乌龙茶", "乌龙茶"),
        ("ชอบกินข้าวมันไก่ทุกวันเสาร์", "ข้าวมันไก่"),
    ],
)
def test_recall_finds_archived_text_in_four_scripts(store: PostgresStore, text: str, query: str) -> None:
    with store.transaction() as conn:
        store.add_archive(conn, user_id="u", target="memory", text="Something unrelated entirely", why="old", ts=TS)
        store.add_archive(conn, user_id="u", target="memory", text=text, why="consolidated", ts=TS)
        store.add_archive(conn, user_id="other", target="memory", text=text, why="consolidated", ts=TS)
    hits = store.recall_archive("u", query)
    assert [h["text"] for h in hits] == [text]
    assert store.recall_archive("u", "v2") == []


def test_recall_ranks_rows_holding_more_query_words_first(store: PostgresStore) -> None:
    with store.transaction() as conn:
        store.add_archive(conn, user_id="u", target="memory", text="Trip to Kyoto in spring", why="", ts=TS)
        store.add_archive(conn, user_id="u", target="memory", text="Kyoto temples and spring blossoms trip", why="",
                          ts=TS)
        store.add_archive(conn, user_id="u", target="memory", text="Spring cleaning", why="", ts=TS)
    hits = store.recall_archive("u", "kyoto spring trip", k=2)
    assert {h["text"] for h in hits} == {"Trip to Kyoto in spring", "Kyoto temples and spring blossoms trip"}


def test_purge_text_erases_a_value_everywhere_but_keeps_the_record_of_the_purge(store: PostgresStore) -> None:
    with store.transaction() as conn:
        store.add_change(conn, user_id="u", target="user", op="upsert", key="Phone", old=None, new="555-0199",
                         why=None, turn_id="t1", conversation_id=None, quote=None, engine="offline", model=None,
                         prompt_version=None, ts=TS)
        store.add_archive(conn, user_id="u", target="user", text="Phone: 555-0199", why="overwritten", ts=TS)
        store.add_change(conn, user_id="u", target="user", op="purge", key=None, old=None, new=None,
                         why="forget --purge", turn_id="t2", conversation_id=None, quote=None, engine="manual",
                         model=None, prompt_version=None, ts=TS)
    with store.transaction() as conn:
        assert store.purge_text(conn, "u", ["555-0199"], keys=["phone"]) > 0
    store.compact()
    assert store.find_text("u", "555-0199") == []
    assert [h["op"] for h in store.history("u")] == ["purge"]


def test_delete_user_leaves_no_row(store: PostgresStore) -> None:
    with store.edit("gone") as (conn, _):
        store.write_document(conn, "gone", "USER.md", "# USER.md\n- Name: Gone\n")
        store.mark_turn(conn, user_id="gone", turn_id="t", conversation_id=None, status="done", ts=TS)
    store.queue().submit("gone", "t2", None, {"messages": []})
    with store.transaction() as conn:
        store.purge_user(conn, "gone")
    assert all(rows == [] for rows in store.everything_about("gone").values())
    assert store.read_documents("gone").user is None


def test_candidates_upsert_count_sightings_and_expire(store: PostgresStore) -> None:
    for turn, seen in (("t1", "2026-01-01T00:00:00+00:00"), ("t2", "2026-02-01T00:00:00+00:00")):
        with store.transaction() as conn:
            store.upsert_candidate(conn, user_id="u", section="Work", key="Employer", value="Acme", quote="maybe Acme",
                                   turn_id=turn, conversation_id=None, seen_at=seen)
    (row,) = store.candidates("u")
    assert (row["times_seen"], row["first_turn_id"], row["last_turn_id"]) == (2, "t1", "t2")
    assert store.search_candidates("u", "acme")[0]["id"] == row["id"]
    with store.transaction() as conn:
        assert store.expire_candidates(conn, "2026-03-01T00:00:00+00:00", "u") == 1


def test_batch_checkpoints(store: PostgresStore) -> None:
    assert not store.has_batch_trace()
    store.checkpoint_batch(user_id="u", conversation_key="k", conversation_id="c", turns=3, status="done",
                           source="a.jsonl:1")
    assert (store.batch_status("u", "k"), store.batch_status("u", "other")) == ("done", None)
    assert store.has_batch_trace()


# ---- the shared queue ------------------------------------------------------------------------


def test_submit_is_durable_and_a_resubmitted_turn_is_not_queued_twice(pg_dsn: str) -> None:
    with PostgresStore(pg_dsn) as first:
        assert first.queue().submit("u", "t1", None, {"messages": [{"role": "user", "content": "hi"}]}) is not None
        assert first.queue().submit("u", "t1", None, {"messages": []}) is None
    with PostgresStore(pg_dsn) as later:  # a new process: the turn is there
        assert later.queue().pending() == 1


def test_claims_follow_each_users_order_and_never_hand_out_a_users_later_turn(store: PostgresStore) -> None:
    queue = store.queue()
    for i in range(3):
        queue.submit("a", f"a{i}", None, {"i": i})
        queue.submit("b", f"b{i}", None, {"i": i})
    with queue.claim() as first, queue.claim() as second, queue.claim() as third:
        assert first is not None and second is not None
        assert (first.row.turn_id, second.row.turn_id) == ("a0", "b0")
        assert third is None  # a1 and b1 wait behind a0 and b0, which are claimed
        first.done()
    with queue.claim() as nxt, queue.claim() as after:
        assert nxt is not None and nxt.row.turn_id == "b0"  # released unsettled: still queued, still first
        assert after is not None and after.row.turn_id == "a1"  # a0 is done: a's line moved on


# ---- the document side and the hook's own queue ----------------------------------------------


def test_documents_commit_with_their_records_or_not_at_all(store: PostgresStore) -> None:
    from pipeline.store.postgres.documents import PgDocumentStore

    docs = PgDocumentStore(store).documents("jasmin")
    assert docs.read().user is None and not PgDocumentStore(store).has_any_documents()

    def records() -> None:
        with store.transaction() as conn:
            store.mark_turn(conn, user_id="jasmin", turn_id="t1", conversation_id=None, status="done", ts=TS)

    with docs.lock():
        assert docs.read().memory is None
        docs.commit("t1", {"USER.md": "# USER.md\n- Name: Jasmin\n"}, records)
        assert store.turn_status("jasmin", "t1") == "done"  # this thread sees its own transaction
    assert docs.read().user_raw == b"# USER.md\n- Name: Jasmin\n"

    def failing() -> None:
        raise OSError("disk full")

    with pytest.raises(OSError), docs.lock():
        docs.commit("t2", {"MEMORY.md": "# MEMORY.md\n"}, failing)
    assert docs.read().memory is None


def test_a_dead_hooks_rows_are_adopted_by_the_next_hook_on_any_host_a_live_ones_are_not(store: PostgresStore) -> None:
    alive, dying = store.open_hook_queue(), store.open_hook_queue()
    alive.insert("a", "a1", None, {"n": 1})
    row = dying.insert("b", "b1", None, {"messages": [{"role": "user", "content": "hi"}]})
    assert row is not None and dying.insert("b", "b1", None, {}) is None
    dying.start([row], None)
    dying.close()  # as if its process died: the server drops its liveness lock
    newcomer = store.open_hook_queue()
    adopted = newcomer.adopt_unfinished()
    assert [(t.turn_id, t.payload) for t in adopted] == [("b1", {"messages": [{"role": "user", "content": "hi"}]})]
    alive.finish([row])  # a late update from a hook that no longer owns the row changes nothing
    assert store.hook_queue_status()["queued"] == 2
    newcomer.finish(adopted)
    status = store.hook_queue_status()
    assert (status["done"], status["users"]["a"]["queued"]) == (1, 1)
    for q in (alive, newcomer):
        q.close()


def test_kept_copies_first_one_wins_erasure_scrubs_them_and_delete_all_leaves_nothing(store: PostgresStore) -> None:
    from pipeline.store.postgres.documents import PgDocumentStore

    docs = PgDocumentStore(store).documents("jasmin")
    assert docs.keep_copy("USER.md", b"- Phone: 555-0199\n- Name: Jasmin \xff\n") == "USER.md.bak"
    docs.keep_copy("USER.md", b"a later copy\n")
    assert docs.copies() == {"USER.md.bak": "- Phone: 555-0199\n- Name: Jasmin \ufffd\n"}
    assert docs.erase_from_copies(["555-0199"]) == 1
    assert docs.copies() == {"USER.md.bak": "- Name: Jasmin \ufffd\n"}
    with docs.lock():
        docs.commit("t1", {"USER.md": "# USER\n"}, lambda: None)
    with docs.lock():
        docs.delete_all()
    docs.drop()
    assert docs.copies() == {} and docs.read().user is None


def test_compaction_asked_inside_a_write_waits_for_its_commit(store: PostgresStore) -> None:
    ran: list[bool] = []
    store.db.after_commit(lambda: ran.append(store.db.in_transaction()))
    assert ran == [False]  # outside a transaction: at once
    with pytest.raises(RuntimeError), store.transaction():
        store.db.after_commit(lambda: ran.append(True))
        raise RuntimeError("rolled back")
    assert ran == [False]  # a rolled back transaction runs nothing
    with store.transaction():
        store.compact()
        store.db.after_commit(lambda: ran.append(store.db.in_transaction()))
        assert ran == [False]
    assert ran == [False, False]
