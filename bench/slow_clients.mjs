// Slow-client bench for an HTTP server (strata serve): opens --slow sockets that each send a
// request head one line per --line-interval-s and never finish it (slow loris), plus --idle
// sockets that connect and send nothing, then times --normal ordinary requests (each on a new
// connection) made while those sockets are open, and prints latency figures and what the
// server did with the slow sockets (answered 408 / 503, closed, still open).
// Loopback only, bounded in count (<= 2000 sockets) and time (--duration-s, <= 120).
//
//   node bench/slow_clients.mjs --url http://127.0.0.1:8080 [--slow 50] [--idle 0]
//        [--normal 40] [--line-interval-s 1] [--duration-s 20] [--path /health] [--json]
import net from 'node:net';
import http from 'node:http';
import { parseArgs } from 'node:util';

const { values: opt } = parseArgs({
  options: {
    url: { type: 'string', default: 'http://127.0.0.1:8080' },
    slow: { type: 'string', default: '50' },
    idle: { type: 'string', default: '0' },
    normal: { type: 'string', default: '40' },
    'line-interval-s': { type: 'string', default: '1' },
    'duration-s': { type: 'string', default: '20' },
    path: { type: 'string', default: '/health' },
    'api-key': { type: 'string', default: '' },
    json: { type: 'boolean', default: false },
  },
});
const url = new URL(opt.url);
const nSlow = Number(opt.slow), nIdle = Number(opt.idle), nNormal = Number(opt.normal);
const intervalS = Number(opt['line-interval-s']), durationS = Number(opt['duration-s']);
const loopback = ['127.0.0.1', 'localhost', '::1', '[::1]'].includes(url.hostname);
if (!loopback || ![nSlow, nIdle, nNormal].every((n) => Number.isInteger(n) && n >= 0) ||
    nSlow + nIdle > 2000 || nNormal > 10000 || !(intervalS > 0) || !(durationS > 0 && durationS <= 120)) {
  console.error('slow_clients: loopback --url only; --slow + --idle <= 2000; --normal <= 10000; ' +
                '--line-interval-s > 0; --duration-s in (0, 120]');
  process.exit(2);
}
const port = Number(url.port || 80);
const started = performance.now();
const elapsedS = () => (performance.now() - started) / 1000;

// A socket that trickles a request head (slow) or sends nothing (idle); records how it ended.
function hostile(i, slow) {
  const state = { answer: null, closed_at_s: null };
  const sock = net.connect(port, url.hostname);
  let timer = null, line = 0;
  sock.on('connect', () => {
    if (!slow) return;
    sock.write(`GET ${opt.path} HTTP/1.1\r\n`);
    timer = setInterval(() => sock.write(`X-Slow-${i}-${line++}: x\r\n`), intervalS * 1000);
  });
  sock.on('data', (d) => { state.answer ??= Number(String(d).slice(9, 12)); });
  const end = () => { clearInterval(timer); state.closed_at_s ??= elapsedS(); };
  sock.on('close', end);
  sock.on('error', end);
  state.destroy = () => { clearInterval(timer); sock.destroy(); };
  return state;
}

// One ordinary request on a fresh connection; resolves to its latency and status.
function normal() {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const headers = opt['api-key'] ? { authorization: `Bearer ${opt['api-key']}` } : {};
    const req = http.request({ host: url.hostname, port, path: opt.path, agent: false, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode, s: (performance.now() - t0) / 1000 }));
    });
    req.setTimeout(durationS * 1000, () => req.destroy(new Error('timeout')));
    req.on('error', () => resolve({ status: 0, s: (performance.now() - t0) / 1000 }));
    req.end();
  });
}

const sleep = (s) => new Promise((r) => setTimeout(r, s * 1000));
const pct = (xs, p) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))]; };

const sockets = [...Array.from({ length: nSlow }, (_, i) => hostile(i, true)),
                 ...Array.from({ length: nIdle }, (_, i) => hostile(i, false))];
await sleep(0.5);  // let every hostile socket connect and start
const results = [];
const gapS = Math.max(0.01, (durationS * 0.8 - 0.5) / Math.max(1, nNormal));
for (let i = 0; i < nNormal && elapsedS() < durationS; ++i) {
  results.push(await normal());
  await sleep(gapS);
}
const stillOpen = sockets.filter((s) => s.closed_at_s === null).length;
for (const s of sockets) s.destroy();

const lat = results.map((r) => r.s);
const answers = {};
for (const s of sockets) if (s.answer) answers[s.answer] = (answers[s.answer] ?? 0) + 1;
const closedAt = sockets.map((s) => s.closed_at_s).filter((t) => t !== null);
const summary = {
  slow: nSlow, idle: nIdle, normal_sent: results.length,
  normal_ok: results.filter((r) => r.status === 200).length,
  normal_statuses: Object.fromEntries([...new Set(results.map((r) => r.status))].map((s) => [s, results.filter((r) => r.status === s).length])),
  latency_p50_ms: +(1000 * pct(lat, 0.5)).toFixed(1),
  latency_p90_ms: +(1000 * pct(lat, 0.9)).toFixed(1),
  latency_max_ms: +(1000 * Math.max(...lat)).toFixed(1),
  hostile_answers: answers,
  hostile_closed_by_server: closedAt.length,
  hostile_first_close_s: closedAt.length ? +Math.min(...closedAt).toFixed(2) : null,
  hostile_still_open: stillOpen,
  wall_s: +elapsedS().toFixed(1),
};
if (opt.json) console.log(JSON.stringify(summary));
else for (const [k, v] of Object.entries(summary)) console.log(`${k.padEnd(26)} ${typeof v === 'object' ? JSON.stringify(v) : v}`);
