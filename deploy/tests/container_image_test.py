#!/usr/bin/env python3
"""The container image runs the way deploy/kubernetes/deployment.yaml runs it.

Builds the Containerfile's `prebuilt` target (the runtime stage plus the `strata` binary that
`make build` just made: seconds, where the full in-image compile takes ~10 minutes on 2 cores)
on a Debian 12 base made locally by deploy/container/debian-base.sh (no registry needed; kept in
the engine's storage, so only the first run on a machine spends ~1.5 min on it). Then it starts
the image as the Deployment does (user 10001, read-only root, no capabilities, model volume
mounted read-only, the key from a mounted file) and checks:

- the image's config: user, port, labels, HEALTHCHECK, the ENV defaults the Deployment repeats;
- /health, one chat completion (and a 401 without the key), /metrics in Prometheus text;
- the image's own HEALTHCHECK command passes inside the container;
- SIGTERM: the server drains and exits with status 0 well within the drain timeout.

Skips (exit 77, "SKIPPED: <why>" on stdout) when no container engine is installed or containers
cannot be built or run on this machine. Environment: STRATA_BIN, STRATA_MODEL;
STRATA_CONTAINER_ENGINE picks podman or docker.
"""
import json
import os
import re
import shlex
import socket
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CONTAINER_DIR = os.path.join(REPO, "deploy", "container")
BASE_IMAGE = os.environ.get("STRATA_TEST_BASE_IMAGE", "localhost/strata-debian:12-slim")
API_KEY = "container-smoke-key"
DRAIN_TIMEOUT_S = 30  # the image's default, and the Deployment's --drain-timeout
SKIP = 77


def skip(reason):
    print(f"SKIPPED: container_image_smoke: {reason}", flush=True)
    sys.exit(SKIP)


def engine_shell(script, *args):
    """Runs bash with deploy/container/engine.sh sourced; returns (status, stdout, stderr)."""
    cmd = ["bash", "-c", f"source {shlex.quote(os.path.join(CONTAINER_DIR, 'engine.sh'))}; {script}", "bash"]
    proc = subprocess.run(cmd + list(args), capture_output=True, text=True)
    return proc.returncode, proc.stdout.strip(), proc.stderr.strip()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http(url, method="GET", body=None, headers=None, timeout_s=30):
    """(status, headers, body text); HTTP errors are answers too."""
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method=method, headers=headers or {})
    if data is not None:
        req.add_header("Content-Type", "application/json")
    try:
        with urllib.request.urlopen(req, timeout=timeout_s) as res:
            return res.status, res.headers, res.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read().decode()


class Engine:
    """The container engine with the flags this machine needs (see engine.sh)."""

    def __init__(self):
        status, name, err = engine_shell("strata_pick_engine")
        if status != 0:
            skip(err)
        self.name = name
        base = os.path.join(CONTAINER_DIR, "debian-base.sh")
        proc = subprocess.run([base, name, BASE_IMAGE], capture_output=True, text=True)
        if proc.returncode != 0:
            skip(f"cannot make the Debian base image {BASE_IMAGE}: {proc.stderr.strip()[-500:]}")
        status, _, err = engine_shell('strata_probe_build "$1" "$2"', name, BASE_IMAGE)
        if status != 0:
            skip(err)
        status, flags, err = engine_shell(
            'strata_probe_run "$1" "$2" && printf "%s\\n" "${STRATA_RUN_FLAGS[@]}"', name, BASE_IMAGE)
        if status != 0:
            skip(err)
        self.run_flags = flags.split()

    def __call__(self, *args, check=True, timeout_s=600):
        proc = subprocess.run([self.name, *args], capture_output=True, text=True, timeout=timeout_s)
        if check and proc.returncode != 0:
            raise AssertionError(f"{self.name} {' '.join(args[:2])} failed: {proc.stderr[-2000:]}")
        return proc


class ContainerImage(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        binary = os.environ.get("STRATA_BIN", "")
        model = os.path.abspath(os.environ.get("STRATA_MODEL", ""))
        if not os.access(binary, os.X_OK) or not os.path.isfile(model):
            raise RuntimeError(f"STRATA_BIN={binary!r} and STRATA_MODEL={model!r} must exist")
        # One fixed tag, replaced by each run and never removed: removing the image would also
        # drop the cached runtime-stage layers below it, and the next run would redo its apt-get.
        cls.tag = "localhost/strata:smoke-test"
        cls.name = f"strata-smoke-{os.getpid()}"
        cls.tmp = tempfile.TemporaryDirectory(prefix="strata-container-")
        started = time.monotonic()
        previous = cls.engine("image", "inspect", "--format", "{{.Id}}", cls.tag, check=False).stdout.strip()
        build = subprocess.run(
            [os.path.join(CONTAINER_DIR, "build-image.sh"), "--prebuilt", binary, cls.tag],
            env={**os.environ, "BASE_IMAGE": BASE_IMAGE, "STRATA_CONTAINER_ENGINE": cls.engine.name},
            capture_output=True, text=True)
        if build.returncode != 0:
            raise AssertionError(f"image build failed:\n{build.stdout[-3000:]}\n{build.stderr[-3000:]}")
        built = time.monotonic()
        if previous and previous != cls.image_id():
            # The last run's image, now untagged: only its binary layer goes, the cached ones stay.
            cls.engine("rmi", previous, check=False)
        cls.config = cls.inspect_config()
        cls.start_container(model)
        print(f"image built in {built - started:.1f} s, container healthy {time.monotonic() - built:.1f} s later",
              flush=True)

    @classmethod
    def tearDownClass(cls):
        cls.engine("rm", "-f", cls.name, check=False)
        cls.tmp.cleanup()

    @classmethod
    def image_id(cls):
        return cls.engine("image", "inspect", "--format", "{{.Id}}", cls.tag).stdout.strip()

    @classmethod
    def inspect_config(cls):
        """The image config; podman reports the HEALTHCHECK beside it, docker inside it."""
        image = json.loads(cls.engine("image", "inspect", cls.tag).stdout)[0]
        config = dict(image["Config"])
        config.setdefault("Healthcheck", image.get("Healthcheck"))
        return config

    @classmethod
    def start_container(cls, model):
        key_file = os.path.join(cls.tmp.name, "api-key")
        with open(key_file, "w") as f:
            f.write(API_KEY + "\n")
        os.chmod(key_file, 0o644)  # read by uid 10001 in the container
        # As deployment.yaml: non-root, read-only root with a /tmp, no capabilities, the model
        # volume read-only; the key from a mounted secret file. `serve --parallel 2` replaces the
        # image's CMD, so host, port and model must come from the image's ENV defaults.
        cls.port = free_port()
        common = [*cls.engine.run_flags, "-d", "--name", cls.name, "--user", "10001:10001",
                  "--read-only", "--tmpfs", "/tmp", "--cap-drop", "ALL",
                  "--security-opt", "no-new-privileges",
                  "-v", f"{os.path.dirname(model)}:/models:ro",
                  "-v", f"{key_file}:/run/secrets/strata-api-key:ro",
                  "-e", f"STRATA_MODEL=/models/{os.path.basename(model)}",
                  "-e", "STRATA_API_KEY_FILE=/run/secrets/strata-api-key"]
        published = cls.engine("run", *common, "-p", f"127.0.0.1:{cls.port}:8080",
                               cls.tag, "serve", "--parallel", "2", check=False)
        if published.returncode != 0:
            # No port publishing (no bridge networking here): share the host's network instead.
            cls.engine("rm", "-f", cls.name, check=False)
            cls.engine("run", *common, "--network", "host", "-e", f"STRATA_PORT={cls.port}",
                       cls.tag, "serve", "--parallel", "2")
        cls.url = f"http://127.0.0.1:{cls.port}"
        cls.wait_healthy(timeout_s=60)

    @classmethod
    def wait_healthy(cls, timeout_s):
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            try:
                if http(cls.url + "/health", timeout_s=2)[0] == 200:
                    return
            except OSError:
                pass
            time.sleep(0.2)
        logs = cls.engine("logs", cls.name, check=False)
        raise AssertionError(f"/health never answered 200:\n{logs.stdout[-2000:]}{logs.stderr[-2000:]}")

    def test_1_image_config_matches_the_deployment(self):
        c = self.config
        self.assertEqual(c["User"], "10001:10001")
        self.assertIn("8080/tcp", c["ExposedPorts"])
        self.assertEqual(c["Entrypoint"], ["strata"])
        self.assertEqual(c["Cmd"], ["serve"])
        env = dict(e.split("=", 1) for e in c["Env"])
        self.assertEqual(env["STRATA_HOST"], "0.0.0.0")
        self.assertEqual(env["STRATA_PORT"], "8080")
        self.assertEqual(env["STRATA_MODEL"], "/models/model.gguf")
        labels = c["Labels"]
        with open(os.path.join(REPO, "CMakeLists.txt")) as f:
            version = re.search(r"^project\(strata VERSION ([0-9.]+)", f.read(), re.M).group(1)
        self.assertEqual(labels["org.opencontainers.image.version"], version)
        for name in ("source", "licenses", "revision"):
            self.assertTrue(labels.get(f"org.opencontainers.image.{name}"), name)
        self.assertIn("/health", " ".join(c["Healthcheck"]["Test"]))

    def test_2_health_chat_and_metrics(self):
        auth = {"Authorization": f"Bearer {API_KEY}"}
        self.assertEqual(http(self.url + "/health")[0], 200)
        chat = {"model": "any", "messages": [{"role": "user", "content": "Once upon a time"}],
                "max_tokens": 16, "temperature": 0}
        status, _, body = http(self.url + "/v1/chat/completions", "POST", chat)
        self.assertEqual(status, 401, "the key from --api-key-file was not required")
        status, _, body = http(self.url + "/v1/chat/completions", "POST", chat, auth)
        self.assertEqual(status, 200, body)
        answer = json.loads(body)
        self.assertEqual(answer["object"], "chat.completion")
        self.assertGreater(answer["usage"]["completion_tokens"], 0)
        self.assertTrue(answer["choices"][0]["message"]["content"])
        status, headers, text = http(self.url + "/metrics", headers={**auth, "Accept": "text/plain"})
        self.assertEqual(status, 200)
        self.assertIn("text/plain", headers["Content-Type"])
        self.assertIn("vllm:request_success_total", text)

    def test_3_the_images_healthcheck_passes_inside(self):
        test = self.config["Healthcheck"]["Test"]
        self.assertEqual(test[0], "CMD-SHELL")
        check = self.engine("exec", self.name, "/bin/sh", "-c", test[1], check=False)
        self.assertEqual(check.returncode, 0, check.stderr)

    def test_4_sigterm_drains_and_exits_cleanly(self):
        started = time.monotonic()
        self.engine("kill", "--signal", "TERM", self.name)
        status = self.engine("wait", self.name, timeout_s=DRAIN_TIMEOUT_S + 30).stdout.strip()
        elapsed_s = time.monotonic() - started
        logs = self.engine("logs", self.name, check=False)
        self.assertEqual(status.splitlines()[-1], "0", logs.stderr[-2000:])
        self.assertLess(elapsed_s, DRAIN_TIMEOUT_S, "exit took longer than the drain timeout")


if __name__ == "__main__":
    probe_started = time.monotonic()
    ContainerImage.engine = Engine()
    print(f"{ContainerImage.engine.name} {' '.join(ContainerImage.engine.run_flags)}: base image and probes "
          f"{time.monotonic() - probe_started:.1f} s", flush=True)  # exits 77 with the reason when containers cannot run here
    unittest.main(verbosity=2)
