// Starts `strata serve` for a test: the binary from $STRATA_BIN, the model from $STRATA_MODEL
// (default ../shared/models/stories260K.gguf), a free loopback port (--port 0; the address is
// read from the "listening on" line), and an API key. Resolves once /health answers 200.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const STRATA_BIN = process.env.STRATA_BIN ?? path.join(here, '../../../build/src/cli/strata');
export const MODEL =
  process.env.STRATA_MODEL ?? path.join(here, '../../../../shared/models/stories260K.gguf');
export const API_KEY = 'test-key-123';

export async function startServer({ args = [], env = {}, apiKey = API_KEY } = {}) {
  const ctx = args.includes('--ctx') ? [] : ['--ctx', '512'];
  const argv = ['serve', '-m', MODEL, '--host', '127.0.0.1', '--port', '0', ...ctx, ...args];
  if (apiKey) argv.push('--api-key', apiKey);
  const child = spawn(STRATA_BIN, argv, {
    env: { ...process.env, STRATA_API_KEY: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const url = await new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = out.match(/listening on (http:\/\/\S+)/);
      if (m) resolve(m[1]);
    });
    exited.then(({ code }) => reject(new Error(`strata serve exited (${code}) before listening:\n${stderr}`)));
  });
  for (let i = 0; ; i++) {
    const res = await fetch(`${url}/health`).catch(() => null);
    if (res && res.status === 200) break;
    if (i > 600) throw new Error(`server never became healthy:\n${stderr}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url,
    apiKey,
    child,
    exited,
    stderr: () => stderr,
    // SIGTERM, then the exit status.
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

// Runs `strata` with arguments to completion: { code, stdout, stderr }.
export function runStrata(args) {
  return new Promise((resolve) => {
    const child = spawn(STRATA_BIN, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => { stdout += d; });
    child.stderr.on('data', (d) => { stderr += d; });
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
