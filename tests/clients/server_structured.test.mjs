// Structured outputs against `strata serve` on stories260K, a model whose unconstrained output
// is noise for JSON: response_format json_schema / json_object, GBNF grammars and forced tool
// calls must still give outputs that parse and validate (ajv, JSON Schema 2020-12), through the
// raw API and the official SDKs' helpers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { startServer } from './lib/strata_server.mjs';

let server;
let openai;
let anthropic;
const ajv = new Ajv2020({ strict: false });
addFormats(ajv);

before(async () => {
  server = await startServer({ args: ['--parallel', '8', '--ctx', '1024'] });
  openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.apiKey, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: server.url, apiKey: server.apiKey, maxRetries: 0 });
});

after(async () => {
  const { code } = await server.stop();
  assert.equal(code, 0);
});

// A small seeded generator (mulberry32), so a failing schema can be reproduced from its index.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Random schemas over the supported keywords, kept small so outputs finish within max_tokens.
function randomSchema(r, depth = 0) {
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const kinds = depth >= 2 ? ['string', 'integer', 'number', 'boolean', 'null', 'enum', 'const']
                           : ['object', 'object', 'array', 'string', 'integer', 'number', 'enum', 'anyOf', 'boolean'];
  switch (pick(kinds)) {
    case 'object': {
      const properties = {};
      const n = 1 + Math.floor(r() * (depth === 0 ? 3 : 2));
      for (let i = 0; i < n; i++) properties[`k${i}_${Math.floor(r() * 100)}`] = randomSchema(r, depth + 1);
      const required = Object.keys(properties).filter(() => r() < 0.6);
      return { type: 'object', properties, required, additionalProperties: false };
    }
    case 'array': {
      const minItems = Math.floor(r() * 2);
      return { type: 'array', items: randomSchema(r, depth + 1), minItems, maxItems: minItems + Math.floor(r() * 3) };
    }
    case 'string': {
      const variant = pick(['len', 'len', 'date', 'uuid', 'email', 'date-time', 'pattern', 'uri', 'hostname', 'ipv4']);
      if (variant === 'pattern') return { type: 'string', pattern: '^[A-Z]{2}-\\d{2,3}$' };
      if (variant !== 'len') return { type: 'string', format: variant };
      const minLength = Math.floor(r() * 3);
      return { type: 'string', minLength, maxLength: minLength + Math.floor(r() * 8) };
    }
    case 'integer': {
      const minimum = Math.floor(r() * 200) - 100;
      return { type: 'integer', minimum, maximum: minimum + Math.floor(r() * 1000) };
    }
    case 'number': {
      const kind = r();
      if (kind < 0.3) return { type: 'number' };
      // Pydantic's ge / le (or gt / lt) on a float: a decimal range, bounds with up to 2 decimals.
      const lo = Math.round((r() * 20 - 10) * 100) / 100;
      const hi = Math.round((lo + 0.01 + r() * 5) * 100) / 100;
      return kind < 0.65 ? { type: 'number', minimum: lo, maximum: hi }
                         : { type: 'number', exclusiveMinimum: lo, exclusiveMaximum: hi };
    }
    case 'boolean': return { type: 'boolean' };
    case 'null': return { type: 'null' };
    case 'enum': return { enum: ['red', 7, null, 'blue "sky"'].filter(() => r() < 0.7).concat(['green']) };
    case 'const': return { const: pick(['x', 42, true]) };
    case 'anyOf': return { anyOf: [randomSchema(r, depth + 1), randomSchema(r, depth + 1)] };
  }
  throw new Error('unreachable');
}

async function post(path, body) {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${server.apiKey}` },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

// Whether every object of value under an object schema has its properties in the schema's
// order (the order the client wrote them, which the server keeps). anyOf branches are not
// followed (which branch matched is ajv's business).
function inSchemaOrder(schema, value) {
  if (schema.type === 'object' && value && typeof value === 'object' && !Array.isArray(value)) {
    const order = Object.keys(schema.properties ?? {});
    const positions = Object.keys(value).map((k) => order.indexOf(k));
    if (positions.some((p, i) => i > 0 && p < positions[i - 1])) return false;
    return Object.entries(value).every(([k, v]) => inSchemaOrder(schema.properties[k], v));
  }
  if (schema.type === 'array' && Array.isArray(value)) return value.every((v) => inSchemaOrder(schema.items, v));
  return true;
}

// Runs fn over 0..n-1 with at most `width` calls in flight.
async function pool(n, width, fn) {
  let next = 0;
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < n) await fn(next++);
  }));
}

test('random schemas: every output parses, validates and keeps the schema\'s property order', async () => {
  const n = Number(process.env.STRATA_SCHEMA_CASES ?? 1000);
  const first = Number(process.env.STRATA_SCHEMA_FIRST ?? 0);  // explore other seeds by hand
  const failures = [];
  await pool(n, 8, async (k) => {
    const i = first + k;
    const schema = { type: 'object', properties: { v: randomSchema(rng(i)) }, required: ['v'], additionalProperties: false };
    const { status, body } = await post('/v1/chat/completions', {
      messages: [{ role: 'user', content: 'Once upon a time' }], temperature: 1, seed: i, max_tokens: 480,
      response_format: { type: 'json_schema', json_schema: { name: 'case', strict: true, schema } },
    });
    const choice = body.choices?.[0];
    let ok = status === 200 && choice.finish_reason === 'stop';
    let value;
    try { value = JSON.parse(choice.message.content); } catch { ok = false; }
    if (ok && !ajv.validate(schema, value)) ok = false;
    if (ok && !inSchemaOrder(schema, value)) ok = false;
    if (!ok) failures.push({ i, schema: JSON.stringify(schema), status, out: JSON.stringify(body).slice(0, 400), errors: JSON.stringify(ajv.errors) });
  });
  assert.deepEqual(failures.slice(0, 3), [], `${failures.length} of ${n} outputs failed`);
});

test('json_object mode gives a JSON object; a GBNF grammar holds on completions', async () => {
  for (let seed = 0; seed < 20; seed++) {
    const { body } = await post('/v1/chat/completions', {
      messages: [{ role: 'user', content: 'Hi' }], temperature: 1, seed, max_tokens: 300,
      response_format: { type: 'json_object' },
    });
    if (body.choices[0].finish_reason !== 'stop') continue;  // a long object may hit max_tokens
    const value = JSON.parse(body.choices[0].message.content);
    assert.equal(typeof value, 'object');
    assert.ok(!Array.isArray(value) && value !== null);
  }
  const { status, body } = await post('/v1/completions', {
    prompt: 'The answer is', temperature: 1, seed: 3, max_tokens: 10, grammar: 'root ::= ("yes" | "no") "!"',
  });
  assert.equal(status, 200);
  assert.match(body.choices[0].text, /^(yes|no)!$/);
  assert.equal(body.choices[0].finish_reason, 'stop');
});

test('unsupported schema keywords are a 400 naming the keyword', async () => {
  const { status, body } = await post('/v1/chat/completions', {
    messages: [{ role: 'user', content: 'Hi' }],
    response_format: { type: 'json_schema', json_schema: { name: 'x', schema: { type: 'object', patternProperties: {} } } },
  });
  assert.equal(status, 400);
  assert.match(body.error.message, /patternProperties/);
});

const person = {
  type: 'object',
  // score: a float in [0, 1], as Pydantic's Field(ge=0, le=1) writes it.
  properties: { name: { type: 'string', maxLength: 10 }, age: { type: 'integer', minimum: 0, maximum: 120 },
                score: { type: 'number', minimum: 0, maximum: 1 } },
  required: ['name', 'age', 'score'],
  additionalProperties: false,
};

test('the OpenAI SDK structured-output helper parses the answer', async () => {
  const completion = await openai.chat.completions.parse({
    model: 'm', messages: [{ role: 'user', content: 'A person?' }], temperature: 1, seed: 5, max_tokens: 200,
    response_format: { type: 'json_schema', json_schema: { name: 'person', strict: true, schema: person } },
  });
  const parsed = completion.choices[0].message.parsed;
  assert.ok(ajv.validate(person, parsed), JSON.stringify(ajv.errors));
  assert.deepEqual(Object.keys(parsed), ['name', 'age', 'score']);  // the schema's order, not sorted
});

const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    // days before city: the arguments come in this order, not sorted by name.
    parameters: { type: 'object', properties: { days: { type: 'integer', minimum: 1, maximum: 7 }, city: { type: 'string', maxLength: 12 } }, required: ['days', 'city'] },
  },
};

test('a forced tool call round-trips through the OpenAI SDK', async () => {
  for (const tool_choice of ['required', { type: 'function', function: { name: 'get_weather' } }]) {
    const completion = await openai.chat.completions.create({
      model: 'm', messages: [{ role: 'user', content: 'Weather?' }], temperature: 1, seed: 11, max_tokens: 400,
      tools: [weatherTool], tool_choice,
    });
    const choice = completion.choices[0];
    assert.equal(choice.finish_reason, 'tool_calls');
    const call = choice.message.tool_calls[0];
    assert.equal(call.function.name, 'get_weather');
    const args = JSON.parse(call.function.arguments);
    assert.ok(ajv.validate(weatherTool.function.parameters, args), JSON.stringify(ajv.errors));
    assert.deepEqual(Object.keys(args), ['days', 'city']);
  }
});

test('a forced tool_use round-trips through the Anthropic SDK', async () => {
  const msg = await anthropic.messages.create({
    model: 'm', max_tokens: 400, temperature: 1, messages: [{ role: 'user', content: 'Weather?' }],
    tools: [{ name: 'get_weather', input_schema: weatherTool.function.parameters }],
    tool_choice: { type: 'tool', name: 'get_weather' },
  });
  assert.equal(msg.stop_reason, 'tool_use');
  const use = msg.content.find((b) => b.type === 'tool_use');
  assert.equal(use.name, 'get_weather');
  assert.ok(ajv.validate(weatherTool.function.parameters, use.input), JSON.stringify(ajv.errors));
  assert.deepEqual(Object.keys(use.input), ['days', 'city']);
});
