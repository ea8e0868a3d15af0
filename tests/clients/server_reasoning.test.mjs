// The reasoning split through the official SDKs on the Qwen3 chat template: `strata serve` on
// stories260K with --chat-template-file src/chat/testdata/qwen3.jinja, so the server treats it as a
// thinking model; a GBNF grammar makes the model write a <think> block, which must come back as
// reasoning_content / a thinking block, streamed and not; enable_thinking reaches the template.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { startServer } from './lib/strata_server.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const qwen3Template = path.join(here, '../../src/chat/testdata/qwen3.jinja');
const reasoning = '\nThe user wants a story.\n';
const answer = 'Once upon a time.';
const grammar = `root ::= "<think>${reasoning.replaceAll('\n', '\\n')}</think>\\n\\n${answer}"`;

let server;
let openai;
let anthropic;

before(async () => {
  server = await startServer({ args: ['--chat-template-file', qwen3Template, '--ctx', '1024'] });
  openai = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.apiKey, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: server.url, apiKey: server.apiKey, maxRetries: 0 });
});

after(async () => {
  const { code } = await server.stop();
  assert.equal(code, 0);
});

const chat = { model: 'm', messages: [{ role: 'user', content: 'A story?' }], max_tokens: 200, temperature: 1, seed: 3 };

test('OpenAI SDK: reasoning_content apart from content, reasoning tokens in usage', async () => {
  const completion = await openai.chat.completions.create({ ...chat, grammar });
  const message = completion.choices[0].message;
  assert.equal(message.reasoning_content, reasoning);
  assert.equal(message.content, answer);
  const details = completion.usage.completion_tokens_details;
  assert.ok(details.reasoning_tokens > 0 && details.reasoning_tokens < completion.usage.completion_tokens);
});

test('OpenAI SDK stream: reasoning deltas first, then content', async () => {
  const stream = await openai.chat.completions.create({ ...chat, grammar, stream: true, stream_options: { include_usage: true } });
  let thought = '';
  let text = '';
  let usage = null;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (choice.delta.reasoning_content) {
        assert.equal(text, '', 'reasoning after content');
        thought += choice.delta.reasoning_content;
      }
      if (choice.delta.content) text += choice.delta.content;
    }
  }
  assert.equal(thought, reasoning);
  assert.equal(text, answer);
  assert.ok(usage.completion_tokens_details.reasoning_tokens > 0);
});

test('chat_template_kwargs enable_thinking reaches the Qwen3 template', async () => {
  const plain = await openai.chat.completions.create({ ...chat, max_tokens: 1 });
  const off = await openai.chat.completions.create({ ...chat, max_tokens: 1, chat_template_kwargs: { enable_thinking: false } });
  // The template closes an empty think block in the prompt when thinking is off.
  assert.ok(off.usage.prompt_tokens > plain.usage.prompt_tokens);
});

test('Anthropic SDK: a thinking block before the text, streamed and not; thinking reaches the template', async () => {
  const params = { model: 'm', max_tokens: 200, temperature: 1, messages: [{ role: 'user', content: 'A story?' }], grammar };
  const msg = await anthropic.messages.create(params);
  assert.deepEqual(msg.content.map((b) => b.type), ['thinking', 'text']);
  assert.equal(msg.content[0].thinking, reasoning);
  assert.equal(msg.content[1].text, answer);
  const final = await anthropic.messages.stream(params).finalMessage();
  assert.deepEqual(final.content.map((b) => b.type), ['thinking', 'text']);
  assert.equal(final.content[0].thinking, reasoning);
  assert.equal(final.content[1].text, answer);
  const base = { model: 'm', max_tokens: 1, messages: [{ role: 'user', content: 'A story?' }] };
  const on = await anthropic.messages.create({ ...base, thinking: { type: 'enabled', budget_tokens: 1024 } });
  const off = await anthropic.messages.create({ ...base, thinking: { type: 'disabled' } });
  assert.ok(off.usage.input_tokens > on.usage.input_tokens);
});
