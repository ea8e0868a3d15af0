"""Runs `strata serve` for end-to-end tests and talks to it over HTTP.

StrataServer starts the binary on 127.0.0.1 with --port 0, reads the bound port from its
"strata: listening on http://HOST:PORT" line, waits for /health, and stops it with SIGTERM.
Only the Python standard library; loopback only.
"""
import http.client
import json
import os
import re
import signal
import socket
import subprocess
import tempfile
import threading
import time

DEFAULT_MODEL = "stories260K.gguf"


def strata_binary():
    path = os.environ.get("STRATA_BIN")
    if not path or not os.access(path, os.X_OK):
        raise RuntimeError(f"STRATA_BIN={path!r} is not an executable strata binary")
    return path


def model_path():
    path = os.environ.get("STRATA_MODEL")
    if not path:
        here = os.path.dirname(os.path.abspath(__file__))
        path = os.path.join(here, "..", "..", "..", "..", "shared", "models", DEFAULT_MODEL)
    if not os.path.exists(path):
        raise RuntimeError(f"model {path} not found (set STRATA_MODEL)")
    return os.path.abspath(path)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class StrataServer:
    def __init__(self, parallel=4, api_key="test-key", extra_args=()):
        self.parallel = parallel
        self.api_key = api_key
        self.extra_args = list(extra_args)
        self.port = None
        self.proc = None
        self.log = tempfile.NamedTemporaryFile("w+", prefix="strata-serve-", suffix=".log")

    def __enter__(self):
        args = [strata_binary(), "serve", "--model", model_path(), "--host", "127.0.0.1",
                "--port", "0", "--parallel", str(self.parallel)] + self.extra_args
        if self.api_key:
            args += ["--api-key", self.api_key]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.port = self._read_port(timeout_s=30)
        threading.Thread(target=self._drain_stdout, daemon=True).start()
        self._wait_healthy(timeout_s=60)
        return self

    def __exit__(self, *exc):
        self.stop()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def log_text(self):
        self.log.flush()
        with open(self.log.name, encoding="utf-8", errors="replace") as f:
            return f.read()[-4000:]

    def _read_port(self, timeout_s):
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                if self.proc.poll() is not None:
                    raise RuntimeError(f"strata serve exited ({self.proc.returncode}):\n{self.log_text()}")
                continue
            m = re.search(r"listening on http://[^:]+:(\d+)", line)
            if m:
                return int(m.group(1))
        raise RuntimeError("strata serve printed no 'listening on' line")

    def _drain_stdout(self):
        for _ in self.proc.stdout:
            pass

    def _wait_healthy(self, timeout_s):
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                status, _, _ = self.request("GET", "/health")
                if status == 200:
                    return
            except OSError:
                pass
            if self.proc.poll() is not None:
                raise RuntimeError(f"strata serve exited:\n{self.log_text()}")
            time.sleep(0.05)
        raise RuntimeError("strata serve never became healthy")

    @property
    def address(self):
        return f"127.0.0.1:{self.port}"

    def headers(self, extra=None):
        h = {"Content-Type": "application/json"}
        if self.api_key:
            h["Authorization"] = f"Bearer {self.api_key}"
        h.update(extra or {})
        return h

    def request(self, method, path, body=None, headers=None, timeout=60):
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            data = json.dumps(body) if body is not None else None
            conn.request(method, path, body=data, headers=self.headers(headers))
            resp = conn.getresponse()
            return resp.status, dict(resp.getheaders()), resp.read()
        finally:
            conn.close()

    def metrics_text(self):
        status, headers, body = self.request("GET", "/metrics", headers={"Accept": "text/plain"})
        if status != 200:
            raise RuntimeError(f"/metrics: {status} {body[:200]!r}")
        return headers, body.decode("utf-8")

    def metrics_json(self, query=""):
        status, _, body = self.request("GET", "/metrics" + query, headers={"Accept": "application/json"})
        if status != 200:
            raise RuntimeError(f"/metrics: {status} {body[:200]!r}")
        return json.loads(body)

    def complete(self, prompt, max_tokens, **fields):
        """A non-streamed /v1/completions; returns the parsed response."""
        body = {"prompt": prompt, "max_tokens": max_tokens, "temperature": 0}
        body.update(fields)
        status, _, data = self.request("POST", "/v1/completions", body)
        if status != 200:
            raise RuntimeError(f"/v1/completions: {status} {data[:300]!r}")
        return json.loads(data)

    def stream_chat(self, content, max_tokens, cancel_after_chunks=None, **fields):
        """A streamed /v1/chat/completions. With cancel_after_chunks, the connection is closed
        after that many content chunks (the server must abort the request). Returns a dict with
        chunks (content deltas seen), finish_reason and usage (when the server sent them)."""
        body = {"messages": [{"role": "user", "content": content}], "max_tokens": max_tokens,
                "stream": True, "stream_options": {"include_usage": True}, "temperature": 0}
        body.update(fields)
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        out = {"chunks": 0, "text": "", "finish_reason": None, "usage": None, "cancelled": False}
        try:
            conn.request("POST", "/v1/chat/completions", body=json.dumps(body), headers=self.headers())
            resp = conn.getresponse()
            if resp.status != 200:
                raise RuntimeError(f"stream: {resp.status} {resp.read()[:300]!r}")
            while True:
                line = resp.readline()
                if not line:
                    break
                line = line.decode("utf-8").strip()
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    break
                event = json.loads(data)
                if event.get("usage"):
                    out["usage"] = event["usage"]
                for choice in event.get("choices", []):
                    delta = choice.get("delta", {}).get("content")
                    if delta:
                        out["chunks"] += 1
                        out["text"] += delta
                    if choice.get("finish_reason"):
                        out["finish_reason"] = choice["finish_reason"]
                if cancel_after_chunks is not None and out["chunks"] >= cancel_after_chunks:
                    out["cancelled"] = True
                    conn.sock.shutdown(socket.SHUT_RDWR)
                    break
        finally:
            conn.close()
        return out
