// The simulated engine's own tokenizer and output text: cheap, deterministic, and self-consistent.
//
// A token is a run of up to 6 letters (with one leading space absorbed), up to 3 digits, one other
// character, or a run of whitespace. Token ids are 32-bit hashes of the piece, so equal text gives equal
// ids (prefix caching works on them) without a vocabulary. Generated text is made of pseudo-words that are
// each exactly one such token, so re-tokenizing an answer gives back its completion_tokens count.

/** FNV-1a over a slice of a string's UTF-16 code units. */
function hashSlice(s: string, start: number, end: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < end; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A 32-bit mix (murmur3 finaliser) used for seeds and hash chains. */
export function mix32(a: number, b = 0): number {
  let h = (a ^ Math.imul(b, 0x9e3779b1)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function isLetter(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}
function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}
function isSpace(c: number): boolean {
  return c === 32 || (c >= 9 && c <= 13);
}

/**
 * Calls `emit(start, end)` for each token piece of `text`. One pass, no allocation per token.
 * Returns the number of tokens.
 */
function scan(text: string, emit: ((start: number, end: number) => void) | undefined): number {
  const n = text.length;
  let count = 0;
  let i = 0;
  while (i < n) {
    const start = i;
    let c = text.charCodeAt(i);
    if (c === 32 && i + 1 < n && !isSpace(text.charCodeAt(i + 1))) {
      i++;
      c = text.charCodeAt(i);
    }
    if (isLetter(c)) {
      const stop = Math.min(n, i + 6);
      i++;
      while (i < stop && isLetter(text.charCodeAt(i))) i++;
    } else if (isDigit(c)) {
      const stop = Math.min(n, i + 3);
      i++;
      while (i < stop && isDigit(text.charCodeAt(i))) i++;
    } else if (isSpace(c)) {
      i++;
      while (i < n && isSpace(text.charCodeAt(i))) i++;
      // Leave a single trailing space to the word that follows, as BPE tokenizers do.
      if (i < n && i - start > 1 && text.charCodeAt(i - 1) === 32) i--;
    } else {
      // One code point (a surrogate pair stays together).
      i += c >= 0xd800 && c <= 0xdbff && i + 1 < n ? 2 : 1;
    }
    count++;
    emit?.(start, i);
  }
  return count;
}

export function countTokens(text: string): number {
  return scan(text, undefined);
}

/** Token ids of `text` (appended to `out` when given). */
export function tokenize(text: string, out: number[] = []): number[] {
  scan(text, (s, e) => out.push(hashSlice(text, s, e)));
  return out;
}

/** Token pieces as strings (for /tokenize and tests). */
export function tokenPieces(text: string): string[] {
  const out: string[] = [];
  scan(text, (s, e) => out.push(text.slice(s, e)));
  return out;
}

export function pieceId(piece: string): number {
  return hashSlice(piece, 0, piece.length);
}

// Pseudo-words: 1-3 consonant-vowel syllables, at most 6 letters, each a single token with its leading space.
const ONSETS = ['b', 'd', 'f', 'g', 'k', 'l', 'm', 'n', 'p', 'r', 's', 't', 'v', 'z', 'sh', 'tr'];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ou', 'ea'];

function buildVocab(): string[] {
  const syll: string[] = [];
  for (const o of ONSETS) for (const v of VOWELS) syll.push(o + v);
  const words = new Set<string>();
  for (const a of syll) words.add(a);
  for (const a of syll) for (const b of syll) if (a.length + b.length <= 6) words.add(a + b);
  return [...words].map((w) => ` ${w}`);
}

/** The words generated text is drawn from; every entry is one token of `tokenize`. */
export const WORDS: readonly string[] = buildVocab();
const WORD_IDS: readonly number[] = WORDS.map(pieceId);

/** The index into WORDS of output token `k` of a request seeded with `seed`. */
function wordIndex(seed: number, k: number): number {
  return mix32(seed, k + 1) % WORDS.length;
}

export function outputWord(seed: number, k: number): string {
  return WORDS[wordIndex(seed, k)] as string;
}

export function outputTokenId(seed: number, k: number): number {
  return WORD_IDS[wordIndex(seed, k)] as number;
}

/** Output tokens [from, from + count) as text. */
export function outputText(seed: number, from: number, count: number): string {
  let s = '';
  for (let k = from; k < from + count; k++) s += WORDS[wordIndex(seed, k)] as string;
  return s;
}

/** A hash of a token-id sequence (used to seed a request's output from its prompt). */
export function hashIds(ids: ArrayLike<number>, seed = 0): number {
  let h = mix32(seed, ids.length);
  for (let i = 0; i < ids.length; i++) h = mix32(h, ids[i]);
  return h;
}

/** A uniform number in [0, 1) from a 32-bit hash. */
export function unit(h: number): number {
  return (h >>> 0) / 4294967296;
}
