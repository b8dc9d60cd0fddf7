"""Offline engine throughput: single-sentence classifications per second on one core.

Run: .venv/bin/python benchmarks/bench_offline.py [--seconds 3]
Target (issue 4): at least 2,000 single-sentence turns per second. The sentences are the project's own,
in the four languages and across every route, so the mix exercises the splitter, the guards' sensitive
scan and every rule family.
"""

from __future__ import annotations

import argparse
import statistics
import time
from datetime import datetime, timezone

from pipeline.engines.offline import OfflineEngine
from pipeline.engines.offline.dates import find_phrase
from pipeline.engines.offline.text import guess_language
from pipeline.types import Message, Turn

SENTENCES = [
    "I'm a data engineer at a logistics startup.",
    "I prefer short answers with the conclusion first.",
    "we decided to use Postgres for agent-demo",
    "Last week we changed the hero section to an animated gradient.",
    "my head hurts today",
    "change this title to Quarterly Review",
    "I guess I kind of like shorter stuff",
    "my email is jane.doe@example.com",
    "forget my location",
    "thanks!",
    "saya tinggal di Bandung",
    "kemarin kami deploy versi 2 ke production",
    "capek banget hari ini",
    "tolong terjemahkan paragraf ini",
    "我喜欢散步。",
    "上周我们把登录页改成了深色主题",
    "今天好累",
    "我是一名前端工程师",
    "ผมชื่อสมชายครับ",
    "เมื่อวานเราดีพลอย v2 ขึ้น production แล้ว",
    "วันนี้เหนื่อยมาก",
    "ฉันชอบกาแฟดำ",
]


def clear_caches() -> None:
    find_phrase.cache_clear()
    guess_language.cache_clear()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0, help="how long each of the 3 rounds runs")
    args = parser.parse_args()
    engine = OfflineEngine()
    ts = datetime(2026, 7, 30, 9, 0, tzinfo=timezone.utc)
    turns = [
        Turn(user_id="bench", turn_id=str(i), timestamp=ts, messages=[Message(role="user", content=s)])
        for i, s in enumerate(SENTENCES)
    ]
    for turn in turns:  # warm up: compile patterns, import guards
        engine.classify(turn, "", "")
    wall_rates, cpu_rates = [], []
    for _ in range(3):
        done = 0
        wall0, cpu0 = time.perf_counter(), time.process_time()
        while time.perf_counter() - wall0 < args.seconds:
            clear_caches()  # every sentence is new to the engine, as in real traffic
            for turn in turns:
                engine.classify(turn, "", "")
            done += len(turns)
        wall_rates.append(done / (time.perf_counter() - wall0))
        cpu_rates.append(done / max(time.process_time() - cpu0, 1e-9))
    rate = statistics.median(cpu_rates)  # CPU time: what one core does, even on a busy machine
    print(
        f"offline classify: {rate:,.0f} single-sentence turns/s per core of CPU time "
        f"(median of 3 rounds of {args.seconds:g}s; {len(SENTENCES)} sentences, 4 languages; "
        f"wall clock {statistics.median(wall_rates):,.0f}/s)"
    )
    print(f"per turn: {1e6 / rate:,.0f} us of CPU; target >= 2,000/s: {'met' if rate >= 2000 else 'MISSED'}")


if __name__ == "__main__":
    main()
