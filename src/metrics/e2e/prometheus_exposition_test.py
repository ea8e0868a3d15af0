#!/usr/bin/env python3
"""End-to-end check of GET /metrics on a running `strata serve` (stories260K, --parallel 4).

Reads the Prometheus text with prometheus_client's own parser (Debian's
python3-prometheus-client, the library vLLM uses) and checks every family's name, type,
label set and bucket list, that counters move by exactly what known requests did, that a
scrape changes nothing, and the content negotiation.

Environment: STRATA_BIN (the strata binary), STRATA_MODEL (defaults to shared stories260K).
"""
import os
import sys
import time
import unittest

from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.utils import floatToGoString

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from strata_server import StrataServer  # noqa: E402

BASE = {"model_name", "engine"}
TTFT = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5,
        10.0, 20.0, 40.0, 80.0, 160.0, 640.0, 2560.0]
ITL = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0,
       20.0, 40.0, 80.0]
LATENCY = [0.3, 0.5, 0.8, 1.0, 1.5, 2.0, 2.5, 5.0, 10.0, 15.0, 20.0, 30.0, 40.0, 50.0, 60.0,
           120.0, 240.0, 480.0, 960.0, 1920.0, 7680.0]
ITERATION = [1, 8] + [16 * 2 ** i for i in range(11)]
PROMETHEUS_ACCEPT = ("application/openmetrics-text;version=1.0.0,application/openmetrics-text;"
                     "version=0.0.1;q=0.75,text/plain;version=0.0.4;q=0.5,*/*;q=0.1")


def one_two_five(max_value):
    out, scale = [], 1
    while True:
        for m in (1, 2, 5):
            if m * scale > max_value:
                return out
            out.append(m * scale)
        scale *= 10


def expected_families(n_ctx):
    """Exposition name -> (type, extra label names, bucket bounds or None)."""
    tokens = one_two_five(n_ctx)
    e = {
        "vllm:num_requests_running": ("gauge", set(), None),
        "vllm:num_requests_waiting": ("gauge", set(), None),
        "vllm:kv_cache_usage_perc": ("gauge", set(), None),
        "vllm:gpu_cache_usage_perc": ("gauge", set(), None),
        "vllm:cache_config_info": ("gauge", {"block_size", "num_gpu_blocks", "cache_dtype",
                                             "enable_prefix_caching"}, None),
        "vllm:prompt_tokens_total": ("counter", set(), None),
        "vllm:generation_tokens_total": ("counter", set(), None),
        "vllm:request_success_total": ("counter", {"finished_reason"}, None),
        "vllm:num_preemptions_total": ("counter", set(), None),
        "vllm:prefix_cache_queries_total": ("counter", set(), None),
        "vllm:prefix_cache_hits_total": ("counter", set(), None),
        "vllm:spec_decode_num_drafts_total": ("counter", set(), None),
        "vllm:spec_decode_num_draft_tokens_total": ("counter", set(), None),
        "vllm:spec_decode_num_accepted_tokens_total": ("counter", set(), None),
        "vllm:time_to_first_token_seconds": ("histogram", set(), TTFT),
        "vllm:inter_token_latency_seconds": ("histogram", set(), ITL),
        "vllm:time_per_output_token_seconds": ("histogram", set(), ITL),
        "vllm:request_time_per_output_token_seconds": ("histogram", set(), ITL),
        "vllm:iteration_tokens_total": ("histogram", set(), ITERATION),
        "vllm:request_params_n": ("histogram", set(), [1, 2, 5, 10, 20]),
        "strata:engine_info": ("gauge", {"model", "arch", "version", "context", "parallel",
                                         "groups", "stages", "windows", "threads"}, None),
        "strata:live_state": ("gauge", {"state"}, None),
        "strata:live_running": ("gauge", set(), None),
        "strata:live_waiting": ("gauge", set(), None),
        "strata:live_slots": ("gauge", {"state"}, None),
        "strata:live_tok_s": ("gauge", set(), None),
        "strata:live_prefill_tok_s": ("gauge", set(), None),
        "strata:last_hit_rate": ("gauge", set(), None),
        "strata:window_rows": ("histogram", set(), [2 ** i for i in range(13)]),
        "strata:stage_busy_seconds_total": ("counter", {"stage"}, None),
        "strata:group_windows_total": ("counter", {"group"}, None),
        "strata:group_rows_total": ("counter", {"group"}, None),
        "strata:group_busy_seconds_total": ("counter", {"group"}, None),
        "strata:kv_evictions_total": ("counter", set(), None),
        "strata:kv_reused_bytes_total": ("counter", set(), None),
        "strata:kv_prefix_queried_tokens_total": ("counter", set(), None),
        "strata:kv_prefix_hit_tokens_total": ("counter", set(), None),
        "strata:cpu": ("gauge", set(), None),
        "strata:ram_used_bytes": ("gauge", set(), None),
        "strata:ram_total_bytes": ("gauge", set(), None),
    }
    for name in ["e2e_request_latency_seconds", "request_queue_time_seconds",
                 "request_inference_time_seconds", "request_prefill_time_seconds",
                 "request_decode_time_seconds"]:
        e["vllm:" + name] = ("histogram", set(), LATENCY)
    for name in ["request_prompt_tokens", "request_generation_tokens",
                 "request_max_num_generation_tokens", "request_params_max_tokens"]:
        e["vllm:" + name] = ("histogram", set(), tokens)
    for name in ["block_tokens", "capacity_blocks", "used_blocks", "cached_blocks", "free_blocks",
                 "usage"]:
        e["strata:kv_" + name] = ("gauge", set(), None)
    return e


UNLABELLED = {
    "process_cpu_seconds_total": ("counter", set()),
    "process_resident_memory_bytes": ("gauge", set()),
    "process_virtual_memory_bytes": ("gauge", set()),
    "process_open_fds": ("gauge", set()),
    "process_max_fds": ("gauge", set()),
    "process_start_time_seconds": ("gauge", set()),
    "http_requests_total": ("counter", {"handler", "method", "status"}),
}


def parsed_name(exposition_name, kind):
    # prometheus_client names a counter family without its _total suffix.
    if kind == "counter" and exposition_name.endswith("_total"):
        return exposition_name[: -len("_total")]
    return exposition_name


def families(text):
    return {f.name: f for f in text_string_to_metric_families(text)}


def value(fams, family, sample_name=None, **labels):
    for s in fams[family].samples:
        if (sample_name is None or s.name == sample_name) and all(
                s.labels.get(k) == v for k, v in labels.items()):
            return s.value
    raise KeyError(f"{family} {sample_name} {labels}")


class Exposition(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = StrataServer(parallel=4).__enter__()
        # One finished request, so per-request figures (last hit rate) exist.
        cls.server.complete("Once upon a time", 4)
        cls.server.metrics_json()
        time.sleep(1.1)  # the host CPU share needs two readings a second apart
        cls.info = cls.server.metrics_json()
        cls.headers, cls.text = cls.server.metrics_text()
        cls.fams = families(cls.text)

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)

    def test_text_content_type(self):
        self.assertEqual(self.headers.get("Content-Type"), "text/plain; version=0.0.4; charset=utf-8")

    def test_every_family_name_type_and_label_set(self):
        expected = expected_families(self.info["engine"]["context"])
        seen = set()
        for name, (kind, extra, _) in expected.items():
            fam_name = parsed_name(name, kind)
            self.assertIn(fam_name, self.fams, name)
            fam = self.fams[fam_name]
            self.assertEqual(fam.type, kind, name)
            seen.add(fam_name)
            for s in fam.samples:
                wanted = BASE | extra | ({"le"} if s.name.endswith("_bucket") else set())
                self.assertEqual(set(s.labels), wanted, s.name)
                self.assertEqual(s.labels["engine"], "0")
                self.assertEqual(s.labels["model_name"], self.info["engine"]["model"])
        for name, (kind, labels) in UNLABELLED.items():
            fam_name = parsed_name(name, kind)
            self.assertIn(fam_name, self.fams, name)
            self.assertEqual(self.fams[fam_name].type, kind)
            seen.add(fam_name)
            for s in self.fams[fam_name].samples:
                self.assertEqual(set(s.labels), labels, s.name)
        park = {n for n in self.fams if n.startswith("strata:park_")}
        if self.info["park"]["enabled"]:
            seen |= park
        else:
            self.assertEqual(park, set(), "park figures without a park store")
        self.assertNotIn("strata:gpu_util", self.fams, "no GPU here")
        self.assertEqual(set(self.fams) - seen, set(), "families docs/metrics.md does not list")

    def test_every_family_is_documented(self):
        docs = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "docs", "metrics.md")
        with open(docs, encoding="utf-8") as f:
            text = f.read()
        for line in self.text.splitlines():
            if line.startswith("# TYPE "):
                self.assertIn("`" + line.split()[2] + "`", text, "docs/metrics.md")

    def test_histogram_buckets_are_vllms_printed_like_python(self):
        for name, (kind, _, bounds) in expected_families(self.info["engine"]["context"]).items():
            if kind != "histogram":
                continue
            les = [s.labels["le"] for s in self.fams[name].samples if s.name == name + "_bucket"]
            self.assertEqual(les, [floatToGoString(b) for b in bounds] + ["+Inf"], name)
            self.assertEqual(value(self.fams, name, name + "_bucket", le="+Inf"),
                             value(self.fams, name, name + "_count"), name)

    def test_finish_reasons_are_all_present(self):
        reasons = {s.labels["finished_reason"] for s in self.fams["vllm:request_success"].samples}
        self.assertEqual(reasons, {"stop", "length", "abort", "error"})

    def test_one_help_and_type_per_family_and_none_orphaned(self):
        helps = [l.split()[2] for l in self.text.splitlines() if l.startswith("# HELP ")]
        types = [l.split()[2] for l in self.text.splitlines() if l.startswith("# TYPE ")]
        self.assertEqual(len(helps), len(set(helps)))
        self.assertEqual(helps, types)
        samples = [l.split("{")[0].split(" ")[0] for l in self.text.splitlines()
                   if l and not l.startswith("#")]
        for h in helps:
            self.assertTrue(any(s == h or s.startswith(h + "_") for s in samples), f"orphan {h}")

    def test_prometheus_accept_header_gets_text_and_browsers_get_json(self):
        status, headers, body = self.server.request("GET", "/metrics", headers={"Accept": PROMETHEUS_ACCEPT})
        self.assertEqual(status, 200)
        self.assertTrue(headers["Content-Type"].startswith("text/plain"), headers)
        self.assertTrue(body.startswith(b"# HELP "))
        for accept in ["*/*", "text/html,application/xhtml+xml,*/*;q=0.8", "application/json"]:
            status, headers, body = self.server.request("GET", "/metrics", headers={"Accept": accept})
            self.assertEqual(status, 200)
            self.assertTrue(headers["Content-Type"].startswith("application/json"), accept)
        status, headers, _ = self.server.request("GET", "/metrics?format=prometheus", headers={"Accept": "*/*"})
        self.assertTrue(headers["Content-Type"].startswith("text/plain"))

    def test_group_busy_seconds_list_every_group_as_the_json_does(self):
        n_groups = self.info["engine"]["groups"]
        fam = self.fams["strata:group_busy_seconds"]
        self.assertEqual([s.labels["group"] for s in fam.samples], [str(g) for g in range(n_groups)])
        self.assertEqual([s.value for s in fam.samples], [g["busy_s"] for g in self.info["groups"]])
        self.assertGreater(sum(s.value for s in fam.samples), 0.0, "the request's windows took time")

    def test_json_sections(self):
        j = self.server.metrics_json()
        for key in ["time", "engine", "live", "stages", "groups", "window", "kv", "park",
                    "requests", "requests_kept", "totals", "hardware", "history"]:
            self.assertIn(key, j)
        self.assertEqual(j["engine"]["parallel"], 4)
        self.assertEqual(len(j["live"]["slots"]), 4)
        self.assertGreaterEqual(len(j["history"]["points"]), 1)
        self.assertIn("cpu", j["hardware"])


class Counters(unittest.TestCase):
    """Counters move by exactly what known requests did; a scrape moves nothing."""

    @classmethod
    def setUpClass(cls):
        cls.server = StrataServer(parallel=4).__enter__()

    @classmethod
    def tearDownClass(cls):
        cls.server.__exit__(None, None, None)

    def scrape(self):
        return families(self.server.metrics_text()[1])

    def scrape_when(self, ready, timeout_s=5):
        """The first scrape for which ready(families) holds. The engine reports a request's end,
        and the server a response, around the time the client gets the last byte, not strictly
        before; the test waits for that, then checks exact amounts."""
        deadline = time.monotonic() + timeout_s
        while True:
            fams = self.scrape()
            if ready(fams) or time.monotonic() > deadline:
                return fams
            time.sleep(0.05)

    def scrape_when_finished(self, n_finished):
        return self.scrape_when(lambda f: self.finished(f) >= n_finished)

    def finished(self, fams):
        return sum(s.value for s in fams["vllm:request_success"].samples)

    def test_counters_move_by_the_requests_made(self):
        before = self.scrape()
        done = []
        for prompt, max_tokens in [("Once upon a time", 6), ("The little dog", 9), ("Lily saw", 12)]:
            r = self.server.complete(prompt, max_tokens)
            done.append((r["usage"], r["choices"][0]["finish_reason"], max_tokens, "/v1/completions"))
        s = self.server.stream_chat("Tell me a story.", 14)
        self.assertIsNotNone(s["usage"], "the stream reports usage (stream_options.include_usage)")
        done.append((s["usage"], s["finish_reason"], 14, "/v1/chat/completions"))
        def http(fams, handler):
            try:
                return value(fams, "http_requests", handler=handler, method="POST", status="2xx")
            except KeyError:
                return 0

        after = self.scrape_when(
            lambda f: self.finished(f) >= self.finished(before) + len(done) and
            http(f, "/v1/chat/completions") >= http(before, "/v1/chat/completions") + 1)

        def delta(family, sample=None, **labels):
            return value(after, family, sample, **labels) - value(before, family, sample, **labels)

        prompt = sum(u["prompt_tokens"] for u, _, _, _ in done)
        generated = [u["completion_tokens"] for u, _, _, _ in done]
        self.assertEqual(delta("vllm:prompt_tokens"), prompt)
        self.assertEqual(delta("vllm:generation_tokens"), sum(generated))
        for reason in ["stop", "length", "abort", "error"]:
            n = sum(1 for _, f, _, _ in done if f == reason)
            self.assertEqual(delta("vllm:request_success", finished_reason=reason), n, reason)
        n = len(done)
        for h in ["vllm:e2e_request_latency_seconds", "vllm:request_queue_time_seconds",
                  "vllm:request_params_n", "vllm:request_prompt_tokens"]:
            self.assertEqual(delta(h, h + "_count"), n, h)
        self.assertEqual(delta("vllm:request_prompt_tokens", "vllm:request_prompt_tokens_sum"), prompt)
        self.assertEqual(delta("vllm:request_generation_tokens", "vllm:request_generation_tokens_sum"),
                         sum(generated))
        self.assertEqual(delta("vllm:request_params_max_tokens", "vllm:request_params_max_tokens_sum"),
                         sum(m for _, _, m, _ in done))
        self.assertEqual(delta("vllm:time_to_first_token_seconds", "vllm:time_to_first_token_seconds_count"),
                         sum(1 for g in generated if g > 0))
        gaps = sum(max(0, g - 1) for g in generated)
        for h in ["vllm:inter_token_latency_seconds", "vllm:time_per_output_token_seconds"]:
            self.assertEqual(delta(h, h + "_count"), gaps, h)
        self.assertEqual(http(after, "/v1/completions") - http(before, "/v1/completions"), 3)
        self.assertEqual(http(after, "/v1/chat/completions") - http(before, "/v1/chat/completions"), 1)
        for fam in after.values():
            if fam.type != "histogram":
                continue
            self.assertEqual(value(after, fam.name, fam.name + "_bucket", le="+Inf"),
                             value(after, fam.name, fam.name + "_count"), fam.name)

    def test_a_cancelled_stream_counts_as_abort(self):
        before = self.scrape()
        s = self.server.stream_chat("Once upon a time there was", 400, cancel_after_chunks=2, ignore_eos=True)
        self.assertTrue(s["cancelled"])
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            after = self.scrape()
            if value(after, "vllm:request_success", finished_reason="abort") > \
                    value(before, "vllm:request_success", finished_reason="abort"):
                break
            time.sleep(0.05)
        self.assertEqual(value(after, "vllm:request_success", finished_reason="abort") -
                         value(before, "vllm:request_success", finished_reason="abort"), 1)
        self.assertGreaterEqual(value(after, "vllm:generation_tokens") - value(before, "vllm:generation_tokens"), 2)

    def test_a_scrape_changes_no_engine_figure(self):
        n = self.finished(self.scrape())
        self.server.complete("Once upon a time", 3)
        self.scrape_when_finished(n + 1)
        time.sleep(0.3)  # the engine's last step report follows the request's end
        first, second = self.scrape(), self.scrape()
        for name, fam in first.items():
            # Counters and histograms only: rates and host figures are gauges that move with time.
            if not name.startswith(("vllm:", "strata:")) or fam.type not in ("counter", "histogram"):
                continue
            self.assertEqual([(s.name, s.labels, s.value) for s in fam.samples],
                             [(s.name, s.labels, s.value) for s in second[name].samples], name)


if __name__ == "__main__":
    unittest.main(verbosity=2)
