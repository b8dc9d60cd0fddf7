"""`memroute eval`: its options and how repeated --engine/--model pair into runs. The run and its
printing are in eval_run.py (imported when the command runs)."""

from __future__ import annotations

import argparse
import gc

from pipeline.cli.common import AddCommand, resolve_settings
from pipeline.cli.errors import UsageError

MODEL_ENGINES = ("llm", "hybrid")  # the built-ins that cannot run without a model


def register(add: AddCommand) -> None:
    p = add("eval", "measure routing accuracy on eval suites (JSONL; docs/eval-cases.md)", _cmd_eval, side_by_side=True)
    p.add_argument("files", nargs="+", metavar="FILE", help="eval suites, one case per line")
    p.add_argument("--report", metavar="HTML", help="write a self-contained HTML report here")
    p.add_argument("--min-accuracy", type=float, metavar="FRACTION", help="exit 1 below this route accuracy, e.g. 0.85")
    p.add_argument("--concurrency", type=int, default=4, help="cases run at once (default 4)")
    p.add_argument("--no-cache", action="store_true", help="do not reuse cached model answers")
    b = p.add_argument_group("write benchmark (docs/write-benchmark.md): other memory systems beside memroute's engines")
    b.add_argument("--system", action="append", metavar="NAME",
                   help="memroute-offline, memroute-llm, memroute-hybrid, mem0, keep-everything, keep-nothing "
                   "or an installed system; may repeat. Scores what each system stores per turn instead of routes")
    b.add_argument("--embed-model", metavar="NAME", help="the embedding model of systems that embed (default: --model)")
    b.add_argument("--embed-api-base", metavar="URL", help="the embedder's OpenAI-compatible endpoint (default: --api-base)")
    b.add_argument("--embed-dims", type=int, metavar="N", help="the embedder's vector size (default: the system's own)")


def _cmd_eval(args: argparse.Namespace) -> int:
    from pipeline.cli.eval_run import run_eval_cli

    if args.root:
        raise UsageError("eval takes no --root: every case runs in its own temporary root, so no memory root is read or written")
    settings = resolve_settings(args)
    if args.system:
        from pipeline.cli.bench_run import run_bench_cli

        return run_bench_cli(args, settings)
    if args.embed_model or args.embed_api_base or args.embed_dims is not None:
        raise UsageError("--embed-model, --embed-api-base and --embed-dims go with --system (the write benchmark)")
    if args.engine or args.model:
        runs = eval_runs(args.engine or [], args.model or [])
    else:  # env and memroute.toml name one engine
        runs = [(settings.engine_name, None if settings.engine_name == "offline" else settings.model)]
    gc.enable()
    return run_eval_cli(
        files=args.files,
        engines=runs,
        json_out=args.json_out,
        report_out=args.report,
        min_accuracy=args.min_accuracy,
        concurrency=args.concurrency,
        cache_dir=None if args.no_cache else settings.cache_dir,
        api_base=settings.api_base,
        user_limit=settings.user_limit,
        memory_limit=settings.memory_limit,
        log_quotes=settings.log_quotes,
        # the model's limits, as `memroute turn` gets them: each case's turn is bounded the same way
        engine_options={
            "timeout": settings.timeout,
            "deadline": settings.deadline,
            "max_retries": settings.max_retries,
            "structured": settings.structured,
        },
    )


def eval_runs(engines: list[str], models: list[str]) -> list[tuple[str, str | None]]:
    """Pair repeated --engine/--model: llm and hybrid take the models in order (and need one); an
    installed engine takes the next model if one is left, else runs without (its factory says if it
    needs one); offline takes none; spare models run as llm."""
    spare = list(models)
    runs: list[tuple[str, str | None]] = []
    for engine in engines:
        if engine == "offline":
            runs.append(("offline", None))
        elif spare:
            runs.append((engine, spare.pop(0)))
        elif engine in MODEL_ENGINES:
            raise UsageError(f"--engine {engine} needs a --model")
        else:
            runs.append((engine, None))
    runs += [("llm", m) for m in spare]
    return runs or [("offline", None)]


