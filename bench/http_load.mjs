// HTTP load generator for any OpenAI-compatible completions server (strata serve,
// llama.cpp's llama-server, vLLM), so engines can be compared side by side through the same
// client: for each concurrency level it sends that many streaming /v1/completions requests
// at once, each asking for exactly --max-new tokens (ignore_eos), and prints total tok/s,
// per-request tok/s and time to first token.
//
//   node bench/http_load.mjs --url http://127.0.0.1:8080 --concurrency 1,2,4,8 [--max-new 64]
//        [--api-key KEY] [--json]
import { parseArgs } from 'node:util';

const { values: opt } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://127.0.0.1:8080' },
    concurrency: { type: 'string', default: '1,2,4,8' },
    'max-new': { type: 'string', default: '64' },
    'api-key': { type: 'string', default: '' },
    json: { type: 'boolean', default: false },
  },
});
const maxNew = Number(opt['max-new']);
const levels = opt.concurrency.split(',').map(Number);
if (!Number.isInteger(maxNew) || maxNew < 1 || levels.some((n) => !Number.isInteger(n) || n < 1)) {
  console.error('http_load: --max-new and --concurrency must be positive integers');
  process.exit(2);
}

// One streaming request; resolves to its timings. Each request has its own prompt, opening
// with this run's id, so no server can answer it from another request's or run's cache.
const runId = `${process.pid}-${Date.now()}`;
async function one(i, level) {
  const start = performance.now();
  const res = await fetch(`${opt.url}/v1/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(opt['api-key'] ? { authorization: `Bearer ${opt['api-key']}` } : {}) },
    body: JSON.stringify({
      model: 'any', prompt: `Run ${runId}, request ${level}-${i}: once upon a time, in a town by the sea,`,
      max_tokens: maxNew, temperature: 0, ignore_eos: true, stream: true,
    }),
  });
  if (!res.ok) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
  let first = null, buffer = '';
  const decoder = new TextDecoder();
  for await (const chunk of res.body) {
    buffer += decoder.decode(chunk, { stream: true });
    // The first event marks the first token (its text may be empty: a partial UTF-8 character).
    if (first === null && buffer.includes('data: {')) first = performance.now();
  }
  const end = performance.now();
  return { ttft_s: ((first ?? end) - start) / 1000, total_s: (end - start) / 1000 };
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor((s.length - 1) / 2)]; };

const rows = [];
for (const n of levels) {
  const start = performance.now();
  const runs = await Promise.all(Array.from({ length: n }, (_, i) => one(i, n)));
  const wall_s = (performance.now() - start) / 1000;
  rows.push({
    concurrency: n,
    total_tok_s: (n * maxNew) / wall_s,
    per_request_tok_s: median(runs.map((r) => maxNew / r.total_s)),
    ttft_median_s: median(runs.map((r) => r.ttft_s)),
    ttft_max_s: Math.max(...runs.map((r) => r.ttft_s)),
  });
}
if (opt.json) {
  console.log(JSON.stringify({ url: opt.url, max_new: maxNew, runs: rows }));
} else {
  console.log(`${opt.url}, ${maxNew} new tokens per request`);
  console.log('concurrency  total tok/s  per-request tok/s  TTFT median  TTFT max');
  for (const r of rows) {
    console.log(`${String(r.concurrency).padStart(11)}  ${r.total_tok_s.toFixed(1).padStart(11)}  ` +
      `${r.per_request_tok_s.toFixed(1).padStart(17)}  ${r.ttft_median_s.toFixed(3).padStart(10)}s  ${r.ttft_max_s.toFixed(3).padStart(7)}s`);
  }
}
