#!/usr/bin/env python3
"""A real Prometheus scrapes a running `strata serve` with the shipped prometheus.yml, and
every PromQL expression of the shipped dashboard and alerts is evaluated against what it
stored.

- promtool check metrics on a scrape: only the known name lints remain (see docs/metrics.md).
- Prometheus (Debian's package, loopback, free port, temp storage) runs the shipped
  prometheus.yml with only the target, the token file and the test's 1 s intervals changed,
  and loads the shipped alerts.yml.
- The test drives streamed requests (some cancelled, some stopped by length), waits for two
  scrapes, then queries every dashboard target (variables substituted) and alert rule through
  the HTTP API: each must parse, and every dashboard panel must return a series.

Environment: STRATA_BIN, STRATA_MODEL (see src/metrics/e2e/strata_server.py).
"""
import concurrent.futures
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.parse
import urllib.request

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "..", "src", "metrics", "e2e"))
import promql_sources as ps  # noqa: E402
from strata_server import StrataServer, free_port  # noqa: E402

PROMETHEUS = shutil.which("prometheus") or "/usr/bin/prometheus"
PROMTOOL = shutil.which("promtool") or "/usr/bin/promtool"
API_KEY = "scrape-test-key"
# Names fixed by vLLM or by the issue that promtool's linter dislikes; nothing else may show.
ALLOWED_LINT = [
    "metric names should not contain ':'",
    'vllm:iteration_tokens_total non-counter metrics should not have "_total" suffix',
    "strata:live_tok_s metric names should not contain abbreviated units",
    "strata:live_prefill_tok_s metric names should not contain abbreviated units",
]

# Dashboard panels that only mixture-of-experts models fill.
MOE_ONLY_PANELS = {"Expert load imbalance (MoE)"}


class PrometheusScrape(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="strata-prom-")
        cls.server = StrataServer(parallel=4, api_key=API_KEY).__enter__()
        cls.prom_port = free_port()
        cls.prom = cls.start_prometheus()

    @classmethod
    def tearDownClass(cls):
        cls.prom.terminate()
        try:
            cls.prom.wait(timeout=20)
        except subprocess.TimeoutExpired:
            cls.prom.kill()
        cls.server.__exit__(None, None, None)
        cls.tmp.cleanup()

    @classmethod
    def start_prometheus(cls):
        with open(os.path.join(ps.MONITORING_DIR, "prometheus.yml"), encoding="utf-8") as f:
            cfg = yaml.safe_load(f)
        job = [j for j in cfg["scrape_configs"] if j["job_name"] == "strata"][0]
        token = os.path.join(cls.tmp.name, "token")
        with open(token, "w") as f:
            f.write(API_KEY + "\n")
        job["static_configs"][0]["targets"] = [cls.server.address]
        job["authorization"]["credentials_file"] = token
        job["scrape_interval"] = job["scrape_timeout"] = "1s"
        cfg["global"]["evaluation_interval"] = "1s"
        shutil.copy(ps.ALERTS, os.path.join(cls.tmp.name, "alerts.yml"))
        path = os.path.join(cls.tmp.name, "prometheus.yml")
        with open(path, "w") as f:
            yaml.safe_dump(cfg, f)
        cls.prom_log = open(os.path.join(cls.tmp.name, "prometheus.log"), "w")
        proc = subprocess.Popen(
            [PROMETHEUS, f"--config.file={path}", f"--storage.tsdb.path={cls.tmp.name}/data",
             f"--web.listen-address=127.0.0.1:{cls.prom_port}", "--log.level=warn"],
            stdout=cls.prom_log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{cls.prom_port}/-/ready", timeout=2) as r:
                    if r.status == 200:
                        return proc
            except OSError:
                pass
            if proc.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError("prometheus did not start: " + open(cls.prom_log.name).read()[-2000:])

    def api(self, path, **params):
        url = f"http://127.0.0.1:{self.prom_port}/api/v1/{path}?" + urllib.parse.urlencode(params)
        try:
            with urllib.request.urlopen(url, timeout=10) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            return json.load(e)

    def query(self, expr):
        return self.api("query", query=expr, time=f"{time.time():.3f}")

    def drive_traffic(self):
        """Streamed requests on all four slots plus a queue: some stopped by length, some
        cancelled by the client mid-stream, some left to finish."""
        jobs = []
        for i in range(4):
            jobs.append(dict(content=f"Once upon a time {i}", max_tokens=8))
        for i in range(2):
            jobs.append(dict(content=f"Tell me a long story {i}", max_tokens=300,
                             cancel_after_chunks=2, ignore_eos=True))
        for i in range(3):
            jobs.append(dict(content=f"The cat and the dog {i}", max_tokens=40))
        with concurrent.futures.ThreadPoolExecutor(max_workers=len(jobs)) as pool:
            results = list(pool.map(lambda j: self.server.stream_chat(**j), jobs))
        self.assertEqual(sum(r["cancelled"] for r in results), 2)
        self.assertTrue(any(r["finish_reason"] == "length" for r in results))
        return results

    def wait_for_scrapes(self, n, after_wall_s):
        seen = set()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(seen) < n:
            r = self.query('timestamp(up{job="strata"})')
            for s in r.get("data", {}).get("result", []):
                t = float(s["value"][1])
                if t > after_wall_s:
                    seen.add(t)
            time.sleep(0.2)
        self.assertGreaterEqual(len(seen), n, "scrapes after the traffic")

    def test_1_promtool_lints_only_the_known_names(self):
        _, text = self.server.metrics_text()
        r = subprocess.run([PROMTOOL, "check", "metrics"], input=text, capture_output=True,
                           text=True, timeout=60)
        lines = [l for l in (r.stdout + r.stderr).splitlines() if l.strip()]
        unexpected = [l for l in lines if not any(a in l for a in ALLOWED_LINT)]
        self.assertEqual(unexpected, [])

    def test_2_every_dashboard_and_alert_expression_evaluates(self):
        self.wait_for_scrapes(1, 0)
        up = self.query('up{job="strata"}')["data"]["result"]
        self.assertEqual([s["value"][1] for s in up], ["1"], "the bearer token from the file works")
        self.drive_traffic()
        self.wait_for_scrapes(2, time.time())

        model = self.server.metrics_json()["engine"]["model"]
        dash = ps.load_dashboard()
        variables = {"model_name": model, "instance": self.server.address}
        panels, failures = {}, []
        for row, panel, ref, expr in ps.dashboard_targets(dash, variables):
            r = self.query(expr)
            if r.get("status") != "success":
                failures.append(f"{panel['title']} {ref}: {r.get('error')} in {expr}")
                continue
            panels.setdefault((row, panel["title"]), 0)
            panels[(row, panel["title"])] += len(r["data"]["result"])
        for name, expr in ps.alert_rules():
            r = self.query(expr)
            if r.get("status") != "success":
                failures.append(f"alert {name}: {r.get('error')}")
        self.assertEqual(failures, [])
        print(f"\n  {len(panels)} panels evaluated; series per panel: "
              + ", ".join(f"{t}={n}" for (_, t), n in panels.items()), file=sys.stderr)
        rows = {row for row, _ in panels}
        self.assertEqual(len(rows), 2)
        # The server here runs a dense model: panels of mixture-of-experts figures stay empty.
        empty = [f"{row} / {title}" for (row, title), n in panels.items()
                 if n == 0 and title not in MOE_ONLY_PANELS]
        self.assertEqual(empty, [], "panels without a series")

    def test_3_alert_rules_load_and_evaluate(self):
        deadline = time.monotonic() + 15
        while True:
            groups = self.api("rules")["data"]["groups"]
            rules = [r for g in groups for r in g["rules"]]
            if rules and all(r.get("lastEvaluation", "").startswith("2") and
                             not r["lastEvaluation"].startswith("0001") for r in rules):
                break
            self.assertLess(time.monotonic(), deadline, "rules never evaluated")
            time.sleep(0.2)
        self.assertEqual(len(rules), len(list(ps.alert_rules())))
        for r in rules:
            self.assertEqual(r["health"], "ok", f"{r['name']}: {r.get('lastError')}")

    def test_4_adapter_rule_query_returns_the_queue(self):
        path = os.path.join(HERE, "..", "kubernetes", "prometheus-adapter-rules.yaml")
        with open(path, encoding="utf-8") as f:
            adapter = yaml.safe_load(yaml.safe_load(f)["data"]["config.yaml"])
        rule = adapter["rules"][0]
        expr = (rule["metricsQuery"].replace("<<.Series>>", "vllm:num_requests_waiting")
                .replace("<<.LabelMatchers>>", 'job="strata"').replace("<<.GroupBy>>", "instance"))
        r = self.query(expr)
        self.assertEqual(r["status"], "success", r)
        self.assertEqual(len(r["data"]["result"]), 1)


if __name__ == "__main__":
    unittest.main(verbosity=2)
