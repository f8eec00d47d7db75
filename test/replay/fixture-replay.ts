// Replays an engine fixture set (test/fixtures/engines/<engine>/<version>/, or scripts/gpu-check.sh output) through the product's own readers: the help parser and flag-list judge, the version reader, the stream parser, the server-log error gate.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { StreamParser } from '../../src/client/stream-parser';
import type { FrameworkKey } from '../../src/core/frameworks/types';
import { judgeFlagList, MIN_FLAG_LIST_OPTIONS } from '../../src/core/help';
import { versionOfOutput } from '../../src/runner/cli-capture';
import { logNotesSince } from '../../src/runner/trial-checks';

/** Engine folder names (as scripts/gpu-check.sh writes them) and their framework keys. */
export const ENGINE_FRAMEWORK: Record<string, FrameworkKey> = { vllm: 'vllm', sglang: 'sglang', trtllm: 'tensorrt_llm', tokenspeed: 'tokenspeed' };

/** Every fixture set under a root: the folders <root>/<engine>/<version>/. */
export function fixtureSets(root: string): string[] {
  const out: string[] = [];
  if (!existsSync(root)) return out;
  for (const engine of readdirSync(root).sort()) {
    const e = path.join(root, engine);
    if (!statSync(e).isDirectory()) continue;
    for (const version of readdirSync(e).sort()) {
      const v = path.join(e, version);
      if (statSync(v).isDirectory()) out.push(v);
    }
  }
  return out;
}

export type SetKind = 'captured' | 'constructed' | 'simulated';

/** What a set's SOURCE.md says it is (its first lines name the kind). */
export function kindOf(dir: string): SetKind | undefined {
  const file = path.join(dir, 'SOURCE.md');
  if (!existsSync(file)) return undefined;
  const head = readFileSync(file, 'utf8').split('\n').slice(0, 6).join('\n');
  if (/SIMULATED|\*\*simulated\*\*/.test(head)) return 'simulated';
  if (/\*\*captured\*\*|captured on a GPU host/.test(head)) return 'captured';
  if (/constructed/i.test(head)) return 'constructed';
  return undefined;
}

/** The independent reading of a stream the parser is held to: text-carrying chunks and the last usage seen. */
export interface StreamFacts {
  tokens: number;
  usageCompletion: number | undefined;
  usagePrompt: number | undefined;
  cached: number | undefined;
}

type Json = Record<string, unknown>;

/** Reads the `data:` lines with JSON.parse: one token per chunk with text (or a chat delta with content), the last usage object. */
export function streamFacts(sse: string, chat: boolean): StreamFacts {
  const facts: StreamFacts = { tokens: 0, usageCompletion: undefined, usagePrompt: undefined, cached: undefined };
  for (const raw of sse.split('\n')) {
    const line = raw.trim();
    if (!line.startsWith('data:')) continue;
    const payload = line.slice(5).trim();
    if (payload === '[DONE]') continue;
    const obj = JSON.parse(payload) as Json;
    const usage = obj.usage as Json | null | undefined;
    if (usage) {
      if (typeof usage.completion_tokens === 'number') facts.usageCompletion = usage.completion_tokens;
      if (typeof usage.prompt_tokens === 'number') facts.usagePrompt = usage.prompt_tokens;
      const details = usage.prompt_tokens_details as Json | null | undefined;
      if (details && typeof details.cached_tokens === 'number') facts.cached = details.cached_tokens;
    }
    const c0 = (obj.choices as Json[] | undefined)?.[0];
    if (!c0) continue;
    const delta = c0.delta as Json | undefined;
    const text = chat ? `${typeof delta?.reasoning_content === 'string' ? delta.reasoning_content : ''}${typeof delta?.content === 'string' ? delta.content : ''}` : typeof c0.text === 'string' ? c0.text : '';
    if (text.length > 0) facts.tokens++;
  }
  return facts;
}

/** The product's stream parser over the bytes, fed in pieces of `piece` bytes (lines split across reads). */
export function parseStream(bytes: Buffer, chat: boolean, piece: number): StreamParser {
  const p = new StreamParser(chat ? 'chat' : 'completions');
  for (let i = 0, t = 0; i < bytes.length; i += piece, t++) p.consume(bytes.subarray(i, i + piece), t);
  p.flush(bytes.length);
  return p;
}

export interface Replay {
  /** One line per check made, for the test's own count (a set that checks nothing fails). */
  checked: string[];
  problems: string[];
}

interface Expect {
  version?: { version: string; probe: string };
  help: Map<string, number>;
  sse: Map<string, Record<string, number>>;
  log: Map<string, number | 'some'>;
}

function readExpect(dir: string, problems: string[]): Expect {
  const ex: Expect = { help: new Map(), sse: new Map(), log: new Map() };
  const file = path.join(dir, 'expect.txt');
  if (!existsSync(file)) {
    problems.push(`${file}: missing (each set says what its files must read as)`);
    return ex;
  }
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((line, i) => {
      const w = line.trim().split(/\s+/);
      if (!w[0]) return;
      if (w[0] === 'version' && w[1] && w[2] === 'probe' && w[3]) ex.version = { version: w[1], probe: w[3] };
      else if (w[0] === 'help' && w[1] && w[2] === 'options' && /^\d+$/.test(w[3] ?? '')) ex.help.set(w[1], Number(w[3]));
      else if (w[0] === 'sse' && w[1]) {
        const kv: Record<string, number> = {};
        for (let k = 2; k + 1 < w.length; k += 2) kv[w[k] as string] = Number(w[k + 1]);
        ex.sse.set(w[1], kv);
      } else if (w[0] === 'log' && w[1] && w[2] === 'errors+') ex.log.set(w[1], 'some');
      else if (w[0] === 'log' && w[1] && w[2] === 'errors' && /^\d+$/.test(w[3] ?? '')) ex.log.set(w[1], Number(w[3]));
      else problems.push(`${file}:${i + 1}: cannot read '${line}' (version V probe P | help FILE options N | sse FILE [key N]... | log FILE errors N|errors+)`);
    });
  return ex;
}

function replayVersion(dir: string, ex: Expect, r: Replay): void {
  if (!ex.version) {
    if (existsSync(path.join(dir, 'version.txt'))) r.problems.push(`${dir}: version.txt but no 'version' line in expect.txt`);
    return;
  }
  const { version, probe } = ex.version;
  const out = existsSync(path.join(dir, 'version.txt')) ? readFileSync(path.join(dir, 'version.txt'), 'utf8') : '';
  const err = existsSync(path.join(dir, 'version.stderr.txt')) ? readFileSync(path.join(dir, 'version.stderr.txt'), 'utf8') : '';
  const read = versionOfOutput(out, err, probe === 'python');
  const want = version === 'unknown' ? undefined : version;
  if (read !== want) r.problems.push(`${dir}/version.txt: the version reader gives ${read ?? 'nothing'}, expected ${want ?? 'nothing'}`);
  if (want && path.basename(dir) !== want && /^\d/.test(path.basename(dir))) r.problems.push(`${dir}: folder named ${path.basename(dir)} but the version reads ${want}`);
  r.checked.push(`version ${read ?? 'none'}`);
}

function replayHelp(dir: string, fw: FrameworkKey, ex: Expect, r: Replay): void {
  const files = readdirSync(dir).filter((f) => /^help.*\.txt$/.test(f));
  for (const f of files) {
    const want = ex.help.get(f);
    if (want === undefined) {
      r.problems.push(`${dir}/${f}: no 'help ${f} options N' line in expect.txt`);
      continue;
    }
    const verdict = judgeFlagList(readFileSync(path.join(dir, f), 'utf8'), fw);
    const n = verdict.catalog.optionStrings.length;
    if (n !== want) r.problems.push(`${dir}/${f}: the help parser finds ${n} options, expected ${want}`);
    // Enough options is a flag list; fewer (a grouped summary, a keyword search, a front end) must be recognised as not one.
    if (want >= MIN_FLAG_LIST_OPTIONS && verdict.problem) r.problems.push(`${dir}/${f}: ${want} options but judged not a flag list: ${verdict.problem}`);
    if (want < MIN_FLAG_LIST_OPTIONS && !verdict.problem) r.problems.push(`${dir}/${f}: ${want} options yet taken as the CLI's flag list`);
    r.checked.push(`help ${f}: ${n} options${verdict.problem ? ` (${verdict.problem})` : ''}`);
  }
  for (const f of ex.help.keys()) if (!files.includes(f)) r.problems.push(`${dir}: expect.txt names ${f}, which is missing`);
}

function replaySse(dir: string, ex: Expect, r: Replay): void {
  const files = readdirSync(dir).filter((f) => f.endsWith('.sse'));
  for (const f of files) {
    const bytes = readFileSync(path.join(dir, f));
    const chat = f.includes('chat');
    const facts = streamFacts(bytes.toString('utf8'), chat);
    if (facts.tokens === 0) r.problems.push(`${dir}/${f}: no chunk with text (not a usable stream fixture)`);
    for (const piece of [bytes.length, 7]) {
      const p = parseStream(bytes, chat, piece);
      const where = `${dir}/${f} (read in ${piece === 7 ? '7-byte pieces' : 'one piece'})`;
      if (p.failure) r.problems.push(`${where}: the stream parser failed: ${p.failure.message}`);
      if (p.tokens !== facts.tokens) r.problems.push(`${where}: the stream parser counts ${p.tokens} tokens, the chunks carry ${facts.tokens}`);
      if (p.usageCompletion !== facts.usageCompletion) r.problems.push(`${where}: usage completion_tokens read ${p.usageCompletion}, the stream says ${facts.usageCompletion}`);
      if (p.usagePrompt !== facts.usagePrompt) r.problems.push(`${where}: usage prompt_tokens read ${p.usagePrompt}, the stream says ${facts.usagePrompt}`);
      if (p.cached !== facts.cached) r.problems.push(`${where}: cached_tokens read ${p.cached}, the stream says ${facts.cached}`);
    }
    const want = ex.sse.get(f) ?? {};
    const got: Record<string, number | undefined> = { tokens: facts.tokens, usage: facts.usageCompletion, prompt: facts.usagePrompt, cached: facts.cached };
    for (const [k, v] of Object.entries(want)) if (got[k] !== v) r.problems.push(`${dir}/${f}: ${k} is ${got[k]}, expect.txt says ${v}`);
    r.checked.push(`sse ${f}: ${facts.tokens} tokens, usage ${facts.usageCompletion}`);
  }
  for (const f of ex.sse.keys()) if (!files.includes(f)) r.problems.push(`${dir}: expect.txt names ${f}, which is missing`);
}

function replayLogs(dir: string, fw: FrameworkKey, ex: Expect, r: Replay): void {
  for (const [f, want] of ex.log) {
    const file = path.join(dir, f);
    if (!existsSync(file)) {
      r.problems.push(`${dir}: expect.txt names ${f}, which is missing`);
      continue;
    }
    const errors = logNotesSince(file, 0, fw).errors;
    if (want === 'some' && errors.length === 0) r.problems.push(`${dir}/${f}: the log error gate finds no error line in an error log`);
    if (typeof want === 'number' && errors.length !== want) r.problems.push(`${dir}/${f}: the log error gate finds ${errors.length} error line(s), expected ${want}${errors[0] ? `; first: ${errors[0].trim().slice(0, 200)}` : ''}`);
    r.checked.push(`log ${f}: ${errors.length} error line(s)`);
  }
}

/** Every reader over one set; `problems` empty means the product reads the set as its expect.txt says. */
export function replaySet(dir: string): Replay {
  const r: Replay = { checked: [], problems: [] };
  const engine = path.basename(path.dirname(dir));
  const fw = ENGINE_FRAMEWORK[engine];
  if (!fw) return { checked: [], problems: [`${dir}: unknown engine folder '${engine}' (${Object.keys(ENGINE_FRAMEWORK).join(', ')})`] };
  if (!kindOf(dir)) r.problems.push(`${dir}/SOURCE.md: missing, or it does not say whether the set is captured, constructed or simulated`);
  const ex = readExpect(dir, r.problems);
  replayVersion(dir, ex, r);
  replayHelp(dir, fw, ex, r);
  replaySse(dir, ex, r);
  replayLogs(dir, fw, ex, r);
  if (r.checked.length === 0) r.problems.push(`${dir}: nothing to replay`);
  return r;
}
