// `strata calibrate` writes a config file that `strata serve --config` reads: flags given on
// the command line win, /v1/status and the Monitor's JSON say which file is in use, and a
// bad key is named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startServer, runStrata, MODEL, API_KEY } from './lib/strata_server.mjs';

const auth = { Authorization: `Bearer ${API_KEY}` };
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-config-'));

test('calibrate measures a tiny grid and serve --config runs the chosen setting', async () => {
  const file = path.join(dir, 'calibrated.json');
  const run = await runStrata(['calibrate', '-m', MODEL, '-o', file, '--threads', '1', '--parallel', '2,4',
    '--prefill-chunk', '32', '--layouts', '1x1', '--prompt-tokens', '16', '--max-new', '8', '--ctx', '256',
    '--budget-s', '120']);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /threads parallel {2}chunk/);
  assert.match(run.stdout, /<- chosen/);
  assert.match(run.stdout, /^chosen: threads 1, parallel [24], prefill-chunk 32/m);
  const config = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.equal(config.written_by, 'strata calibrate');
  assert.equal(config.measured.length, 2);
  assert.ok(config.measured.every((m) => m.ok && m.total_tok_s > 0), JSON.stringify(config.measured));
  assert.deepEqual(Object.keys(config.serve).sort(),
    ['batch-groups', 'join-groups', 'parallel', 'prefill-chunk', 'stages', 'threads']);

  // The file says threads 1; the command line says 2 and wins.
  const server = await startServer({ args: ['--config', file, '--threads', '2'] });
  try {
    const status = await (await fetch(`${server.url}/v1/status`, { headers: auth })).json();
    assert.equal(status.parallel, config.serve.parallel);
    assert.equal(status.threads, 2);
    assert.equal(status.config.file, file);
    assert.ok(status.config.from_file.includes('parallel'), JSON.stringify(status.config));
    assert.deepEqual(status.config.overridden_by_flags, ['threads']);
    const monitor = await (await fetch(`${server.url}/metrics`, { headers: { ...auth, Accept: 'application/json' } })).json();
    assert.equal(monitor.engine.config.file, file);
    assert.ok(monitor.engine.config.from_file.includes('prefill-chunk'));
  } finally {
    await server.stop();
  }
});

test('serve without --config reports no config file', async () => {
  const server = await startServer();
  try {
    const status = await (await fetch(`${server.url}/v1/status`, { headers: auth })).json();
    assert.equal(status.config, null);
  } finally {
    await server.stop();
  }
});

test('a config file with an unknown key is refused, naming the key', async () => {
  const file = path.join(dir, 'typo.json');
  fs.writeFileSync(file, JSON.stringify({ serve: { paralel: 4 } }));
  const run = await runStrata(['serve', '-m', MODEL, '--port', '0', '--config', file]);
  assert.equal(run.code, 2);
  assert.match(run.stderr, /unknown key 'serve\.paralel'/);
});
