// Drives the web page in headless Chromium against a running `strata serve`: sends a chat
// message and sees the answer stream in, stops a long answer, sees the Monitor tab update
// from /metrics, and saves a screenshot of the Monitor tab; then serves a tiny
// mixture-of-experts model and sees the Monitor's expert-load heatmap (absent for the dense one).
//
// Environment: STRATA_BIN, STRATA_MODEL, STRATA_MOE_MODEL, STRATA_CLIENTS_DIR (tests/clients,
// for playwright-core), STRATA_SCREENSHOT (where to write the PNG; the MoE page goes beside it
// as *-moe.png). Chromium: Debian's /usr/bin/chromium.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const clientsDir = process.env.STRATA_CLIENTS_DIR || path.resolve(here, '../../tests/clients');
const { chromium } = createRequire(path.join(clientsDir, 'package.json'))('playwright-core');
const strataBin = process.env.STRATA_BIN;
const model = process.env.STRATA_MODEL || path.resolve(here, '../../../shared/models/stories260K.gguf');
const screenshot = process.env.STRATA_SCREENSHOT || path.join(os.tmpdir(), 'strata-monitor.png');
const moeModel = process.env.STRATA_MOE_MODEL || path.resolve(here, '../../../shared/models/moe/tiny-qwen3moe.gguf');
const moeScreenshot = screenshot.replace(/\.png$/, '') + '-moe.png';
const API_KEY = 'ui-test-key';

let server, base, context, page;
const outsideRequests = [];

// Resolves to { proc, url } once the server prints its listening line.
function startServer(modelPath, args) {
  return new Promise((resolve, reject) => {
    assert.ok(strataBin && fs.existsSync(strataBin), `STRATA_BIN=${strataBin}`);
    const proc = spawn(strataBin, ['serve', '--model', modelPath, '--host', '127.0.0.1', '--port', '0',
      '--api-key', API_KEY, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '', url = null;
    const timer = setTimeout(() => reject(new Error('no listening line:\n' + out + err)), 30000);
    proc.stderr.on('data', (d) => { err = (err + d).slice(-4000); });
    proc.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on http:\/\/[^:]+:(\d+)/);
      if (m && !url) {
        clearTimeout(timer);
        url = `http://127.0.0.1:${m[1]}`;
        resolve({ proc, url });
      }
    });
    proc.on('exit', (code) => reject(new Error(`strata serve exited ${code}:\n${err}`)));
  });
}

async function stopServer(proc) {
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
}

async function waitHealthy(url = base) {
  for (let i = 0; i < 600; i++) {
    try {
      if ((await fetch(url + '/health')).status === 200) return;
    } catch (e) { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('server never healthy');
}

async function metricsJson(url = base) {
  const res = await fetch(url + '/metrics', {
    headers: { Accept: 'application/json', Authorization: 'Bearer ' + API_KEY } });
  assert.equal(res.status, 200);
  return res.json();
}

before(async () => {
  ({ proc: server, url: base } = await startServer(model, ['--parallel', '4', '--ctx', '32768', '--stages', '2']));
  await waitHealthy();
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 900 },
  });
  page = context.pages()[0] || await context.newPage();
  page.on('request', (r) => { if (!r.url().startsWith(base) && !r.url().startsWith('data:')) outsideRequests.push(r.url()); });
  await page.goto(base + '/');
});

after(async () => {
  if (context) await context.close();
  if (server) await stopServer(server);
});

test('the page loads offline from the server alone', async () => {
  assert.equal(await page.title(), 'Strata');
  assert.ok(await page.isVisible('#tab-chat'));
  assert.deepEqual(outsideRequests, []);
});

test('the API key is kept in localStorage', async () => {
  await page.fill('#api-key', API_KEY);
  await page.dispatchEvent('#api-key', 'change');
  await page.reload();
  assert.equal(await page.inputValue('#api-key'), API_KEY);
});

test('a chat message streams its answer in', async () => {
  await page.fill('#max-tokens', '48');
  await page.fill('#temperature', '0');
  // Count how often the answer's text changes: a streamed answer grows in several steps.
  await page.evaluate(() => {
    window.answerUpdates = 0;
    new MutationObserver(() => {
      const a = document.querySelector('.msg.assistant:last-child');
      if (a && a.textContent) window.answerUpdates++;
    }).observe(document.getElementById('messages'), { subtree: true, childList: true, characterData: true });
  });
  await page.fill('#chat-input', 'Once upon a time');
  await page.press('#chat-input', 'Enter');
  await page.waitForFunction(() => /finished|done/.test(document.getElementById('chat-status').textContent),
    null, { timeout: 30000 });
  const answer = await page.textContent('.msg.assistant');
  assert.ok(answer.trim().length > 0, 'the answer has text');
  assert.ok(!(await page.getAttribute('.msg.assistant', 'class')).includes('error'), answer);
  assert.ok(await page.evaluate(() => window.answerUpdates) >= 2, 'the answer arrived in pieces');
  assert.equal(await page.textContent('.msg.user'), 'Once upon a time');
});

test('the stop button aborts a long answer', async () => {
  const before = (await metricsJson()).totals.finished.abort;
  // The tiny model soon says end-of-story; ask the server to go on past it, so the answer is
  // still streaming when Stop is pressed. It decodes thousands of tokens a second, so the
  // answer must be long enough (the server runs with a 32768-token context) to outlast the click.
  await page.route('**/v1/chat/completions', (route) => {
    const body = JSON.parse(route.request().postData());
    route.continue({ postData: JSON.stringify({ ...body, ignore_eos: true }) });
  });
  await page.click('#clear');
  assert.equal(await page.locator('.msg').count(), 0);
  await page.fill('#max-tokens', '30000');
  await page.fill('#chat-input', 'Tell me a very long story about a dragon');
  await page.press('#chat-input', 'Enter');
  await page.waitForFunction(() => {
    const a = document.querySelector('.msg.assistant.streaming');
    return a && a.textContent.length > 0;
  }, null, { timeout: 30000 });
  await page.click('#stop');
  await page.waitForFunction(() => document.getElementById('chat-status').textContent === 'stopped');
  await page.unroute('**/v1/chat/completions');
  assert.ok(await page.isEnabled('#send'));
  let aborts = before;
  for (let i = 0; i < 100 && aborts === before; i++) {
    await new Promise((r) => setTimeout(r, 100));
    aborts = (await metricsJson()).totals.finished.abort;
  }
  assert.equal(aborts, before + 1, 'the server counted the abort');
});

test('the Monitor tab shows the engine and the requests, updating every second', async () => {
  await page.click('#tab-monitor');
  assert.ok(await page.isVisible('#monitor'));
  const polls = Number(await page.evaluate(() => document.body.dataset.polls || 0));
  await page.waitForFunction((p) => Number(document.body.dataset.polls || 0) >= p + 2, polls,
    { timeout: 10000 });
  const m = await metricsJson();
  assert.equal(await page.textContent('#model-name'), m.engine.model);
  assert.match(await page.textContent('#engine-state'), /^(idle|reading|generating)$/);
  assert.equal(await page.locator('#slots .slot').count(), m.engine.parallel);
  assert.equal(await page.locator('#stages .stage').count(), m.stages.length);
  // Two stages and (auto) two batch groups, joined into one window per step.
  assert.equal(m.engine.stages, 2);
  assert.equal(m.engine.joined_groups, true);
  assert.match(await page.textContent('#engine-info'), /2 × 2, joined/);
  // Started without --config: the page says the flags alone set the engine.
  assert.match(await page.textContent('#engine-info'), /command-line flags/);
  // Started without --spec: the drafting card says drafting is off.
  assert.match(await page.textContent('#spec-info'), /drafting\s*off/);
  assert.equal(await page.locator('#group-busy .stage').count(), m.groups.length);
  assert.match(await page.textContent('#group-busy'), /group 0 · /);
  const rows = await page.locator('#requests tbody tr').count();
  assert.ok(rows >= 2, `requests table has ${rows} rows`);
  assert.match(await page.textContent('#requests tbody tr:first-child td:nth-child(2)'), /abort/);
  const points = await page.getAttribute('#spark-tok polyline', 'points');
  assert.ok(points && points.split(' ').length >= 1, 'tok/s sparkline drawn');
  assert.ok(await page.locator('#kv-gauge path').count() >= 1, 'K/V gauge drawn');
  assert.match(await page.textContent('#cache-info'), /prefix hit rate/);
  assert.match(await page.textContent('#monitor-status'), /updated/);
  // A dense model has no experts: no "moe" figures and no heatmap.
  assert.equal(m.moe, undefined);
  assert.ok(!(await page.isVisible('#moe-card')), 'no expert-load card for a dense model');
});

test('show all asks for every kept request', async () => {
  const asked = page.waitForRequest((r) => r.url().endsWith('/metrics?requests=all'), { timeout: 5000 });
  await page.check('#show-all');
  const req = await asked;
  assert.equal(req.headers()['authorization'], 'Bearer ' + API_KEY);
  await page.waitForTimeout(1200);
  await page.screenshot({ path: screenshot, fullPage: true });
  assert.ok(fs.statSync(screenshot).size > 10000, 'screenshot written to ' + screenshot);
});

test('the Monitor shows an expert-load heatmap for a mixture-of-experts model', async () => {
  const { proc, url } = await startServer(moeModel, ['--parallel', '2', '--ctx', '256', '--spec', 'ngram']);
  const moePage = await context.newPage();
  try {
    await waitHealthy(url);
    const res = await fetch(url + '/v1/completions', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + API_KEY },
      body: JSON.stringify({ prompt: 'Once upon a time', max_tokens: 16, temperature: 0, ignore_eos: true }),
    });
    assert.equal(res.status, 200, await res.text());
    const m = await metricsJson(url);
    assert.equal(m.moe.n_expert, 8);
    assert.equal(m.moe.tokens.length, m.moe.n_layer);
    const routed = m.moe.tokens.flat().reduce((a, b) => a + b, 0);
    assert.equal(routed, m.moe.routed_tokens, 'the last minute holds every routing so far');
    assert.equal(routed % (m.moe.n_layer * m.moe.n_expert_used), 0);
    // Another port is another origin: its localStorage has no key yet.
    await moePage.addInitScript((key) => localStorage.setItem('strata.apiKey', key), API_KEY);
    await moePage.goto(url + '/#monitor');
    await moePage.waitForFunction(() => Number(document.body.dataset.polls || 0) >= 1, null, { timeout: 10000 });
    assert.ok(await moePage.isVisible('#moe-card'), 'expert-load card shown');
    assert.equal(await moePage.getAttribute('#moe-heatmap', 'data-layers'), String(m.moe.n_layer));
    assert.equal(await moePage.getAttribute('#moe-heatmap', 'data-experts'), '8');
    assert.ok(Number(await moePage.getAttribute('#moe-heatmap', 'data-max')) > 0, 'some cell has tokens');
    assert.match(await moePage.textContent('#moe-info'), /imbalance/);
    // Started with --spec ngram: the drafting card shows the live spec_decode counters.
    const spec = m.live.spec;
    assert.ok(spec.max_draft_tokens > 0, 'drafting is on');
    assert.match(await moePage.textContent('#spec-info'),
      new RegExp(`accepted / drafted\\s*${spec.accepted_tokens} / ${spec.draft_tokens}`));
    await moePage.screenshot({ path: moeScreenshot, fullPage: true });
  } finally {
    await moePage.close();
    await stopServer(proc);
  }
});
