// `strata serve` on stories260K through the official OpenAI SDK: chat and completions, streamed
// and not, usage, stop sequences, length limits, and errors as the SDK's error classes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import OpenAI from 'openai';
import { startServer } from './lib/strata_server.mjs';

let server;
let client;

before(async () => {
  server = await startServer({ args: ['--alias', 'stories', '--max-body', '64KiB'] });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: server.apiKey, maxRetries: 0 });
});

after(async () => {
  const { code } = await server.stop();
  assert.equal(code, 0);
});

const chat = (extra = {}) => ({
  model: 'any-name-works',
  messages: [{ role: 'user', content: 'Tell me a story about a cat.' }],
  temperature: 0,
  max_tokens: 40,
  ...extra,
});

async function collectChatStream(params) {
  const stream = await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } });
  let text = '';
  let finish = null;
  let usage = null;
  let role = null;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) {
      if (choice.delta.role) role = choice.delta.role;
      if (choice.delta.content) text += choice.delta.content;
      if (choice.finish_reason) finish = choice.finish_reason;
    }
  }
  return { text, finish, usage, role };
}

test('chat completion returns text, a finish reason and usage', async () => {
  const res = await client.chat.completions.create(chat());
  assert.equal(res.object, 'chat.completion');
  assert.equal(res.model, 'stories');
  const choice = res.choices[0];
  assert.equal(choice.message.role, 'assistant');
  assert.ok(choice.message.content.length > 0, 'empty reply');
  assert.ok(['stop', 'length'].includes(choice.finish_reason));
  assert.ok(res.usage.prompt_tokens > 0);
  assert.ok(res.usage.completion_tokens > 0 && res.usage.completion_tokens <= 40);
  assert.equal(res.usage.total_tokens, res.usage.prompt_tokens + res.usage.completion_tokens);
  assert.equal(typeof res.usage.prompt_tokens_details.cached_tokens, 'number');
});

test('chat content as an array of text parts is accepted', async () => {
  const res = await client.chat.completions.create(chat({
    messages: [{ role: 'user', content: [{ type: 'text', text: 'Tell me a story ' }, { type: 'text', text: 'about a cat.' }] }],
  }));
  const plain = await client.chat.completions.create(chat());
  assert.equal(res.choices[0].message.content, plain.choices[0].message.content);
});

test('streamed chat equals the non-streamed greedy reply, with usage', async () => {
  const plain = await client.chat.completions.create(chat());
  const streamed = await collectChatStream(chat());
  assert.equal(streamed.role, 'assistant');
  assert.equal(streamed.text, plain.choices[0].message.content);
  assert.equal(streamed.finish, plain.choices[0].finish_reason);
  assert.equal(streamed.usage.completion_tokens, plain.usage.completion_tokens);
  assert.equal(streamed.usage.prompt_tokens, plain.usage.prompt_tokens);
});

test('completions, streamed and not, agree', async () => {
  const params = { model: 'x', prompt: 'Once upon a time', max_tokens: 30, temperature: 0 };
  const plain = await client.completions.create(params);
  assert.equal(plain.object, 'text_completion');
  assert.ok(plain.choices[0].text.length > 0);
  const stream = await client.completions.create({ ...params, stream: true });
  let text = '';
  let finish = null;
  for await (const chunk of stream) {
    text += chunk.choices[0]?.text ?? '';
    finish = chunk.choices[0]?.finish_reason ?? finish;
  }
  assert.equal(text, plain.choices[0].text);
  assert.equal(finish, plain.choices[0].finish_reason);
});

test('n choices: choice c is byte for byte the answer seed + c gets alone, streamed and not', async () => {
  const params = chat({ temperature: 1, seed: 11, max_tokens: 30 });
  const res = await client.chat.completions.create({ ...params, n: 3 });
  assert.equal(res.choices.length, 3);
  const alone = [];
  for (let c = 0; c < 3; c++) alone.push(await client.chat.completions.create({ ...params, seed: 11 + c }));
  let completionTokens = 0;
  res.choices.forEach((choice, c) => {
    assert.equal(choice.index, c);
    assert.equal(choice.message.content, alone[c].choices[0].message.content, `choice ${c}`);
    assert.equal(choice.finish_reason, alone[c].choices[0].finish_reason);
    completionTokens += alone[c].usage.completion_tokens;
  });
  assert.ok(new Set(res.choices.map((choice) => choice.message.content)).size > 1, 'three seeds, one text');
  assert.equal(res.usage.prompt_tokens, alone[0].usage.prompt_tokens);
  assert.equal(res.usage.completion_tokens, completionTokens);

  const stream = await client.chat.completions.create({ ...params, n: 3, stream: true, stream_options: { include_usage: true } });
  const texts = ['', '', ''];
  let usage = null;
  for await (const chunk of stream) {
    if (chunk.usage) usage = chunk.usage;
    for (const choice of chunk.choices) texts[choice.index] += choice.delta.content ?? '';
  }
  assert.deepEqual(texts, res.choices.map((choice) => choice.message.content));
  assert.equal(usage.completion_tokens, completionTokens);

  const text = { model: 'x', prompt: 'Once upon a time', max_tokens: 20, temperature: 1, seed: 5 };
  const two = await client.completions.create({ ...text, n: 2 });
  const second = await client.completions.create({ ...text, seed: 6 });
  assert.equal(two.choices[1].text, second.choices[0].text);
});

test('the Responses API answers what chat answers, streamed and not, through the SDK', async () => {
  const story = 'Tell me a story about a cat.';
  const chatRes = await client.chat.completions.create(chat({
    messages: [{ role: 'system', content: 'Be kind.' }, { role: 'user', content: story }],
  }));
  const params = { model: 'x', instructions: 'Be kind.', input: story, temperature: 0, max_output_tokens: 40 };
  const res = await client.responses.create(params);
  assert.equal(res.object, 'response');
  assert.equal(res.output_text, chatRes.choices[0].message.content);
  assert.equal(res.status, chatRes.choices[0].finish_reason === 'length' ? 'incomplete' : 'completed');
  assert.equal(res.usage.input_tokens, chatRes.usage.prompt_tokens);
  assert.equal(res.usage.output_tokens, chatRes.usage.completion_tokens);

  const stream = client.responses.stream(params);
  let deltas = '';
  stream.on('response.output_text.delta', (event) => { deltas += event.delta; });
  const final = await stream.finalResponse();
  assert.equal(final.output_text, res.output_text);
  assert.equal(deltas, res.output_text);
  assert.equal(final.usage.output_tokens, res.usage.output_tokens);

  const items = await client.responses.create({
    ...params, instructions: undefined,
    input: [{ role: 'system', content: 'Be kind.' }, { role: 'user', content: [{ type: 'input_text', text: story }] }],
  });
  assert.equal(items.output_text, res.output_text);
  await assert.rejects(client.responses.create({ model: 'x', input: 'x', previous_response_id: 'resp_unknown' }),
    (error) => error instanceof OpenAI.NotFoundError && /previous_response_id/.test(error.message));

  // A second turn through previous_response_id is the one sent with the whole conversation.
  const followUp = 'And then?';
  const continued = await client.responses.create({ ...params, instructions: 'Be kind.', input: followUp, previous_response_id: res.id });
  assert.equal(continued.previous_response_id, res.id);
  const whole = await client.responses.create({
    ...params,
    input: [{ role: 'user', content: story }, { role: 'assistant', content: res.output_text }, { role: 'user', content: followUp }],
  });
  assert.equal(continued.output_text, whole.output_text);
  assert.equal(continued.usage.input_tokens, whole.usage.input_tokens);
  assert.ok(continued.usage.input_tokens > res.usage.input_tokens + res.usage.output_tokens);

  // A kept answer comes back as it was answered, streamed ones too, until it is deleted.
  const retrieved = await client.responses.retrieve(res.id);
  assert.deepEqual(retrieved, res);
  assert.equal((await client.responses.retrieve(final.id)).output_text, final.output_text);
  // Its request's input items, paged by the SDK's auto-pagination (one item a page).
  const listed = [];
  for await (const item of client.responses.inputItems.list(items.id, { limit: 1, order: 'asc' })) listed.push(item);
  assert.deepEqual(listed.map((item) => [item.type, item.role, item.content[0].text]),
    [['message', 'system', 'Be kind.'], ['message', 'user', story]]);
  const newestFirst = await client.responses.inputItems.list(items.id);
  assert.deepEqual(newestFirst.data.map((item) => item.id), listed.map((item) => item.id).reverse());
  await client.responses.delete(res.id);
  await assert.rejects(client.responses.retrieve(res.id), (error) => error instanceof OpenAI.NotFoundError);
  await assert.rejects(client.responses.inputItems.list(res.id), (error) => error instanceof OpenAI.NotFoundError);
  await assert.rejects(client.responses.create({ ...params, input: followUp, previous_response_id: res.id }),
    (error) => error instanceof OpenAI.NotFoundError);
});

test('max_tokens ends with finish_reason length', async () => {
  const res = await client.completions.create({
    model: 'x', prompt: 'Once upon a time', max_tokens: 7, temperature: 0, ignore_eos: true,
  });
  assert.equal(res.choices[0].finish_reason, 'length');
  assert.equal(res.usage.completion_tokens, 7);
  const chatRes = await client.chat.completions.create(chat({ max_completion_tokens: 3, ignore_eos: true }));
  assert.equal(chatRes.choices[0].finish_reason, 'length');
  assert.equal(chatRes.usage.completion_tokens, 3);
});

test('a stop sequence cuts the text where it first appears', async () => {
  const params = { model: 'x', prompt: 'Once upon a time', max_tokens: 60, temperature: 0, ignore_eos: true };
  const full = (await client.completions.create(params)).choices[0].text;
  const words = full.split(/\s+/).filter((w) => w.length >= 3);
  assert.ok(words.length >= 3, `too few words in ${JSON.stringify(full)}`);
  const stop = words[Math.floor(words.length / 2)];
  const res = await client.completions.create({ ...params, stop: [stop, 'zzzz-never'] });
  assert.equal(res.choices[0].text, full.slice(0, full.indexOf(stop)));
  assert.equal(res.choices[0].finish_reason, 'stop');
  const streamed = await client.completions.create({ ...params, stop, stream: true });
  let text = '';
  for await (const chunk of streamed) text += chunk.choices[0]?.text ?? '';
  assert.equal(text, res.choices[0].text);
});

test('logprobs come with each token', async () => {
  const res = await client.chat.completions.create(chat({ max_tokens: 5, logprobs: true, top_logprobs: 2 }));
  const content = res.choices[0].logprobs.content;
  assert.equal(content.length, res.usage.completion_tokens);
  for (const t of content) {
    assert.equal(typeof t.token, 'string');
    assert.ok(t.logprob <= 0);
    assert.equal(t.top_logprobs.length, 2);
  }
});

test('models lists the served model', async () => {
  const models = [];
  for await (const m of client.models.list()) models.push(m.id);
  assert.deepEqual(models, ['stories']);
});

test('a wrong API key is an AuthenticationError', async () => {
  const bad = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: 'wrong', maxRetries: 0 });
  await assert.rejects(bad.chat.completions.create(chat()), (err) => {
    assert.ok(err instanceof OpenAI.AuthenticationError, String(err));
    assert.equal(err.status, 401);
    assert.equal(err.code, 'invalid_api_key');
    return true;
  });
});

test('bad input is a BadRequestError naming the problem', async () => {
  await assert.rejects(client.chat.completions.create(chat({ messages: [] })), (err) => {
    assert.ok(err instanceof OpenAI.BadRequestError, String(err));
    assert.match(err.message, /messages/);
    return true;
  });
  await assert.rejects(client.chat.completions.create(chat({ temperature: 'hot' })), OpenAI.BadRequestError);
  await assert.rejects(client.chat.completions.create(chat({ max_tokens: 100000 })), (err) => {
    assert.ok(err instanceof OpenAI.BadRequestError, String(err));
    assert.equal(err.code, 'context_length_exceeded');
    return true;
  });
});

test('a body over --max-body is answered 413', async () => {
  const huge = 'x'.repeat(100 * 1024);
  await assert.rejects(client.chat.completions.create(chat({ messages: [{ role: 'user', content: huge }] })), (err) => {
    assert.ok(err instanceof OpenAI.APIError, String(err));
    assert.equal(err.status, 413);
    assert.equal(err.code, 'body_too_large');
    return true;
  });
});

// stories260K cannot call tools; these prove the SDK's tool requests are accepted and answered.
const weatherTool = {
  type: 'function',
  function: {
    name: 'get_weather',
    parameters: { type: 'object', properties: { city: { type: 'string' } } },
  },
};

const toolChat = (extra = {}) => ({
  model: 'any',
  temperature: 0,
  max_tokens: 8,
  tools: [weatherTool],
  tool_choice: 'auto',
  messages: [
    { role: 'user', content: 'Weather in Paris?' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
  ],
  ...extra,
});

test('a request with tools and a tool-result history is answered', async () => {
  const res = await client.chat.completions.create(toolChat());
  assert.equal(res.object, 'chat.completion');
  assert.ok(['stop', 'length', 'tool_calls'].includes(res.choices[0].finish_reason));
  const { finish } = await collectChatStream(toolChat());
  assert.ok(['stop', 'length', 'tool_calls'].includes(finish));
});

test('a tool_choice naming an unknown function is a BadRequestError', async () => {
  const choice = { type: 'function', function: { name: 'nope' } };
  await assert.rejects(client.chat.completions.create(toolChat({ tool_choice: choice })), (err) => {
    assert.ok(err instanceof OpenAI.BadRequestError, String(err));
    assert.match(err.message, /tool_choice/);
    return true;
  });
});

// The SDK asks for base64 unless told otherwise and decodes it to floats itself: both forms must
// give the same unit vectors, in input order, with the served model's name and the prompt usage.
test('embeddings come back as unit vectors, base64 and float alike', async () => {
  const input = ['Once upon a time there was a cat.', 'Lily went to the park.'];
  const viaBase64 = await client.embeddings.create({ model: 'any', input });
  const viaFloat = await client.embeddings.create({ model: 'any', input, encoding_format: 'float' });
  assert.equal(viaBase64.object, 'list');
  assert.equal(viaBase64.model, 'stories');
  assert.equal(viaBase64.data.length, 2);
  assert.ok(viaBase64.usage.prompt_tokens > 0);
  assert.equal(viaBase64.usage.total_tokens, viaBase64.usage.prompt_tokens);
  for (let i = 0; i < 2; ++i) {
    assert.equal(viaBase64.data[i].index, i);
    const a = viaBase64.data[i].embedding;
    const b = viaFloat.data[i].embedding;
    assert.equal(a.length, 64);
    assert.deepEqual(Array.from(a, (x) => Math.fround(x)), Array.from(b, (x) => Math.fround(x)));
    const norm = Math.sqrt(a.reduce((s, x) => s + x * x, 0));
    assert.ok(Math.abs(norm - 1) < 1e-5, `norm ${norm}`);
  }
  assert.notDeepEqual(viaFloat.data[0].embedding, viaFloat.data[1].embedding);
  const cut = await client.embeddings.create({ model: 'any', input: input[0], dimensions: 16, encoding_format: 'float' });
  assert.equal(cut.data[0].embedding.length, 16);
  await assert.rejects(client.embeddings.create({ model: 'any', input: '' }), (err) => {
    assert.ok(err instanceof OpenAI.BadRequestError);
    assert.match(err.message, /'input' must not be an empty string/);
    return true;
  });
});
