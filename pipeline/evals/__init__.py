"""The eval harness, modelled on inspect_ai: a dataset of cases (cases.py), a runner (runner.py),
scorers (scorers.py), leak search (leaks.py), the report and its gates (report.py) and its
renderings for people (render.py: terminal table, HTML page). `memroute eval` (pipeline/cli/eval_run.py)
only parses, calls these and prints."""

from __future__ import annotations

from pipeline.errors import EvalInputError
from pipeline.evals.cases import (
    DEFAULT_USER_ID,
    ERROR_ROUTE,
    ROUTES,
    CaseOutcome,
    Check,
    EngineSpec,
    EvalCase,
    load_cases,
    parse_case,
)
from pipeline.evals.leaks import capture_memroute_logs, find_leaks
from pipeline.evals.report import CaseResult, EvalReport, Leak, RunMetrics, WriteMetrics, build_report, gate_problems
from pipeline.evals.runner import PipelineFactory, default_pipeline_factory, run_case, run_eval
from pipeline.evals.scorers import content_lines, percentile, predicted_route, score_case, score_run, write_metrics

__all__ = ["CaseOutcome", "CaseResult", "Check", "DEFAULT_USER_ID", "ERROR_ROUTE", "EngineSpec", "EvalCase", "EvalInputError", "EvalReport", "Leak", "PipelineFactory", "ROUTES", "RunMetrics", "WriteMetrics", "build_report", "capture_memroute_logs", "content_lines", "default_pipeline_factory", "find_leaks", "gate_problems", "load_cases", "parse_case", "percentile", "predicted_route", "run_case", "run_eval", "score_case", "score_run", "write_metrics"]
