// Time to diagnostics of our language server vs yaml-language-server (with our schema): like for like (both with
// validation delay 0, same edits, same run), user-visible with each server's default delay, and our RSS over 100 configs.
// Run: npm run bench:lsp [-- --edits 200 --visible-edits 60 --warmup 20]
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_SETTINGS } from '../src/shared/protocol';
import { TestClient } from '../test/support/lsp-client';
import { largeConfig, longListConfig } from './large-config';

const root = resolve(__dirname, '..');
const num = (name: string, def: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : def;
};
const EDITS = num('edits', 200);
const VISIBLE_EDITS = num('visible-edits', 60);
const WARMUP = num('warmup', 20);
const YLS_PKG = join(root, 'node_modules', 'yaml-language-server');
const YLS = join(YLS_PKG, 'bin', 'yaml-language-server');
const YLS_VERSION = (JSON.parse(readFileSync(join(YLS_PKG, 'package.json'), 'utf8')) as { version: string }).version;
const SCHEMA = pathToFileURL(join(root, 'schemas', 'cookbook-config.schema.json')).toString();
/** yaml-language-server's validation delay is a field (`SettingsState.validationDelayMs = 200`), not a setting. */
const YLS_DEFAULT_DELAY_MS = 200;
const OUR_DEFAULT_DEBOUNCE_MS = packageDebounceDefault();
const VISIBLE_TARGET_MS = 80;

// Loaded with `node --require` into yaml-language-server's process only: the same class with the delay at 0.
const NO_DELAY_PRELOAD = `const m = require(${JSON.stringify(join(YLS_PKG, 'out', 'server', 'src', 'yamlSettings.js'))});
const Base = m.SettingsState;
m.SettingsState = class extends Base { constructor(...a) { super(...a); this.validationDelayMs = 0; } };
`;

function packageDebounceDefault(): number {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { contributes: { configuration: { properties: Record<string, { default?: unknown }> } } };
  const d = pkg.contributes.configuration.properties['autobench.diagnostics.debounceMs']?.default;
  if (d !== DEFAULT_SETTINGS.debounceMs) throw new Error(`package.json debounce default ${String(d)} != the server's ${DEFAULT_SETTINGS.debounceMs}`);
  return d;
}

const sorted = (xs: number[]): number[] => [...xs].sort((a, b) => a - b);
function median(xs: number[]): number {
  const s = sorted(xs);
  const m = s.length >> 1;
  return s.length === 0 ? NaN : s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
/** Nearest-rank percentile. */
const pct = (xs: number[], q: number): number => sorted(xs)[Math.max(0, Math.ceil(q * xs.length) - 1)] ?? NaN;
const ms = (x: number): string => x.toFixed(2).padStart(7);

interface Doc {
  name: string;
  text: string;
}

/** Where the edits go: the end of one line, found in the document's lines. */
interface Site {
  name: string;
  line: (lines: string[]) => number;
}

const SITES: Site[] = [
  { name: 'model.tokenizer', line: (lines) => lines.findIndex((l) => /^ {2}tokenizer: /.test(l)) },
  { name: 'a vLLM search value', line: (lines) => lines.findIndex((l, i) => i > lines.indexOf('  vllm:') && /^ {6}- /.test(l)) },
];

/** A process's CPU time in ms, all its threads (user + system, from /proc; NaN where there is none). */
function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return NaN;
  }
}
/** USER_HZ, the unit of /proc/<pid>/stat times: 100 on every Linux this runs on. */
const CLOCK_TICKS = 100;

/** One server with one open document, edited one character at a time at the end of one line. */
class Subject {
  readonly times: number[] = [];
  /** Per recorded edit: the server's CPU time (ms, all threads) and the messages it sent; work the times may not show. */
  cpuPerEdit = NaN;
  messagesPerEdit = NaN;
  private line = 0;
  private col = 0;
  private n = 0;
  private mark = { cpu: NaN, messages: NaN };

  constructor(
    readonly label: string,
    readonly client: TestClient,
    readonly uri: string,
  ) {}

  async open(text: string, site: Site): Promise<void> {
    const lines = text.split('\n');
    this.line = site.line(lines);
    if (this.line < 0) throw new Error(`no line to edit for ${site.name}`);
    this.col = lines[this.line]!.length;
    this.client.open(this.uri, text);
    await this.client.until(() => this.client.published.get(this.uri)?.length, `${this.label}: first diagnostics`, 60000);
  }

  /** One edit (insert, then delete, alternately); records didChange sent -> publishDiagnostics received unless warming up. */
  async edit(record: boolean): Promise<void> {
    const c = this.client;
    const seen = c.published.get(this.uri)!.length;
    const insert = this.n++ % 2 === 0;
    const pos = { line: this.line, character: this.col };
    const t0 = performance.now();
    c.edit(this.uri, { start: pos, end: insert ? pos : { line: this.line, character: this.col + 1 } }, insert ? 'x' : '');
    await c.until(() => c.published.get(this.uri)!.length > seen, `${this.label}: diagnostics after edit ${this.n}`, 60000);
    if (record) this.times.push(performance.now() - t0);
  }

  startCounting(): void {
    this.mark = { cpu: cpuMs(this.client.pid), messages: this.received() };
  }

  stopCounting(): void {
    this.cpuPerEdit = (cpuMs(this.client.pid) - this.mark.cpu) / this.times.length;
    this.messagesPerEdit = (this.received() - this.mark.messages) / this.times.length;
  }

  private received(): number {
    return (this.client.published.get(this.uri)?.length ?? 0) + this.client.notifications.length;
  }
}

async function ours(dir: string, name: string, debounceMs: number | undefined): Promise<Subject> {
  const c = new TestClient();
  // raw: no option at all leaves the server on its own default, as a fresh install is.
  await c.initialize(debounceMs === undefined ? {} : { debounceMs }, dir, true);
  return new Subject('ours', c, pathToFileURL(join(dir, `${name}.yaml`)).toString());
}

async function yls(dir: string, name: string, noDelay: boolean): Promise<Subject> {
  const preload = join(dir, 'yls-no-delay.cjs');
  writeFileSync(preload, NO_DELAY_PRELOAD);
  const c = new TestClient(noDelay ? ['--require', preload, YLS, '--stdio'] : [YLS, '--stdio']);
  c.configuration = { validate: true, schemas: { [SCHEMA]: ['*.yaml'] }, schemaStore: { enable: false }, kubernetesCRDStore: { enable: false } };
  await c.initialize({}, dir, true);
  void c.conn.sendNotification('workspace/didChangeConfiguration', { settings: { yaml: c.configuration } });
  return new Subject('yaml-language-server', c, pathToFileURL(join(dir, `${name}.yaml`)).toString());
}

/**
 * Every subject gets the same edits in turn: interleaved, so drift on a shared machine hits all alike, and in an
 * order rotated each round, so that none always follows the same other server (and whatever it does after publishing).
 */
async function race(subjects: Subject[], text: string, site: Site, warmup: number, edits: number): Promise<void> {
  for (const s of subjects) await s.open(text, site);
  for (let i = 0; i < warmup + edits; i++) {
    if (i === warmup) for (const s of subjects) s.startCounting();
    for (let k = 0; k < subjects.length; k++) await subjects[(i + k) % subjects.length]!.edit(i >= warmup);
  }
  for (const s of subjects) s.stopCounting();
  for (const s of subjects) await s.client.shutdown();
}

function row(doc: Doc, site: Site, a: Subject, b: Subject): string {
  const [am, ap, bm, bp] = [median(a.times), pct(a.times, 0.95), median(b.times), pct(b.times, 0.95)];
  return `| ${doc.name} | ${site.name} | ${ms(am)} | ${ms(ap)} | ${ms(bm)} | ${ms(bp)} | ${(bm / am).toFixed(2)}x | ${(bp / ap).toFixed(2)}x |`;
}

/** Median / p95 of one subject, and yaml-language-server's over it. */
function cells(s: Subject, yls: Subject): string[] {
  const [m, p] = [median(s.times), pct(s.times, 0.95)];
  return [`${m.toFixed(2)} / ${p.toFixed(2)}`, `${(median(yls.times) / m).toFixed(2)}x / ${(pct(yls.times, 0.95) / p).toFixed(2)}x`];
}

async function likeForLike(dir: string, docs: Doc[]): Promise<void> {
  console.log(`\n## Like for like: time to diagnostics, both servers with validation delay 0`);
  console.log(`ours: debounceMs 0 (initialization option), run on the next event-loop turn (setImmediate); yaml-language-server ${YLS_VERSION}: its fixed validationDelayMs (${YLS_DEFAULT_DELAY_MS}) set to 0 by a --require preload in its own process, run by setTimeout(0), which Node clamps to 1 ms`);
  console.log('"ours, same timer": ours at debounceMs 1, i.e. setTimeout with the same 1 ms clamp yaml-language-server gets at 0: the difference is then work and I/O only');
  console.log("both over stdio, one client: ours writes each message in one write (language-server/src/stdio-writer.ts), yaml-language-server with vscode-jsonrpc's stream writer (the header, then the body); the extension talks to our server over node IPC");
  console.log(`${EDITS} edits per server after ${WARMUP} warm-up edits, interleaved edit by edit (order rotated each round); cells: median / p95 ms; ratio = yaml-language-server / ours (>1: ours faster)`);
  console.log('| config | edits in | ours | ours, same timer | yaml-language-server | ratio | ratio, same timer |');
  console.log('|---|---|---:|---:|---:|---:|---:|');
  const work: string[] = [];
  for (const [i, doc] of docs.entries()) {
    for (const [j, site] of SITES.entries()) {
      const a = await ours(dir, `lfl-ours-${i}-${j}`, 0);
      const t = await ours(dir, `lfl-timer-${i}-${j}`, 1);
      const b = await yls(dir, `lfl-yls-${i}-${j}`, true);
      await race([a, t, b], doc.text, site, WARMUP, EDITS);
      if (median(b.times) >= YLS_DEFAULT_DELAY_MS) throw new Error('the preload did not take: yaml-language-server still waits its default delay');
      const [[oa, ra], [ot, rt]] = [cells(a, b), cells(t, b)];
      console.log(`| ${doc.name} | ${site.name} | ${oa} | ${ot} | ${median(b.times).toFixed(2)} / ${pct(b.times, 0.95).toFixed(2)} | ${ra} | ${rt} |`);
      const w = (s: Subject) => `${s.cpuPerEdit.toFixed(2)} / ${s.messagesPerEdit.toFixed(2)}`;
      work.push(`| ${doc.name} | ${site.name} | ${w(a)} | ${w(t)} | ${w(b)} |`);
    }
  }
  console.log('\nWork per edit in the same runs: server CPU ms (all its threads, /proc) / messages the server sent (diagnostics included)');
  console.log('| config | edits in | ours | ours, same timer | yaml-language-server |');
  console.log('|---|---|---:|---:|---:|');
  for (const line of work) console.log(line);
}

async function userVisible(dir: string, docs: Doc[]): Promise<void> {
  console.log(`\n## User-visible: edit -> diagnostics published, each server with its default settings`);
  console.log(`ours: debounce ${OUR_DEFAULT_DEBOUNCE_MS} ms (package.json default); yaml-language-server ${YLS_VERSION}: validation delay ${YLS_DEFAULT_DELAY_MS} ms (fixed)`);
  console.log(`${VISIBLE_EDITS} edits per server after ${Math.min(WARMUP, 5)} warm-up edits, one at a time (each waits for its diagnostics), interleaved (order rotated each round)`);
  console.log('| config | edits in | ours median ms | ours p95 ms | yaml-language-server median ms | p95 ms | ratio median | ratio p95 | ours p95 < 80 ms |');
  console.log('|---|---|---:|---:|---:|---:|---:|---:|---|');
  for (const [i, doc] of docs.entries()) {
    for (const [j, site] of SITES.entries()) {
      const a = await ours(dir, `uv-ours-${i}-${j}`, undefined);
      const b = await yls(dir, `uv-yls-${i}-${j}`, false);
      await race([a, b], doc.text, site, Math.min(WARMUP, 5), VISIBLE_EDITS);
      console.log(`${row(doc, site, a, b)} ${pct(a.times, 0.95) < VISIBLE_TARGET_MS ? 'MET' : 'NOT MET'} |`);
    }
  }
}

function rssMb(pid: number | undefined): number {
  if (!pid) return NaN;
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function rss(dir: string, shipped: string[]): Promise<void> {
  const c = new TestClient();
  await c.initialize({ debounceMs: 0 }, dir);
  const before = rssMb(c.pid);
  for (let i = 0; i < 100; i++) {
    const uri = pathToFileURL(join(dir, `open-${i}.yaml`)).toString();
    c.open(uri, readFileSync(shipped[i % shipped.length]!, 'utf8'));
    await c.until(() => c.published.get(uri)?.length, `diagnostics of config ${i}`, 30000);
  }
  console.log(`\nserver RSS: ${before.toFixed(1)} MB after start, ${rssMb(c.pid).toFixed(1)} MB after opening 100 configs`);
  await c.shutdown();
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'autobench-lsp-bench-'));
  const shippedDir = join(root, 'configs', 'cookbook-llm');
  const shipped = readdirSync(shippedDir).map((f) => join(shippedDir, f));
  const largest = shipped.map((f) => ({ f, text: readFileSync(f, 'utf8') })).sort((a, b) => b.text.length - a.text.length)[0]!;
  const docs: Doc[] = [
    { name: `largest shipped (${largest.f.split('/').pop()}, ${largest.text.split('\n').length - 1} lines)`, text: largest.text },
    { name: '3,000-line config (bench/large-config.ts)', text: largeConfig(3000) },
    { name: 'long-list config (3,000 values under one search key, bench/large-config.ts)', text: longListConfig(3000) },
  ];
  console.log(`node ${process.version}, ${cpus().length} cpus, load average at start ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  console.log('time to diagnostics = didChange (one character appended to a line, then removed) sent -> publishDiagnostics received, over stdio');
  try {
    await likeForLike(dir, docs);
    await userVisible(dir, docs);
    await rss(dir, shipped);
    console.log(`load average at end ${loadavg().map((x) => x.toFixed(2)).join(' ')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
