#!/usr/bin/env python3
"""Static checks of deploy/monitoring: Prometheus config and rules pass promtool, every
PromQL expression of the dashboard parses, and the dashboard JSON is well formed
(panels, targets, datasource references, unique ids, non-overlapping grid positions).

Runs without a server: promtool parses expressions when they sit in a rules file.
Usage: monitoring_files_test.py  (needs promtool on PATH, /usr/bin/python3 with yaml)
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import promql_sources as ps  # noqa: E402

PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"


def promtool(*args):
    return subprocess.run([PROMTOOL, *args], capture_output=True, text=True, timeout=60)


class PrometheusFiles(unittest.TestCase):
    def test_config_is_valid_with_its_rules(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(ps.MONITORING_DIR, "prometheus.yml"), encoding="utf-8") as f:
                text = f.read()
            token = os.path.join(tmp, "token")
            with open(token, "w") as f:
                f.write("test-key\n")
            self.assertIn("/etc/prometheus/strata-api-key", text)
            text = text.replace("/etc/prometheus/strata-api-key", token)
            with open(os.path.join(tmp, "prometheus.yml"), "w") as f:
                f.write(text)
            shutil.copy(ps.ALERTS, os.path.join(tmp, "alerts.yml"))
            r = promtool("check", "config", os.path.join(tmp, "prometheus.yml"))
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("1 rule files found", r.stdout + r.stderr)

    def test_config_scrapes_metrics_with_a_bearer_token_file(self):
        with open(os.path.join(ps.MONITORING_DIR, "prometheus.yml"), encoding="utf-8") as f:
            cfg = yaml.safe_load(f)
        job = [j for j in cfg["scrape_configs"] if j["job_name"] == "strata"][0]
        self.assertEqual(job["metrics_path"], "/metrics")
        self.assertEqual(job["authorization"]["type"], "Bearer")
        self.assertIn("credentials_file", job["authorization"])

    def test_alert_rules_pass_promtool(self):
        r = promtool("check", "rules", ps.ALERTS)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        names = [n for n, _ in ps.alert_rules()]
        self.assertEqual(len(names), 6)
        self.assertEqual(len(set(names)), 6)

    def test_every_dashboard_expression_parses(self):
        dash = ps.load_dashboard()
        rules = []
        for _, panel, ref, expr in ps.dashboard_targets(dash, ps.variables_for_all(dash)):
            rules.append({"record": f"dashboard:panel_{panel['id']}_{ref}", "expr": expr})
        self.assertGreater(len(rules), 20)
        with tempfile.NamedTemporaryFile("w", suffix=".yml") as f:
            yaml.safe_dump({"groups": [{"name": "dashboard", "rules": rules}]}, f)
            f.flush()
            r = promtool("check", "rules", f.name)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)


class DashboardStructure(unittest.TestCase):
    def setUp(self):
        self.dash = ps.load_dashboard()
        self.panels = self.dash["panels"]

    def test_is_importable_with_a_prometheus_input(self):
        inputs = self.dash["__inputs"]
        self.assertEqual([i["name"] for i in inputs], ["DS_PROMETHEUS"])
        self.assertEqual(inputs[0]["type"], "datasource")
        self.assertEqual(inputs[0]["pluginId"], "prometheus")
        self.assertTrue(self.dash["uid"])
        self.assertTrue(self.dash["title"])

    def test_has_model_name_and_instance_variables(self):
        names = [v["name"] for v in self.dash["templating"]["list"]]
        self.assertEqual(names, ["model_name", "instance"])
        for v in self.dash["templating"]["list"]:
            self.assertEqual(v["datasource"]["uid"], "${DS_PROMETHEUS}")
            self.assertIn("label_values(", v["definition"])

    def test_panel_ids_are_unique(self):
        ids = [p["id"] for p in self.panels]
        self.assertEqual(len(ids), len(set(ids)))

    def test_every_panel_queries_prometheus_through_the_input(self):
        for p in self.panels:
            if p["type"] == "row":
                continue
            self.assertEqual(p["datasource"], {"type": "prometheus", "uid": "${DS_PROMETHEUS}"},
                             p["title"])
            self.assertTrue(p["targets"], p["title"])
            refs = [t["refId"] for t in p["targets"]]
            self.assertEqual(len(refs), len(set(refs)), p["title"])
            for t in p["targets"]:
                self.assertEqual(t["datasource"]["uid"], "${DS_PROMETHEUS}", p["title"])
                # Every series follows the variables at the top of the dashboard.
                self.assertIn('instance=~"$instance"', t["expr"], p["title"])
                if re.search(r"\b(vllm|strata):", t["expr"]):
                    self.assertIn('model_name=~"$model_name"', t["expr"], p["title"])

    def test_grid_positions_fit_and_do_not_overlap(self):
        cells = {}
        for p in self.panels:
            g = p["gridPos"]
            self.assertGreaterEqual(g["x"], 0)
            self.assertLessEqual(g["x"] + g["w"], 24, p["title"])
            self.assertGreater(g["w"], 0)
            self.assertGreater(g["h"], 0)
            for x in range(g["x"], g["x"] + g["w"]):
                for y in range(g["y"], g["y"] + g["h"]):
                    self.assertNotIn((x, y), cells, f"{p['title']} overlaps {cells.get((x, y))}")
                    cells[(x, y)] = p["title"]

    def test_rows_hold_the_vllm_and_strata_panels(self):
        by_row = {}
        for row, panel, _, expr in ps.dashboard_targets(self.dash, ps.variables_for_all(self.dash)):
            by_row.setdefault(row, {}).setdefault(panel["title"], []).append(expr)
        rows = list(by_row)
        self.assertEqual(len(rows), 2)
        vllm_row, strata_row = by_row[rows[0]], by_row[rows[1]]
        for title, exprs in vllm_row.items():
            names = set(re.findall(r"[a-z_]+:[a-z_:]+", " ".join(exprs)))
            self.assertTrue(names and all(n.startswith("vllm:") for n in names), title)
        self.assertGreaterEqual(len(vllm_row), 12)
        self.assertGreaterEqual(len(strata_row), 8)
        for wanted in ["Requests running / waiting", "Time to first token p50 / p95",
                       "Inter-token latency p50 / p95", "End-to-end latency p50 / p95",
                       "Prefix-cache hit share", "Speculative decoding acceptance",
                       "Finished requests by reason", "K/V cache usage", "Prompt length",
                       "Generation length"]:
            self.assertIn(wanted, vllm_row)
        for wanted in ["Engine state", "Slots by state", "Live decode & prompt rates",
                       "Rows per window", "Stage busy share", "Group busy share",
                       "K/V blocks and park store",
                       "Last request cache hit share", "CPU and RAM"]:
            self.assertIn(wanted, strata_row)

    def test_busy_share_panels_split_busy_seconds_by_stage_and_by_group(self):
        by_title = {p["title"]: p for p in self.panels}
        for title, family, label in [("Stage busy share", "strata:stage_busy_seconds_total", "stage"),
                                     ("Group busy share", "strata:group_busy_seconds_total", "group")]:
            p = by_title[title]
            self.assertEqual(p["fieldConfig"]["defaults"]["unit"], "percentunit", title)
            [t] = p["targets"]
            self.assertIn(f"sum by ({label}) (rate({family}{{", t["expr"], title)
            self.assertEqual(t["legendFormat"], f"{label} {{{{{label}}}}}", title)
        stage, group = by_title["Stage busy share"]["gridPos"], by_title["Group busy share"]["gridPos"]
        # Side by side, so the two splits of the same busy time read together.
        self.assertEqual((group["y"], group["h"]), (stage["y"], stage["h"]))
        self.assertEqual(group["x"], stage["x"] + stage["w"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
