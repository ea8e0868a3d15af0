"""The PromQL shipped in deploy/monitoring: every dashboard target and every alert rule.

Template variables are replaced the way Grafana would for "All" selections, so each
expression can be handed to promtool or to Prometheus' query API as is.
"""
import json
import os
import re

import yaml

MONITORING_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "monitoring")
DASHBOARD = os.path.join(MONITORING_DIR, "grafana-strata.json")
ALERTS = os.path.join(MONITORING_DIR, "alerts.yml")

# Grafana's built-in interval variables get a window that holds several 1 s scrapes.
GRAFANA_BUILTINS = {"$__rate_interval": "15s", "$__interval": "5s", "$__range": "1m"}


def load_dashboard():
    with open(DASHBOARD, encoding="utf-8") as f:
        return json.load(f)


def substitute(expr, variables):
    for name, value in GRAFANA_BUILTINS.items():
        expr = expr.replace(name, value)
    for name, value in variables.items():
        expr = expr.replace("${" + name + "}", value).replace("$" + name, value)
    leftover = re.findall(r"\$\{?\w+", expr)
    if leftover:
        raise ValueError(f"unsubstituted variables {leftover} in {expr}")
    return expr


def dashboard_targets(dashboard, variables):
    """Yields (row title, panel, refId, expr) for every target of every non-row panel."""
    row = None
    for panel in sorted(dashboard["panels"], key=lambda p: (p["gridPos"]["y"], p["gridPos"]["x"])):
        if panel["type"] == "row":
            row = panel["title"]
            continue
        for t in panel.get("targets", []):
            yield row, panel, t["refId"], substitute(t["expr"], variables)


def alert_rules():
    """Yields (alert name, expr) for every rule in alerts.yml."""
    with open(ALERTS, encoding="utf-8") as f:
        doc = yaml.safe_load(f)
    for group in doc["groups"]:
        for rule in group["rules"]:
            yield rule.get("alert") or rule.get("record"), rule["expr"]


def variables_for_all(dashboard):
    """Each template variable as its "All" value (its allValue regex)."""
    out = {}
    for v in dashboard["templating"]["list"]:
        out[v["name"]] = v.get("allValue") or ".*"
    return out
