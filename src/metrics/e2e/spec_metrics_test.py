#!/usr/bin/env python3
"""End-to-end check of the speculative-decoding counters of `strata serve --spec ngram`.

A repetitive prompt is completed twice, once with "speculative": false and once with the
server's drafting; the texts must be equal (speculation changes no output), the vLLM
spec_decode counters must move (parsed with prometheus_client, as a Prometheus server would),
their sums must agree with each other and with /v1/status.

Environment: STRATA_BIN (the strata binary), STRATA_MODEL (defaults to shared stories260K).
"""
import json
import os
import sys
import unittest

from prometheus_client.parser import text_string_to_metric_families

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from strata_server import StrataServer  # noqa: E402

SPEC_TOKENS = 3
PROMPT = "Once upon a time, there was a little cat. " * 4 + "Once upon a time,"


def spec_samples(server):
    """(drafts, draft tokens, accepted tokens, {position: accepted}) from /metrics."""
    _, text = server.metrics_text()
    out = {"drafts": None, "draft_tokens": None, "accepted": None, "per_pos": {}}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            if s.name == "vllm:spec_decode_num_drafts_total":
                out["drafts"] = s.value
            elif s.name == "vllm:spec_decode_num_draft_tokens_total":
                out["draft_tokens"] = s.value
            elif s.name == "vllm:spec_decode_num_accepted_tokens_total":
                out["accepted"] = s.value
            elif s.name == "vllm:spec_decode_num_accepted_tokens_per_pos_total":
                out["per_pos"][s.labels["position"]] = s.value
    return out


class SpecMetrics(unittest.TestCase):
    def test_counters_move_parse_and_match_status(self):
        with StrataServer(parallel=2, extra_args=["--spec", "ngram", "--spec-tokens", str(SPEC_TOKENS)]) as s:
            before = spec_samples(s)
            plain = s.complete(PROMPT, 48, speculative=False, ignore_eos=True)
            mid = spec_samples(s)
            self.assertEqual(mid["draft_tokens"], before["draft_tokens"], "speculative: false drafted")
            spec = s.complete(PROMPT, 48, ignore_eos=True)
            after = spec_samples(s)
            self.assertEqual(spec["choices"][0]["text"], plain["choices"][0]["text"])

            self.assertGreater(after["drafts"], mid["drafts"])
            self.assertGreater(after["draft_tokens"], mid["draft_tokens"])
            self.assertGreater(after["accepted"], mid["accepted"])
            self.assertLessEqual(after["accepted"], after["draft_tokens"])
            self.assertLessEqual(after["draft_tokens"], SPEC_TOKENS * after["drafts"])
            self.assertEqual(set(after["per_pos"]), {str(i) for i in range(SPEC_TOKENS)})
            self.assertEqual(sum(after["per_pos"].values()), after["accepted"])

            status_code, _, body = s.request("GET", "/v1/status")
            self.assertEqual(status_code, 200)
            spec_status = json.loads(body)["load"]["spec"]
            self.assertEqual(spec_status["max_draft_tokens"], SPEC_TOKENS)
            self.assertEqual(spec_status["draft_tokens"], after["draft_tokens"])
            self.assertEqual(spec_status["accepted_tokens"], after["accepted"])


if __name__ == "__main__":
    unittest.main(verbosity=2)
