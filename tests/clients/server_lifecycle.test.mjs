// `strata serve` as a process: queue limits (429), client disconnects, SIGTERM drain, keys
// from the environment, /metrics and the web page, and flag errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startServer, runStrata, API_KEY } from './lib/strata_server.mjs';

const auth = { Authorization: `Bearer ${API_KEY}` };
const longRequest = {
  model: 'x', prompt: 'Once upon a time', max_tokens: 480, temperature: 0, ignore_eos: true,
};

async function slots(server) {
  const res = await fetch(`${server.url}/slots`, { headers: auth });
  assert.equal(res.status, 200);
  return (await res.json()).slots;
}

async function waitForIdle(server) {
  for (let i = 0; i < 400; i++) {
    if ((await slots(server)).every((s) => s.state === 'idle')) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

test('a full queue answers 429 RateLimitError with Retry-After', async () => {
  const server = await startServer({ args: ['--parallel', '1', '--max-queue', '1'] });
  try {
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => client.completions.create({ ...longRequest, max_tokens: 200 })));
    const limited = results.filter((r) => r.status === 'rejected');
    assert.ok(results.some((r) => r.status === 'fulfilled'), 'no request succeeded');
    assert.ok(limited.length > 0, 'no request was refused');
    for (const r of limited) {
      assert.ok(r.reason instanceof OpenAI.RateLimitError, String(r.reason));
      assert.equal(r.reason.status, 429);
      assert.equal(r.reason.headers.get('retry-after'), '1');
    }
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('a client that disconnects mid-stream frees its slot', async () => {
  const server = await startServer({ args: ['--parallel', '1'] });
  try {
    const controller = new AbortController();
    const res = await fetch(`${server.url}/v1/completions`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ ...longRequest, stream: true }),
      signal: controller.signal,
    });
    const reader = res.body.getReader();
    await reader.read();  // the first chunk: the request is running
    controller.abort();
    assert.ok(await waitForIdle(server), 'the slot stayed busy after the client left');
    // The server still answers, and the freed slot takes new work.
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: API_KEY, maxRetries: 0 });
    const next = await client.completions.create({ ...longRequest, max_tokens: 5 });
    assert.equal(next.usage.completion_tokens, 5);
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('SIGTERM lets a running stream finish, then exits 0', async () => {
  const server = await startServer({ args: ['--drain-timeout', '60'] });
  const res = await fetch(`${server.url}/v1/completions`, {
    method: 'POST',
    headers: { ...auth, 'Content-Type': 'application/json', Connection: 'close' },
    body: JSON.stringify({ ...longRequest, max_tokens: 200, stream: true, stream_options: { include_usage: true } }),
  });
  assert.equal(res.status, 200);
  const reader = res.body.getReader();
  let body = new TextDecoder().decode((await reader.read()).value);
  server.child.kill('SIGTERM');
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    body += new TextDecoder().decode(value);
  }
  assert.match(body, /data: \[DONE\]/);
  const usage = body.split('\n').filter((l) => l.startsWith('data: {'))
    .map((l) => JSON.parse(l.slice(6))).find((c) => c.usage)?.usage;
  assert.equal(usage.completion_tokens, 200);
  const { code } = await server.exited;
  assert.equal(code, 0);
  await assert.rejects(fetch(`${server.url}/health`));
});

test('keys come from STRATA_API_KEY too; /health never needs one', async () => {
  const server = await startServer({ apiKey: null, env: { STRATA_API_KEY: 'from-env' } });
  try {
    assert.equal((await fetch(`${server.url}/health`)).status, 200);
    assert.equal((await fetch(`${server.url}/v1/models`)).status, 401);
    const ok = await fetch(`${server.url}/v1/models`, { headers: { 'x-api-key': 'from-env' } });
    assert.equal(ok.status, 200);
  } finally {
    assert.equal((await server.stop()).code, 0);
  }
});

test('/metrics needs the key unless --metrics-no-auth; the web page is public', async () => {
  const locked = await startServer();
  try {
    assert.equal((await fetch(`${locked.url}/metrics`)).status, 401);
    // Prometheus asks for text/plain; content negotiation belongs to the metrics module.
    const page = await fetch(`${locked.url}/metrics`, { headers: { ...auth, Accept: 'text/plain' } });
    assert.equal(page.status, 200);
    assert.match(await page.text(), /http_requests_total\{[^}]*handler="\/health"/);
    const home = await fetch(`${locked.url}/`);
    assert.equal(home.status, 200);
    assert.match(home.headers.get('content-type'), /text\/html/);
  } finally {
    assert.equal((await locked.stop()).code, 0);
  }
  const open = await startServer({ args: ['--metrics-no-auth'] });
  try {
    assert.equal((await fetch(`${open.url}/metrics`)).status, 200);
  } finally {
    assert.equal((await open.stop()).code, 0);
  }
});

test('flags out of range are refused with a message naming them', async () => {
  const port = await runStrata(['serve', '--port', '70000']);
  assert.notEqual(port.code, 0);
  assert.match(port.stderr + port.stdout, /--port/);
  const body = await runStrata(['serve', '--max-body', 'lots']);
  assert.notEqual(body.code, 0);
  assert.match(body.stderr, /--max-body/);
  const parallel = await runStrata(['serve', '--parallel', '0']);
  assert.notEqual(parallel.code, 0);
  assert.match(parallel.stderr + parallel.stdout, /--parallel/);
});
