// `strata serve` on stories260K through the official Anthropic SDK: Messages, streamed and not,
// stop reasons, usage, and errors as the SDK's error classes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { startServer } from './lib/strata_server.mjs';

let server;
let client;

before(async () => {
  server = await startServer({ args: ['--alias', 'stories'] });
  client = new Anthropic({ baseURL: server.url, apiKey: server.apiKey, maxRetries: 0 });
});

after(async () => {
  const { code } = await server.stop();
  assert.equal(code, 0);
});

const params = (extra = {}) => ({
  model: 'claude-anything',
  max_tokens: 40,
  temperature: 0,
  system: [{ type: 'text', text: 'You tell short stories.' }],
  messages: [{ role: 'user', content: 'Tell me a story about a dog.' }],
  ...extra,
});

test('messages returns a text block, a stop reason and usage', async () => {
  const msg = await client.messages.create(params());
  assert.equal(msg.type, 'message');
  assert.equal(msg.role, 'assistant');
  assert.equal(msg.model, 'stories');
  assert.equal(msg.content[0].type, 'text');
  assert.ok(msg.content[0].text.length > 0);
  assert.ok(['end_turn', 'max_tokens'].includes(msg.stop_reason));
  assert.ok(msg.usage.input_tokens > 0);
  assert.ok(msg.usage.output_tokens > 0 && msg.usage.output_tokens <= 40);
  assert.equal(typeof msg.usage.cache_read_input_tokens, 'number');
});

test('streamed events come in order and give the same text', async () => {
  const plain = await client.messages.create(params());
  const stream = await client.messages.create({ ...params(), stream: true });
  const types = [];
  let text = '';
  let stopReason = null;
  let outputTokens = null;
  for await (const event of stream) {
    types.push(event.type);
    if (event.type === 'content_block_delta') {
      assert.equal(event.delta.type, 'text_delta');
      text += event.delta.text;
    }
    if (event.type === 'message_delta') {
      stopReason = event.delta.stop_reason;
      outputTokens = event.usage.output_tokens;
    }
  }
  assert.deepEqual(types.slice(0, 2), ['message_start', 'content_block_start']);
  assert.deepEqual(types.slice(-3), ['content_block_stop', 'message_delta', 'message_stop']);
  assert.ok(types.includes('content_block_delta'));
  assert.equal(text, plain.content[0].text);
  assert.equal(stopReason, plain.stop_reason);
  assert.equal(outputTokens, plain.usage.output_tokens);
});

test('the SDK stream helper assembles the final message', async () => {
  const plain = await client.messages.create(params());
  let deltas = '';
  const final = await client.messages.stream(params()).on('text', (t) => { deltas += t; }).finalMessage();
  assert.equal(final.content[0].text, plain.content[0].text);
  assert.equal(deltas, plain.content[0].text);
  assert.equal(final.usage.output_tokens, plain.usage.output_tokens);
});

test('max_tokens ends with stop_reason max_tokens', async () => {
  const msg = await client.messages.create(params({ max_tokens: 4 }));
  assert.equal(msg.stop_reason, 'max_tokens');
  assert.equal(msg.usage.output_tokens, 4);
});

test('a stop sequence ends with stop_reason stop_sequence', async () => {
  const full = (await client.messages.create(params({ max_tokens: 60 }))).content[0].text;
  const words = full.split(/\s+/).filter((w) => w.length >= 3);
  assert.ok(words.length >= 3, `too few words in ${JSON.stringify(full)}`);
  const stop = words[Math.floor(words.length / 2)];
  const msg = await client.messages.create(params({ max_tokens: 60, stop_sequences: [stop] }));
  assert.equal(msg.content[0].text, full.slice(0, full.indexOf(stop)));
  assert.equal(msg.stop_reason, 'stop_sequence');
  assert.equal(msg.stop_sequence, stop);
});

test('errors surface as the SDK error classes', async () => {
  const bad = new Anthropic({ baseURL: server.url, apiKey: 'wrong', maxRetries: 0 });
  await assert.rejects(bad.messages.create(params()), Anthropic.AuthenticationError);
  await assert.rejects(client.messages.create(params({ max_tokens: undefined })), (err) => {
    assert.ok(err instanceof Anthropic.BadRequestError, String(err));
    assert.match(err.message, /max_tokens/);
    return true;
  });
  await assert.rejects(client.messages.create(params({ messages: [] })), Anthropic.BadRequestError);
});

// stories260K cannot call tools; these prove the SDK's tool requests are accepted and answered.
const toolParams = (extra = {}) => ({
  model: 'claude-anything',
  max_tokens: 8,
  temperature: 0,
  tools: [
    {
      name: 'get_weather',
        input_schema: { type: 'object', properties: { city: { type: 'string' } } },
    },
  ],
  tool_choice: { type: 'auto' },
  messages: [
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'sunny' }] },
  ],
  ...extra,
});

test('a request with tools and a tool_result history is answered', async () => {
  const msg = await client.messages.create(toolParams());
  assert.equal(msg.type, 'message');
  assert.ok(['end_turn', 'max_tokens', 'tool_use'].includes(msg.stop_reason));
  const streamed = await client.messages.stream(toolParams()).finalMessage();
  assert.ok(['end_turn', 'max_tokens', 'tool_use'].includes(streamed.stop_reason));
  assert.ok(streamed.content.length >= 1);
});

test('a tool_choice naming an unknown tool is a BadRequestError', async () => {
  await assert.rejects(client.messages.create(toolParams({ tool_choice: { type: 'tool', name: 'nope' } })), (err) => {
    assert.ok(err instanceof Anthropic.BadRequestError, String(err));
    assert.match(err.message, /tool_choice/);
    return true;
  });
});
