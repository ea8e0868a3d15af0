// Soak test for `strata serve`: --streams concurrent clients, each sending streamed chat
// completions back to back for --duration-s, with some requests cancelled mid-stream and some
// dropped right after sending (client disconnects). It checks what a long busy period must not
// break: every accepted request ends with [DONE] unless the client left, a full queue answers 429
// with Retry-After, no slot or queue entry outlives its request (/v1/status goes back to idle),
// and the server's RSS stays bounded (--pid, read from /proc). Prints the figures.
// Loopback only; bounded in streams (<= 2048) and time (--duration-s <= 600).
//
//   strata serve -m stories260K.gguf --parallel 8 --max-queue 64 --port 8080 &
//   node bench/soak.mjs --url http://127.0.0.1:8080 --streams 512 --duration-s 60 --pid $!
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values: opt } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://127.0.0.1:8080' },
    streams: { type: 'string', default: '512' },
    'duration-s': { type: 'string', default: '60' },
    'max-tokens': { type: 'string', default: '24' },
    'cancel-frac': { type: 'string', default: '0.1' },
    'disconnect-frac': { type: 'string', default: '0.1' },
    'api-key': { type: 'string', default: '' },
    pid: { type: 'string', default: '' },
    json: { type: 'boolean', default: false },
  },
});
const url = new URL(opt.url);
const nStreams = Number(opt.streams), durationS = Number(opt['duration-s']);
const maxTokens = Number(opt['max-tokens']);
const cancelFrac = Number(opt['cancel-frac']), disconnectFrac = Number(opt['disconnect-frac']);
if (!['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname) || !(nStreams >= 1 && nStreams <= 2048) ||
    !(durationS > 0 && durationS <= 600) || !(maxTokens >= 1) || !(cancelFrac + disconnectFrac <= 1)) {
  console.error('soak: loopback --url only; --streams in [1, 2048]; --duration-s in (0, 600]; fractions sum <= 1');
  process.exit(2);
}
const headers = { 'content-type': 'application/json',
                  ...(opt['api-key'] ? { authorization: `Bearer ${opt['api-key']}` } : {}) };
const rssMiB = () => {
  if (!opt.pid) return null;
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${opt.pid}/status`, 'utf8'));
  return m ? Math.round(Number(m[1]) / 1024) : null;
};
const status = async () => (await fetch(`${opt.url}/v1/status`, { headers })).json();
const sleep = (s) => new Promise((r) => setTimeout(r, s * 1000));

const counts = { completed: 0, cancelled: 0, disconnected: 0, rejected_429: 0, missing_retry_after: 0,
                 unfinished: 0, other_status: {}, network_errors: 0 };
let next = 0;
// One request; mode decides whether the client stays, cancels after the first event, or leaves.
async function one(mode) {
  const abort = new AbortController();
  const body = JSON.stringify({ model: 'any', stream: true, max_tokens: 1 + (next++ % maxTokens),
                                messages: [{ role: 'user', content: `Tell story ${next}` }] });
  const pending = fetch(`${opt.url}/v1/chat/completions`, { method: 'POST', headers, body, signal: abort.signal });
  if (mode === 'disconnect') {
    setTimeout(() => abort.abort(), 1);
    try { await pending; } catch { /* expected */ }
    counts.disconnected++;
    return;
  }
  let res;
  try { res = await pending; } catch { counts.network_errors++; return; }
  if (res.status === 429) {
    counts.rejected_429++;
    if (!res.headers.get('retry-after')) counts.missing_retry_after++;
    await res.text();
    await sleep(0.05 + Math.random() * 0.2);
    return;
  }
  if (res.status !== 200) {
    counts.other_status[res.status] = (counts.other_status[res.status] ?? 0) + 1;
    await res.text();
    return;
  }
  let text = '';
  try {
    for await (const chunk of res.body) {
      text += Buffer.from(chunk).toString();
      if (mode === 'cancel' && text.includes('data: {')) { abort.abort(); counts.cancelled++; return; }
    }
  } catch { if (mode === 'cancel') { counts.cancelled++; return; } counts.network_errors++; return; }
  if (text.includes('data: [DONE]')) counts.completed++; else counts.unfinished++;
}

const rss = { start: rssMiB(), max: rssMiB() };
const peak = { running: 0, waiting: 0 };
const deadline = performance.now() + durationS * 1000;
let sampling = true;
const sampler = (async () => {
  while (sampling) {
    try {
      const s = await status();
      peak.running = Math.max(peak.running, s.load.running);
      peak.waiting = Math.max(peak.waiting, s.load.waiting);
    } catch { /* the server is busy; try again */ }
    const r = rssMiB();
    if (r !== null) rss.max = Math.max(rss.max, r);
    await sleep(0.5);
  }
})();
await Promise.all(Array.from({ length: nStreams }, async (_, w) => {
  for (let i = 0; performance.now() < deadline; ++i) {
    const u = ((w * 7919 + i * 104729) % 1000) / 1000;  // spread modes evenly without randomness
    await one(u < disconnectFrac ? 'disconnect' : u < disconnectFrac + cancelFrac ? 'cancel' : 'stay');
  }
}));
// Afterwards nothing may stay busy: wait (bounded) for every slot and queue entry to clear.
let idle = null;
for (let t = 0; t < 60; ++t) {
  const s = await status();
  idle = s;
  if (s.load.running === 0 && s.load.waiting === 0) break;
  await sleep(0.5);
}
sampling = false;
await sampler;
rss.end = rssMiB();
const summary = { streams: nStreams, duration_s: durationS, ...counts,
                  peak_running: peak.running, peak_waiting: peak.waiting,
                  end_running: idle.load.running, end_waiting: idle.load.waiting,
                  end_kv_blocks_used: idle.load.kv.blocks_used,
                  rss_mib_start: rss.start, rss_mib_max: rss.max, rss_mib_end: rss.end };
const ok = summary.end_running === 0 && summary.end_waiting === 0 && counts.unfinished === 0 &&
           counts.missing_retry_after === 0;
if (opt.json) console.log(JSON.stringify({ ...summary, ok }));
else for (const [k, v] of Object.entries({ ...summary, ok })) console.log(`${k.padEnd(22)} ${typeof v === 'object' ? JSON.stringify(v) : v}`);
process.exit(ok ? 0 : 1);
