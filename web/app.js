// Strata's web page: a Chat tab that streams from /v1/chat/completions and a Monitor tab that
// polls GET /metrics (JSON) once a second. Plain browser JavaScript; no network beyond this server.
'use strict';

const KEY_STORAGE = 'strata.apiKey';
const POLL_MS = 1000;
const $ = (id) => document.getElementById(id);

const state = {
  messages: [],        // the conversation sent with each request
  controller: null,    // AbortController of the stream in flight
  model: '',
  showAll: false,
  lastStages: null,    // {t, busy[]} from the previous poll, for stage busy shares
  lastGroups: null,    // the same for group busy shares
  moe: null,           // the last expert-load figures, for the heatmap's hover text
  polls: 0,
};

// ---- shared ------------------------------------------------------------------------------

function authHeaders(extra) {
  const h = Object.assign({}, extra || {});
  const key = $('api-key').value.trim();
  if (key) h['Authorization'] = 'Bearer ' + key;
  return h;
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === 'class') e.className = v; else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return e;
}

function fmt(x, digits) {
  if (x === undefined || x === null || Number.isNaN(x)) return '–';
  if (typeof x !== 'number') return String(x);
  const d = digits === undefined ? (Math.abs(x) >= 100 ? 0 : Math.abs(x) >= 10 ? 1 : 2) : digits;
  return x.toLocaleString(undefined, { minimumFractionDigits: d, maximumFractionDigits: d });
}

function pct(x) { return x === undefined || x === null ? '–' : fmt(100 * x, 1) + ' %'; }

function bytes(n) {
  if (n === undefined || n === null) return '–';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  while (n >= 1024 && i < units.length - 1) { n /= 1024; i++; }
  return fmt(n, i === 0 ? 0 : 1) + ' ' + units[i];
}

function setStatus(id, text, bad) {
  const s = $(id);
  s.textContent = text;
  s.classList.toggle('bad', !!bad);
}

async function errorText(res) {
  let msg = res.status + ' ' + res.statusText;
  try {
    const body = await res.json();
    if (body && body.error) msg += ': ' + (body.error.message || JSON.stringify(body.error));
  } catch (e) { /* not JSON: the status line says enough */ }
  if (res.status === 401) msg += ' (set the API key at the top right)';
  return msg;
}

// ---- tabs --------------------------------------------------------------------------------

function showTab(name) {
  for (const b of document.querySelectorAll('.tab')) {
    const on = b.dataset.tab === name;
    b.classList.toggle('active', on);
    b.setAttribute('aria-selected', on ? 'true' : 'false');
  }
  $('chat').classList.toggle('hidden', name !== 'chat');
  $('monitor').classList.toggle('hidden', name !== 'monitor');
  if (name === 'chat') $('chat-input').focus();
}

// ---- chat --------------------------------------------------------------------------------

function addMessage(role, text) {
  const m = el('div', { class: 'msg ' + role }, text);
  $('messages').append(m);
  $('messages').scrollTop = $('messages').scrollHeight;
  return m;
}

// Splits an SSE byte stream into events and yields each event's data payload.
async function* sseData(body) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let cut;
    while ((cut = buffer.search(/\r?\n\r?\n/)) >= 0) {
      const event = buffer.slice(0, cut);
      buffer = buffer.slice(cut).replace(/^\r?\n\r?\n/, '');
      const data = event.split(/\r?\n/).filter((l) => l.startsWith('data:'))
        .map((l) => l.slice(5).replace(/^ /, '')).join('\n');
      if (data) yield data;
    }
  }
}

async function send(text) {
  state.messages.push({ role: 'user', content: text });
  addMessage('user', text);
  const bubble = addMessage('assistant streaming', '');
  let answer = '';
  const controller = new AbortController();
  state.controller = controller;
  $('send').disabled = true;
  $('stop').disabled = false;
  setStatus('chat-status', 'generating…');
  const body = {
    model: state.model || undefined,
    messages: state.messages,
    stream: true,
    max_tokens: Number($('max-tokens').value) || 128,
    temperature: Number($('temperature').value),
  };
  let finish = '';
  // A fast model streams thousands of tokens a second; redrawing the growing answer for each
  // would keep the page too busy to notice a click on Stop. The first piece is drawn at once,
  // the rest at most once per animation frame.
  let drawn = false, frame = 0;
  const draw = () => {
    frame = 0;
    bubble.textContent = answer;
    $('messages').scrollTop = $('messages').scrollHeight;
  };
  try {
    const res = await fetch('/v1/chat/completions', {
      method: 'POST',
      headers: authHeaders({ 'Content-Type': 'application/json', 'Accept': 'text/event-stream' }),
      body: JSON.stringify(body),
      signal: controller.signal,
    });
    if (!res.ok) throw new Error(await errorText(res));
    for await (const data of sseData(res.body)) {
      // Events already received may still be queued when Stop is pressed: drop them.
      if (controller.signal.aborted) throw new DOMException('stopped', 'AbortError');
      if (data === '[DONE]') break;
      const chunk = JSON.parse(data);
      if (chunk.error) throw new Error(chunk.error.message || JSON.stringify(chunk.error));
      const choice = chunk.choices && chunk.choices[0];
      if (!choice) continue;
      if (choice.delta && choice.delta.content) {
        answer += choice.delta.content;
        if (!drawn) {
          drawn = true;
          draw();
        } else if (!frame) {
          frame = requestAnimationFrame(draw);
        }
      }
      if (choice.finish_reason) finish = choice.finish_reason;
    }
    setStatus('chat-status', finish ? 'finished: ' + finish : 'done');
  } catch (e) {
    if (e.name === 'AbortError') {
      setStatus('chat-status', 'stopped');
    } else {
      bubble.classList.add('error');
      bubble.textContent = answer + (answer ? '\n' : '') + 'Error: ' + e.message;
      setStatus('chat-status', e.message, true);
    }
  } finally {
    if (frame) cancelAnimationFrame(frame);
    if (!bubble.classList.contains('error')) draw();
    bubble.classList.remove('streaming');
    if (answer) state.messages.push({ role: 'assistant', content: answer });
    state.controller = null;
    $('send').disabled = false;
    $('stop').disabled = true;
  }
}

function setupChat() {
  $('chat-form').addEventListener('submit', (ev) => {
    ev.preventDefault();
    const text = $('chat-input').value.trim();
    if (!text || state.controller) return;
    $('chat-input').value = '';
    send(text);
  });
  $('chat-input').addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey) {
      ev.preventDefault();
      $('chat-form').requestSubmit();
    }
  });
  $('stop').addEventListener('click', () => { if (state.controller) state.controller.abort(); });
  $('clear').addEventListener('click', () => {
    if (state.controller) state.controller.abort();
    state.messages = [];
    $('messages').replaceChildren();
    setStatus('chat-status', '');
  });
}

// ---- monitor -----------------------------------------------------------------------------

function facts(id, pairs) {
  const dl = $(id);
  dl.replaceChildren();
  for (const [k, v] of pairs) dl.append(el('dt', {}, k), el('dd', {}, v));
}

// Plots points {t, v} of the last 60 s against time, so a pause in sampling shows as a gap
// in x rather than squeezing the line.
function sparkline(svg, points, now) {
  const w = 240, h = 40, span = 60;
  const shown = points.filter((p) => p.t >= now - span);
  const max = Math.max(1e-9, ...shown.map((p) => p.v));
  const pts = shown.map((p) => {
    const x = ((p.t - (now - span)) / span) * w;
    const y = h - 2 - (p.v / max) * (h - 4);
    return x.toFixed(1) + ',' + y.toFixed(1);
  }).join(' ');
  const line = document.createElementNS('http://www.w3.org/2000/svg', 'polyline');
  line.setAttribute('points', pts);
  const label = document.createElementNS('http://www.w3.org/2000/svg', 'title');
  label.textContent = 'max ' + fmt(max);
  svg.replaceChildren(label, line);
}

function gauge(svg, share) {
  const ns = 'http://www.w3.org/2000/svg';
  const r = 50, cx = 60, cy = 60;
  const arc = (from, to) => {
    const a0 = Math.PI * (1 - from), a1 = Math.PI * (1 - to);
    const p = (a) => (cx + r * Math.cos(a)).toFixed(2) + ' ' + (cy - r * Math.sin(a)).toFixed(2);
    return 'M ' + p(a0) + ' A ' + r + ' ' + r + ' 0 0 1 ' + p(a1);
  };
  const mk = (d, color) => {
    const path = document.createElementNS(ns, 'path');
    path.setAttribute('d', d);
    path.setAttribute('fill', 'none');
    path.setAttribute('stroke', color);
    path.setAttribute('stroke-width', '10');
    return path;
  };
  const v = Math.min(1, Math.max(0, share || 0));
  const color = v > 0.9 ? '#c9362c' : v > 0.7 ? '#d68a1a' : '#1f9d55';
  const text = document.createElementNS(ns, 'text');
  text.setAttribute('x', cx);
  text.setAttribute('y', cy - 4);
  text.setAttribute('text-anchor', 'middle');
  text.setAttribute('font-size', '16');
  text.textContent = share === undefined ? '–' : fmt(100 * v, 0) + '%';
  svg.replaceChildren(mk(arc(0, 1), '#e6e9ed'));
  if (v > 0) svg.append(mk(arc(0, Math.max(v, 0.005)), color));
  svg.append(text);
}

function renderEngine(m) {
  const e = m.engine, live = m.live;
  const pill = $('engine-state');
  pill.textContent = live.state;
  pill.className = 'pill ' + live.state;
  facts('engine-info', [
    ['model', e.model], ['arch', e.arch], ['version', e.version], ['context', e.context],
    ['parallel', e.parallel], ['groups × stages', e.groups + ' × ' + e.stages + (e.joined_groups ? ', joined' : '')],
    ['threads', e.threads], ['K/V', e.kv_block_tokens + '-token blocks, ' + e.kv_dtype],
    ['config', e.config && e.config.file ? e.config.file + ' (' + e.config.from_file.join(', ') + ')' : 'command-line flags'],
    ['uptime', fmt(m.time.uptime_s, 0) + ' s'],
  ]);
  $('model-name').textContent = e.model;
  if (!state.model) state.model = e.model;
}

function renderLive(m) {
  const live = m.live;
  $('live-running').textContent = live.running;
  $('live-waiting').textContent = live.waiting;
  $('live-tok-s').textContent = fmt(live.tok_s, 1);
  $('live-prefill-tok-s').textContent = fmt(live.prefill_tok_s, 1);
  const pts = m.history.points, now = m.time.wall_s;
  sparkline($('spark-tok'), pts.map((p) => ({ t: p.t, v: p.tok_s })), now);
  sparkline($('spark-prefill'), pts.map((p) => ({ t: p.t, v: p.prefill_tok_s })), now);
}

// Draws one bar per counter: the share of the time since the previous poll it was busy.
// Returns what the next poll compares against.
function busyBars(container, kind, busy, prev, now) {
  container.replaceChildren();
  busy.forEach((b, i) => {
    const dt = prev ? now - prev.t : 0;
    const share = prev && dt > 0 && prev.busy[i] !== undefined ? (b - prev.busy[i]) / dt : 0;
    const bar = el('div', { class: 'bar' }, el('div', { style: 'width:' + Math.min(100, 100 * share).toFixed(0) + '%' }));
    container.append(el('div', { class: 'stage', ['data-' + kind]: i }, kind + ' ' + i + ' · ' + pct(share), bar));
  });
  return { t: now, busy };
}

function renderSlots(m) {
  const now = m.time.uptime_s;
  state.lastStages = busyBars($('stages'), 'stage', m.stages.map((s) => s.busy_s), state.lastStages, now);
  // Groups without busy_s (an engine that reports none) draw no bar.
  const groupBusy = m.groups.filter((g) => g.busy_s !== undefined).map((g) => g.busy_s);
  state.lastGroups = busyBars($('group-busy'), 'group', groupBusy, state.lastGroups, now);

  const byGroup = new Map();
  for (const s of m.live.slots) {
    if (!byGroup.has(s.group)) byGroup.set(s.group, []);
    byGroup.get(s.group).push(s);
  }
  const slots = $('slots');
  slots.replaceChildren();
  for (const g of [...byGroup.keys()].sort((a, b) => a - b)) {
    const row = el('div', { class: 'group' }, el('span', {}, 'group ' + g));
    for (const s of byGroup.get(g)) {
      const detail = s.state === 'idle' ? 'free'
        : s.prompt_tokens + ' in · ' + s.generated + ' out · ' + fmt(s.tok_s, 1) + ' tok/s';
      row.append(el('div', { class: 'slot ' + s.state, 'data-slot': s.slot },
        el('b', {}, 'slot ' + s.slot + ' ' + s.state), detail));
    }
    slots.append(row);
  }
}

function renderCaches(m) {
  const kv = m.kv, park = m.park;
  gauge($('kv-gauge'), kv.usage);
  facts('kv-info', [
    ['used', fmt(kv.used_blocks, 0) + ' blocks'], ['cached', fmt(kv.cached_blocks, 0) + ' blocks'],
    ['free', fmt(kv.free_blocks, 0) + ' blocks'], ['capacity', fmt(kv.capacity_blocks, 0) + ' blocks'],
    ['evictions', fmt(kv.evictions, 0)],
    ...(kv.window ? [['window pool', fmt(kv.window.used_blocks, 0) + ' used · ' + fmt(kv.window.cached_blocks, 0) +
      ' cached / ' + fmt(kv.window.capacity_blocks, 0) + ' blocks (' + fmt(kv.window.tokens, 0) + '-token window)']] : []),
  ]);
  const rows = [
    ['prefix hit rate', pct(kv.prefix_hit_rate)],
    ['last request hit', m.last ? pct(m.last.hit_rate) : '–'],
    ['tokens hit / queried', fmt(kv.prefix_hit_tokens, 0) + ' / ' + fmt(kv.prefix_queried_tokens, 0)],
    ['K/V reused', bytes(kv.reused_bytes)],
  ];
  if (park.enabled) {
    rows.push(['park store', bytes(park.bytes) + ' of ' + bytes(park.capacity_bytes)],
      ['parked blocks', fmt(park.blocks, 0)], ['parks / restores', park.parks + ' / ' + park.restores]);
  } else {
    rows.push(['park store', 'off']);
  }
  facts('cache-info', rows);
}

// Acceptance of drafted tokens (vLLM's spec_decode counters), overall and per draft position.
function renderSpec(m) {
  const sp = m.live.spec;
  if (!sp || !sp.max_draft_tokens) {
    facts('spec-info', [['drafting', 'off (serve --spec ngram)']]);
    return;
  }
  const rows = [
    ['acceptance', sp.draft_tokens > 0 ? pct(sp.acceptance) : '–'],
    ['accepted / drafted', fmt(sp.accepted_tokens, 0) + ' / ' + fmt(sp.draft_tokens, 0)],
    ['drafts verified', fmt(sp.drafts, 0)],
    ['tokens per draft', sp.drafts > 0 ? fmt(sp.accepted_tokens / sp.drafts, 2) + ' accepted' : '–'],
  ];
  sp.accepted_per_pos.forEach((n, i) => {
    rows.push(['position ' + (i + 1), sp.drafts > 0 ? pct(n / sp.drafts) : '–']);
  });
  facts('spec-info', rows);
}

// Light for few tokens, deep blue for the busiest cell; a cell with none stays background.
function heatColor(share) {
  const lo = [222, 234, 252], hi = [22, 58, 140];
  const c = lo.map((l, i) => Math.round(l + (hi[i] - l) * share));
  return 'rgb(' + c.join(',') + ')';
}

// The expert-load heatmap (layers down, experts across) of a mixture-of-experts model; the
// card stays hidden for a dense one (no "moe" in the metrics).
function renderMoe(m) {
  const card = $('moe-card'), moe = m.moe;
  card.classList.toggle('hidden', !moe);
  if (!moe) return;
  const canvas = $('moe-heatmap');
  const cellH = Math.max(4, Math.min(24, Math.floor(320 / moe.n_layer)));
  const width = canvas.clientWidth || 600, height = cellH * moe.n_layer;
  const dpr = window.devicePixelRatio || 1;
  canvas.style.height = height + 'px';
  canvas.width = Math.round(width * dpr);
  canvas.height = Math.round(height * dpr);
  const ctx = canvas.getContext('2d');
  ctx.scale(dpr, dpr);
  ctx.clearRect(0, 0, width, height);
  const top = Math.max(0, ...moe.tokens.flat()), max = Math.max(1, top);
  const cellW = width / moe.n_expert;
  const gap = cellW > 6 && cellH > 6 ? 1 : 0;
  // Cells big enough to hold their count show it (small models); otherwise hover tells.
  const labels = cellW >= 28 && cellH >= 14;
  ctx.font = '11px system-ui, sans-serif';
  ctx.textAlign = 'center';
  ctx.textBaseline = 'middle';
  moe.tokens.forEach((row, l) => row.forEach((n, e) => {
    if (n === 0) return;
    ctx.fillStyle = heatColor(n / max);
    ctx.fillRect(e * cellW, l * cellH, cellW - gap, cellH - gap);
    if (!labels) return;
    ctx.fillStyle = n / max > 0.5 ? '#fff' : '#1d232b';
    ctx.fillText(String(n), e * cellW + cellW / 2, l * cellH + cellH / 2);
  }));
  canvas.dataset.layers = moe.n_layer;
  canvas.dataset.experts = moe.n_expert;
  canvas.dataset.max = top;
  canvas.onmousemove = (ev) => {
    const e = Math.floor(ev.offsetX / cellW), l = Math.floor(ev.offsetY / cellH);
    const row = state.moe && state.moe.tokens[l];
    canvas.title = row && row[e] !== undefined ? 'layer ' + l + ', expert ' + e + ': ' + row[e] + ' tokens' : '';
  };
  state.moe = moe;
  $('moe-window').textContent = 'tokens per expert, last ' + moe.window_s + ' s';
  facts('moe-info', [
    ['layers × experts', moe.n_layer + ' × ' + moe.n_expert + ', ' + moe.n_expert_used + ' used per token'],
    ['busiest cell', fmt(top, 0) + ' tokens'],
    ['imbalance', moe.expert_imbalance === undefined ? '–' : fmt(moe.expert_imbalance, 2) + ' × mean (worst layer)'],
    ['routed tokens', fmt(moe.routed_tokens, 0)],
    ['expert bytes read', bytes(moe.expert_read_bytes)],
  ]);
}

function renderTotals(m) {
  const t = m.totals, hw = m.hardware;
  const f = t.finished;
  const rows = [
    ['requests', fmt(t.requests, 0)],
    ['finished', f.stop + ' stop · ' + f.length + ' length · ' + f.abort + ' abort · ' + f.error + ' error'],
    ['prompt tokens', fmt(t.prompt_tokens, 0)], ['generated tokens', fmt(t.generation_tokens, 0)],
    ['CPU', pct(hw.cpu)],
    ['RAM', hw.ram_total_bytes ? bytes(hw.ram_used_bytes) + ' of ' + bytes(hw.ram_total_bytes) : '–'],
  ];
  for (const g of hw.gpus || []) rows.push(['GPU ' + g.gpu, pct(g.util)]);
  facts('totals-info', rows);
}

function renderRequests(m) {
  const body = $('requests').querySelector('tbody');
  body.replaceChildren();
  for (const r of m.requests) {
    body.append(el('tr', { 'data-request': r.id },
      el('td', {}, r.id), el('td', {}, r.finish), el('td', {}, r.prompt_tokens),
      el('td', {}, r.cached_tokens), el('td', {}, r.generated_tokens), el('td', {}, fmt(r.queue_s, 3)),
      el('td', {}, fmt(r.ttft_s, 3)), el('td', {}, fmt(r.e2e_s, 3)), el('td', {}, fmt(r.decode_tok_s, 1)),
      el('td', {}, pct(r.hit_rate))));
  }
}

async function poll() {
  try {
    const url = '/metrics' + (state.showAll ? '?requests=all' : '');
    const res = await fetch(url, { headers: authHeaders({ 'Accept': 'application/json' }) });
    if (!res.ok) throw new Error(await errorText(res));
    const m = await res.json();
    renderEngine(m);
    renderLive(m);
    renderSlots(m);
    renderCaches(m);
    renderSpec(m);
    renderMoe(m);
    renderTotals(m);
    renderRequests(m);
    state.polls += 1;
    document.body.dataset.polls = state.polls;
    setStatus('monitor-status', 'updated ' + new Date().toLocaleTimeString() +
      ' · ' + m.requests.length + ' of ' + m.requests_kept + ' kept requests shown');
  } catch (e) {
    setStatus('monitor-status', 'metrics: ' + e.message, true);
  } finally {
    setTimeout(poll, POLL_MS);
  }
}

// ---- start -------------------------------------------------------------------------------

function setupKey() {
  const input = $('api-key');
  input.value = localStorage.getItem(KEY_STORAGE) || '';
  input.addEventListener('change', () => {
    const v = input.value.trim();
    if (v) localStorage.setItem(KEY_STORAGE, v); else localStorage.removeItem(KEY_STORAGE);
  });
}

function start() {
  setupKey();
  setupChat();
  for (const b of document.querySelectorAll('.tab')) {
    b.addEventListener('click', () => showTab(b.dataset.tab));
  }
  $('show-all').addEventListener('change', (ev) => { state.showAll = ev.target.checked; });
  showTab(location.hash === '#monitor' ? 'monitor' : 'chat');
  poll();
}

start();
