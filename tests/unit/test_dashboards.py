"""The Grafana dashboard and the Prometheus rules in infra/ query only metrics the code serves.

A panel or an alert on a misspelled metric or label stays empty or silent, with no error
anywhere, so every PromQL expression is checked against the names and labels the code
registers: prometheus_client collectors read from the modules that define them, plus the few
series served by the Temporal SDK runtime or made by Prometheus itself, listed below. The rules'
behaviour (each alert fires, and does not) is tested by promtool: scripts/check_alerts.sh.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from prometheus_client.metrics import MetricWrapperBase

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "infra" / "grafana" / "selfimprint.json"
PROMETHEUS = ROOT / "infra" / "prometheus"
RULE_FILES = (PROMETHEUS / "recording.yml", PROMETHEUS / "alerts.yml")
OPERATIONS = ROOT / "docs" / "operations.md"

# Every module that defines prometheus_client metrics (test_metric_modules_are_all_listed keeps
# this list complete).
METRIC_MODULES = (
    "api.metrics",
    "api.notifier",
    "api.health",
    "activities.ingestion",
    "selfimprint.telemetry.metrics",
)

# Served by the Temporal SDK runtime on the workers' SDK metrics port, not by prometheus_client,
# so no registry lists them. Read off a real runtime's /metrics (temporalio 1.35.0 with
# workers/runner.py's PrometheusConfig: `_total` on counters, durations in seconds with a
# `_seconds` suffix). The runtime adds these labels to every series:
SDK_LABELS = frozenset({"namespace", "service_name", "task_queue"})
SDK_SERIES: dict[str, frozenset[str]] = {
    "temporal_worker_task_slots_available": frozenset({"worker_type"}),
    "temporal_worker_task_slots_used": frozenset({"worker_type"}),
    "temporal_activity_schedule_to_start_latency_seconds_bucket": frozenset({"le"}),
    "temporal_workflow_task_schedule_to_start_latency_seconds_bucket": frozenset({"le"}),
    # Recorded by the lifecycle workflow through workflow.metric_meter().
    "selfimprint_sleep_runs_total": frozenset({"depth", "outcome", "workflow_type"}),
    "selfimprint_sleep_duration_seconds_bucket": frozenset({"depth", "le", "workflow_type"}),
    "selfimprint_sleep_duration_seconds_count": frozenset({"depth", "workflow_type"}),
    "selfimprint_sleep_duration_seconds_sum": frozenset({"depth", "workflow_type"}),
}
# Made by Prometheus: scrape health, and the alerts' own state.
PROMETHEUS_SERIES: dict[str, frozenset[str]] = {
    "up": frozenset(),
    "ALERTS": frozenset({"alertname", "alertstate", "severity"}),
}
TARGET_LABELS = frozenset({"job", "instance"})

# The names agreed between the telemetry code and these dashboards (issue 18). Renaming one in
# the code must fail here, not leave a panel empty.
CONTRACT = (
    "selfimprint_sleep_runs_total",
    "selfimprint_sleep_duration_seconds_bucket",
    "selfimprint_extraction_lag_seconds",
    "selfimprint_pending_messages",
    "selfimprint_llm_request_duration_seconds_bucket",
    "selfimprint_llm_request_duration_seconds_count",
    "selfimprint_llm_errors_total",
    "selfimprint_llm_tokens_total",
    "selfimprint_tier_moves_total",
    "selfimprint_compaction_duration_seconds_bucket",
    "temporal_worker_task_slots_available",
    "temporal_worker_task_slots_used",
    "selfimprint_http_requests_total",
    "selfimprint_http_request_seconds_bucket",
    "selfimprint_lifecycle_untold_users",
    "selfimprint_lifecycle_nudges_total",
)

ROWS = ("API", "Ingestion", "Sleep", "LLM", "Tiers", "Compaction", "Temporal worker slots")
REQUIRED_ALERTS = ("SleepFailureRateHigh", "ExtractionLagHigh", "UntoldUsers")


# --- the metrics the code serves ----------------------------------------------------------------


def _served_series(metric: MetricWrapperBase) -> dict[str, frozenset[str]]:
    """The series names one collector exposes, with their labels."""
    (family,) = metric.describe()
    # prometheus_client keeps label names only in this attribute (no public accessor).
    labels = frozenset(metric._labelnames)
    if family.type == "counter":
        return {f"{family.name}_total": labels, f"{family.name}_created": labels}
    if family.type == "histogram":
        return {
            f"{family.name}_bucket": labels | {"le"},
            f"{family.name}_count": labels,
            f"{family.name}_sum": labels,
            f"{family.name}_created": labels,
        }
    if family.type == "summary":
        parts = {f"{family.name}_{part}": labels for part in ("count", "sum", "created")}
        return {family.name: labels | {"quantile"}, **parts}
    return {family.name: labels}


def app_series() -> dict[str, frozenset[str]]:
    series: dict[str, frozenset[str]] = {}
    for name in METRIC_MODULES:
        module = importlib.import_module(name)
        for value in vars(module).values():
            if isinstance(value, MetricWrapperBase):
                series.update(_served_series(value))
    return series


def _scrape_labels() -> frozenset[str]:
    """job, instance and the target labels infra/prometheus/prometheus.yml adds."""
    config = yaml.safe_load((PROMETHEUS / "prometheus.yml").read_text(encoding="utf-8"))
    added = {
        label
        for job in config["scrape_configs"]
        for group in job.get("static_configs", [])
        for label in group.get("labels", {})
    }
    return TARGET_LABELS | added


# --- PromQL, as far as these files use it -------------------------------------------------------

_TOKEN = re.compile(
    r"""
    (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`)
    | (?P<matchers>\{(?:"(?:[^"\\]|\\.)*"|[^}"])*\})
    | (?P<range>\[[^\]]*\])
    | (?P<grouping>\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\))
    | (?P<variable>\$\{?\w+\}?)
    | (?P<number>(?<![\w:])\d+(?:\.\d+)?(?:[eE][+-]?\d+)?[smhdwy]?\b)
    | (?P<ident>[A-Za-z_:][\w:]*)
    | (?P<other>\S)
    """,
    re.VERBOSE,
)
_MATCHER = re.compile(r'(\w+)\s*(?:=~|!~|!=|=)\s*"(?:[^"\\]|\\.)*"')
_KEYWORDS = frozenset(
    {"and", "or", "unless", "bool", "offset", "inf", "nan", "group_left", "group_right"}
)


@dataclass(frozen=True)
class Selector:
    metric: str
    labels: frozenset[str]  # label names its matchers use


@dataclass(frozen=True)
class Query:
    selectors: tuple[Selector, ...]
    grouping: frozenset[str]  # labels named in by/without/on/ignoring/group_*


def parse(expr: str) -> Query:
    tokens = [(m.lastgroup, m.group()) for m in _TOKEN.finditer(expr)]
    selectors: list[Selector] = []
    grouping: set[str] = set()
    for i, (kind, text) in enumerate(tokens):
        following = tokens[i + 1] if i + 1 < len(tokens) else (None, "")
        if kind == "grouping":
            inside = text[text.index("(") + 1 : -1]
            grouping.update(label.strip() for label in inside.split(",") if label.strip())
        elif kind == "ident" and text not in _KEYWORDS and following[1] != "(":
            if following[0] == "grouping":  # `sum by (le) (...)`: an aggregation
                continue
            labels: frozenset[str] = frozenset()
            if following[0] == "matchers":
                labels = frozenset(_MATCHER.findall(following[1]))
            selectors.append(Selector(text, labels))
        elif kind == "matchers" and (i == 0 or tokens[i - 1][0] != "ident"):
            raise ValueError(f"a selector without a metric name is not checked: {expr}")
    return Query(tuple(selectors), frozenset(grouping))


def _recorded_series() -> dict[str, frozenset[str]]:
    """Recording rules' output series, with the labels their `sum by (...)` keeps."""
    series: dict[str, frozenset[str]] = {}
    for rule in _rules(PROMETHEUS / "recording.yml"):
        series[rule["record"]] = parse(rule["expr"]).grouping
    return series


def _rules(path: Path) -> Iterator[dict[str, Any]]:
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    for group in document["groups"]:
        yield from group["rules"]


def _panels() -> Iterator[dict[str, Any]]:
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    for panel in dashboard["panels"]:
        yield panel
        yield from panel.get("panels", [])  # a collapsed row holds its panels


def known_series() -> dict[str, frozenset[str]]:
    """Every series a query may use, with the labels it may filter or group by."""
    scrape = _scrape_labels()
    known = {name: labels | scrape for name, labels in app_series().items()}
    known.update({name: labels | scrape | SDK_LABELS for name, labels in SDK_SERIES.items()})
    known.update({name: labels | scrape for name, labels in PROMETHEUS_SERIES.items()})
    known.update(_recorded_series())
    return known


def unknown_names(expr: str, known: dict[str, frozenset[str]]) -> list[str]:
    """What in `expr` the code does not serve: metric names, and labels none of its metrics
    carries."""
    query = parse(expr)
    problems: list[str] = []
    carried: set[str] = set()
    for selector in query.selectors:
        if selector.metric not in known:
            problems.append(f"metric {selector.metric}")
            continue
        carried |= known[selector.metric]
        problems += [
            f"label {label} on {selector.metric}"
            for label in sorted(selector.labels - known[selector.metric])
        ]
    if not query.selectors:
        problems.append("no metric at all")
    problems += [f"label {label} in by/on" for label in sorted(query.grouping - carried)]
    return problems


# --- the checker itself ------------------------------------------------------------------------


def test_parse_reads_metrics_labels_and_grouping() -> None:
    query = parse(
        "histogram_quantile(0.95, sum by (route, le) (rate(selfimprint_http_request_seconds_bucket"
        '{method="POST", route="/v1/users/{user_id}/context"}[$__rate_interval])))'
        " / on (job) group_left max(up offset 5m) > 1e3 and bool foo:bar:rate5m"
    )
    assert query.selectors == (
        Selector("selfimprint_http_request_seconds_bucket", frozenset({"method", "route"})),
        Selector("up", frozenset()),
        Selector("foo:bar:rate5m", frozenset()),
    )
    assert query.grouping == {"route", "le", "job"}


def test_unknown_metric_and_label_are_reported() -> None:
    known = {"selfimprint_http_requests_total": frozenset({"route", "status"})}
    assert unknown_names("sum by (route) (rate(selfimprint_http_requests_total[5m]))", known) == []
    assert unknown_names(
        'sum by (path) (rate(selfimprint_http_request_total{statuz="500"}[5m]))'
        ' / sum(rate(selfimprint_http_requests_total{statuz="500"}[5m]))',
        known,
    ) == [
        "metric selfimprint_http_request_total",
        "label statuz on selfimprint_http_requests_total",
        "label path in by/on",
    ]


def test_metric_modules_are_all_listed() -> None:
    """A module that defines new prometheus_client metrics must be in METRIC_MODULES, or its
    names would look unknown (or, worse, a typo in one would look known)."""
    kinds = {"Counter", "Gauge", "Histogram", "Summary", "Info", "Enum"}
    defining = set()
    for package in ("api", "activities", "selfimprint", "workers", "workflows"):
        for path in (ROOT / package).rglob("*.py"):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in ast.walk(tree):
                if (
                    isinstance(node, ast.ImportFrom)
                    and node.module == "prometheus_client"
                    and kinds & {alias.name for alias in node.names}
                ):
                    relative = path.relative_to(ROOT).with_suffix("")
                    defining.add(".".join(relative.parts))
    assert defining <= set(METRIC_MODULES)


def test_contract_names_are_served() -> None:
    known = known_series()
    assert [name for name in CONTRACT if name not in known] == []


def test_sdk_metrics_listed_here_are_recorded_by_the_code() -> None:
    """The sleep metrics go through workflow.metric_meter(): their names are strings in the
    lifecycle workflow, which this list must match (the SDK adds `_total` and `_seconds`)."""
    source = "\n".join(p.read_text(encoding="utf-8") for p in (ROOT / "workflows").glob("*.py"))
    for base in ("selfimprint_sleep_runs", "selfimprint_sleep_duration"):
        assert f'"{base}"' in source, base


# --- the dashboard -----------------------------------------------------------------------------


def test_dashboard_queries_use_served_metrics_and_labels() -> None:
    known = known_series()
    problems: dict[str, list[str]] = {}
    checked = 0
    for panel in _panels():
        for target in panel.get("targets", []):
            checked += 1
            if found := unknown_names(target["expr"], known):
                problems[f"{panel['title']} / {target['refId']}"] = found
    assert checked >= 30
    assert problems == {}


def test_dashboard_has_the_rows_and_a_datasource_variable() -> None:
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    variables = {v["name"]: v for v in dashboard["templating"]["list"]}
    assert variables["datasource"]["type"] == "datasource"
    assert variables["datasource"]["query"] == "prometheus"

    rows = [p["title"] for p in _panels() if p["type"] == "row"]
    assert [r for r in rows if r in ROWS] == list(ROWS)

    ids = [p["id"] for p in _panels()]
    assert len(ids) == len(set(ids))
    for panel in _panels():
        if panel["type"] == "row":
            continue
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, panel["title"]
        assert panel["targets"], panel["title"]
        for target in panel["targets"]:
            assert target["datasource"]["uid"] == "${datasource}", panel["title"]
            assert target["expr"].strip(), panel["title"]


def test_dashboard_panels_do_not_overlap() -> None:
    taken: dict[tuple[int, int], str] = {}
    for panel in _panels():
        grid = panel["gridPos"]
        assert 0 <= grid["x"] and grid["x"] + grid["w"] <= 24, panel["title"]
        for x in range(grid["x"], grid["x"] + grid["w"]):
            for y in range(grid["y"], grid["y"] + grid["h"]):
                assert (x, y) not in taken, f"{panel['title']} overlaps {taken[(x, y)]}"
                taken[(x, y)] = panel["title"]


# --- the rules ---------------------------------------------------------------------------------


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.name)
def test_rules_use_served_metrics_and_labels(path: Path) -> None:
    known = known_series()
    problems = {
        rule.get("alert") or rule["record"]: found
        for rule in _rules(path)
        if (found := unknown_names(rule["expr"], known))
    }
    assert problems == {}


def _github_anchor(heading: str) -> str:
    slug = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return slug.replace(" ", "-")


def test_every_alert_is_labelled_annotated_and_has_a_runbook() -> None:
    headings = {
        _github_anchor(line.lstrip("#"))
        for line in OPERATIONS.read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    }
    alerts = list(_rules(PROMETHEUS / "alerts.yml"))
    assert {a["alert"] for a in alerts} >= set(REQUIRED_ALERTS)
    for alert in alerts:
        name = alert["alert"]
        assert re.fullmatch(r"\d+[smh]", alert["for"]), name
        assert alert["labels"]["severity"] in {"critical", "warning"}, name
        annotations = alert["annotations"]
        assert annotations["summary"] and annotations["description"], name
        page, _, anchor = annotations["runbook_url"].partition("#")
        assert page == "docs/operations.md", name
        assert anchor in headings, f"{name}: no heading for #{anchor} in docs/operations.md"


def test_every_alert_has_promtool_cases_that_fire_and_that_do_not() -> None:
    suite = yaml.safe_load((PROMETHEUS / "alerts_test.yml").read_text(encoding="utf-8"))
    assert set(suite["rule_files"]) == {p.name for p in RULE_FILES}
    fires: set[str] = set()
    quiet: set[str] = set()
    for case in suite["tests"]:
        for check in case.get("alert_rule_test", []):
            (fires if check["exp_alerts"] else quiet).add(check["alertname"])
    alerts = {a["alert"] for a in _rules(PROMETHEUS / "alerts.yml")}
    assert alerts - fires == set()
    assert alerts - quiet == set()
