// Validates deploy/kubernetes/*.yaml against the Kubernetes (and Prometheus Operator) API
// schemas and checks that the objects fit together.
//
// Schemas: the kubernetes-models packages (generated from the Kubernetes OpenAPI spec and
// the operator's CRDs). Their validate() checks types, required fields and formats; unknown
// fields (a misspelled "readinesProbe") it lets through, so each object is also compiled by
// TypeScript against the same models' interfaces, whose excess-property check rejects them.
//
// Usage: node kubernetes_manifests_test.mjs <tests/clients dir>
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const k8sDir = path.resolve(here, '../kubernetes');
const clientsDir = path.resolve(process.argv[2] || path.join(here, '../../tests/clients'));

// Kinds we ship: [module path, class name, TypeScript interface].
const MODELS = {
  'v1/Namespace': ['kubernetes-models/v1/Namespace', 'Namespace', 'INamespace'],
  'v1/Secret': ['kubernetes-models/v1/Secret', 'Secret', 'ISecret'],
  'v1/Service': ['kubernetes-models/v1/Service', 'Service', 'IService'],
  'v1/ConfigMap': ['kubernetes-models/v1/ConfigMap', 'ConfigMap', 'IConfigMap'],
  'v1/PersistentVolumeClaim':
    ['kubernetes-models/v1/PersistentVolumeClaim', 'PersistentVolumeClaim', 'IPersistentVolumeClaim'],
  'apps/v1/Deployment': ['kubernetes-models/apps/v1/Deployment', 'Deployment', 'IDeployment'],
  'autoscaling/v2/HorizontalPodAutoscaler': ['kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler',
    'HorizontalPodAutoscaler', 'IHorizontalPodAutoscaler'],
  'monitoring.coreos.com/v1/ServiceMonitor': [
    '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor',
    'ServiceMonitor', 'IServiceMonitor'],
};

// A scratch dir whose node_modules is the test clients', so imports and tsc resolve there.
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'strata-k8s-'));
fs.symlinkSync(path.join(clientsDir, 'node_modules'), path.join(scratch, 'node_modules'), 'dir');
process.on('exit', () => fs.rmSync(scratch, { recursive: true, force: true }));

async function importFromClients(spec) {
  const shim = path.join(scratch, `shim_${spec.replace(/[^a-z0-9]/gi, '_')}.mjs`);
  fs.writeFileSync(shim, `export * from ${JSON.stringify(spec)};\n`);
  return import(pathToFileURL(shim).href);
}

const YAML = await importFromClients('yaml');

function loadDocs() {
  const docs = [];
  for (const name of fs.readdirSync(k8sDir).filter((n) => n.endsWith('.yaml')).sort()) {
    const text = fs.readFileSync(path.join(k8sDir, name), 'utf8');
    for (const d of YAML.parseAllDocuments(text)) {
      assert.equal(d.errors.length, 0, `${name}: ${d.errors.join('; ')}`);
      const obj = d.toJS();
      if (obj) docs.push({ file: name, obj });
    }
  }
  return docs;
}

const docs = loadDocs();
const find = (kind) => docs.filter((d) => d.obj.kind === kind).map((d) => d.obj);
const one = (kind) => { const all = find(kind); assert.equal(all.length, 1, `one ${kind}`); return all[0]; };

test('every object is a known kind and passes its API schema', async () => {
  assert.ok(docs.length >= 8, `found ${docs.length} objects`);
  for (const { file, obj } of docs) {
    const key = `${obj.apiVersion}/${obj.kind}`;
    assert.ok(MODELS[key], `${file}: unexpected ${key}`);
    const [mod, cls] = MODELS[key];
    const Model = (await importFromClients(mod))[cls];
    assert.doesNotThrow(() => new Model(obj).validate(), `${file} ${key}`);
  }
});

test('schema validation rejects a broken object (the validator is live)', async () => {
  const { Deployment } = await importFromClients('kubernetes-models/apps/v1/Deployment');
  const broken = structuredClone(one('Deployment'));
  broken.spec.replicas = 'two';
  assert.throws(() => new Deployment(broken).validate(), /replicas/);
});

function typeCheck(objects) {
  const lines = [];
  objects.forEach(({ file, obj }, i) => {
    const [mod, , iface] = MODELS[`${obj.apiVersion}/${obj.kind}`];
    lines.push(`import type { ${iface} as T${i} } from ${JSON.stringify(mod)};`);
    lines.push(`// ${file}\nexport const o${i}: T${i} = ${JSON.stringify(obj, null, 1)};`);
  });
  fs.writeFileSync(path.join(scratch, 'manifests.ts'), lines.join('\n') + '\n');
  fs.writeFileSync(path.join(scratch, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, module: 'esnext', moduleResolution: 'bundler',
      target: 'es2022', skipLibCheck: true, types: [] },
    files: ['manifests.ts'],
  }));
  const tsc = path.join(clientsDir, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', scratch], { encoding: 'utf8', stdio: 'pipe' });
    return '';
  } catch (e) {
    return (e.stdout || '') + (e.stderr || '') || String(e);
  }
}

test('no object has a field its API does not know', () => {
  assert.equal(typeCheck(docs), '');
});

test('the field check catches a misspelled field (the checker is live)', () => {
  const d = structuredClone(docs.find((x) => x.obj.kind === 'Deployment'));
  d.obj.spec.template.spec.containers[0].readinesProbe = { httpGet: { path: '/health', port: 'http' } };
  assert.match(typeCheck([d]), /readinesProbe/);
});

test('the objects fit together', () => {
  const dep = one('Deployment'), svc = one('Service'), sm = one('ServiceMonitor');
  const hpa = one('HorizontalPodAutoscaler'), secret = one('Secret'), pvc = one('PersistentVolumeClaim');
  const podLabels = dep.spec.template.metadata.labels;
  for (const [k, v] of Object.entries(dep.spec.selector.matchLabels)) assert.equal(podLabels[k], v);
  for (const [k, v] of Object.entries(svc.spec.selector)) assert.equal(podLabels[k], v, `service selector ${k}`);
  for (const [k, v] of Object.entries(sm.spec.selector.matchLabels)) assert.equal(svc.metadata.labels[k], v);
  const portNames = svc.spec.ports.map((p) => p.name);
  for (const ep of sm.spec.endpoints) {
    assert.ok(portNames.includes(ep.port), `ServiceMonitor port ${ep.port}`);
    assert.equal(ep.path, '/metrics');
    assert.equal(ep.authorization.credentials.name, secret.metadata.name);
    assert.ok(ep.authorization.credentials.key in secret.stringData);
  }
  assert.ok(sm.spec.namespaceSelector.matchNames.includes(svc.metadata.namespace));
  assert.equal(hpa.spec.scaleTargetRef.kind, 'Deployment');
  assert.equal(hpa.spec.scaleTargetRef.name, dep.metadata.name);

  const c = dep.spec.template.spec.containers[0];
  assert.equal(c.readinessProbe.httpGet.path, '/health');
  const args = c.args.join(' ');
  const drain = Number((args.match(/--drain-timeout[= ](\d+)/) || [])[1]);
  assert.ok(drain > 0, 'the Deployment sets --drain-timeout');
  const grace = dep.spec.template.spec.terminationGracePeriodSeconds;
  assert.ok(grace >= drain && grace <= drain + 15, `grace ${grace} fits drain ${drain}`);
  // The key file: a mounted item of the Secret that --api-key-file names.
  const keyFile = (args.match(/--api-key-file[= ](\S+)/) || [])[1];
  assert.ok(keyFile, 'the Deployment sets --api-key-file');
  const secretVol = dep.spec.template.spec.volumes.find((v) => v.secret);
  assert.equal(secretVol.secret.secretName, secret.metadata.name);
  const keyMount = c.volumeMounts.find((m) => m.name === secretVol.name);
  const item = secretVol.secret.items.find((i) => `${keyMount.mountPath}/${i.path}` === keyFile);
  assert.ok(item, `${keyFile} is an item of the Secret's volume`);
  assert.ok(item.key in secret.stringData, `the Secret holds ${item.key}`);
  const vol = dep.spec.template.spec.volumes.find((v) => v.persistentVolumeClaim);
  assert.equal(vol.persistentVolumeClaim.claimName, pvc.metadata.name);
  const modelArg = (args.match(/--model[= ](\S+)/) || [])[1];
  const mount = c.volumeMounts.find((m) => m.name === vol.name);
  assert.ok(modelArg.startsWith(mount.mountPath + '/'), 'the model is on the volume');

  const adapter = YAML.parse(find('ConfigMap')[0].data['config.yaml']);
  const hpaMetric = hpa.spec.metrics[0].pods.metric.name;
  assert.ok(adapter.rules.some((r) => r.name.as === hpaMetric), 'adapter serves the HPA metric');
});

// The image `make image` builds (Containerfile) and what the Deployment runs agree: the tag is
// strata:<project version>, the container port is the one the image exposes, and the flags the
// Deployment passes equal the image's own defaults (ENV read by `strata serve`), so running the
// image bare or from this manifest is the same server.
test('the Deployment runs the image make image builds, with the image\'s defaults', () => {
  const repo = path.resolve(here, '../..');
  const version = fs.readFileSync(path.join(repo, 'CMakeLists.txt'), 'utf8')
    .match(/project\(strata VERSION ([0-9.]+)/)[1];
  const containerfile = fs.readFileSync(path.join(repo, 'Containerfile'), 'utf8').replace(/\\\n/g, ' ');
  const env = Object.fromEntries([...containerfile.matchAll(/\b(STRATA_[A-Z_]+)=(\S+)/g)].map((m) => [m[1], m[2]]));
  const exposed = Number(containerfile.match(/^EXPOSE (\d+)/m)[1]);
  const user = containerfile.match(/^USER (\d+):(\d+)/m);

  const dep = one('Deployment');
  const pod = dep.spec.template.spec, c = pod.containers[0];
  assert.equal(c.image, `strata:${version}`);
  const flag = (name) => (c.args.join(' ').match(new RegExp(`--${name}[= ](\\S+)`)) || [])[1];
  assert.equal(flag('host'), env.STRATA_HOST);
  assert.equal(flag('port'), env.STRATA_PORT);
  assert.equal(flag('model'), env.STRATA_MODEL);
  assert.equal(c.ports.find((p) => p.name === 'http').containerPort, exposed);
  assert.equal(Number(flag('port')), exposed);
  assert.equal(pod.securityContext.runAsUser, Number(user[1]));
  assert.equal(pod.securityContext.runAsGroup, Number(user[2]));
});
