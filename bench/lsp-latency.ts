// Edit-to-diagnostics latency of our language server vs yaml-language-server (with our schema), and our RSS over 100 configs.
// Run: npm run build && node --import tsx bench/lsp-latency.ts [--edits 200]
import { readFileSync, readdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TestClient } from '../test/support/lsp-client';
import { largeConfig } from './large-config';

const root = resolve(__dirname, '..');
const editsArg = process.argv.indexOf('--edits');
const EDITS = editsArg > 0 ? Number(process.argv[editsArg + 1]) : 200;
const YLS = join(root, 'node_modules', 'yaml-language-server', 'bin', 'yaml-language-server');
const SCHEMA = pathToFileURL(join(root, 'schemas', 'cookbook-config.schema.json')).toString();

function pct(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

/** Types EDITS single characters into the value of `model.tokenizer` (inserting, then deleting), timing each publish. */
async function measure(client: TestClient, uri: string, text: string): Promise<number[]> {
  const lines = text.split('\n');
  const line = lines.findIndex((l) => /^ {2}tokenizer: /.test(l));
  if (line < 0) throw new Error('no model.tokenizer line to edit');
  const col = lines[line]!.length;
  client.open(uri, text);
  await client.until(() => client.published.get(uri)?.length, 'first diagnostics', 30000);
  const times: number[] = [];
  for (let i = 0; i < EDITS; i++) {
    const seen = client.published.get(uri)!.length;
    const insert = i % 2 === 0;
    const t0 = performance.now();
    client.edit(uri, insert ? { start: { line, character: col }, end: { line, character: col } } : { start: { line, character: col }, end: { line, character: col + 1 } }, insert ? 'x' : '');
    await client.until(() => client.published.get(uri)!.length > seen, `diagnostics after edit ${i}`, 30000);
    times.push(performance.now() - t0);
  }
  return times;
}

function rssMb(pid: number | undefined): number {
  if (!pid) return NaN;
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : NaN;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'autobench-lsp-bench-'));
  const shipped = readdirSync(join(root, 'configs', 'cookbook-llm')).map((f) => join(root, 'configs', 'cookbook-llm', f));
  const largest = shipped.map((f) => ({ f, text: readFileSync(f, 'utf8') })).sort((a, b) => b.text.length - a.text.length)[0]!;
  const big = largeConfig(3000);
  const docs = [
    { name: `largest shipped (${largest.f.split('/').pop()}, ${largest.text.split('\n').length} lines)`, text: largest.text },
    { name: `3,000-line config`, text: big },
  ];
  console.log(`node ${process.version}; ${EDITS} single-character edits each; latency = didChange sent -> publishDiagnostics received`);
  const rows: string[] = [];
  for (const doc of docs) {
    const ours = new TestClient();
    await ours.initialize({ debounceMs: 0 }, dir);
    const a = await measure(ours, pathToFileURL(join(dir, `ours-${rows.length}.yaml`)).toString(), doc.text);
    await ours.shutdown();

    const yls = new TestClient([YLS, '--stdio']);
    yls.configuration = { validate: true, schemas: { [SCHEMA]: ['*.yaml'] }, schemaStore: { enable: false }, kubernetesCRDStore: { enable: false } };
    await yls.initialize({}, dir, true);
    void yls.conn.sendNotification('workspace/didChangeConfiguration', { settings: { yaml: yls.configuration } });
    const b = await measure(yls, pathToFileURL(join(dir, `yls-${rows.length}.yaml`)).toString(), doc.text);
    await yls.shutdown();

    const line = `${doc.name.padEnd(48)} ours p50 ${pct(a, 0.5).toFixed(2).padStart(7)} ms p95 ${pct(a, 0.95).toFixed(2).padStart(7)} ms | yaml-language-server p50 ${pct(b, 0.5).toFixed(2).padStart(7)} ms p95 ${pct(b, 0.95).toFixed(2).padStart(7)} ms | ratio p50 ${(pct(b, 0.5) / pct(a, 0.5)).toFixed(2)}x p95 ${(pct(b, 0.95) / pct(a, 0.95)).toFixed(2)}x`;
    console.log(line);
    rows.push(line);
  }

  const c = new TestClient();
  await c.initialize({ debounceMs: 0 }, dir);
  const before = rssMb(c.pid);
  for (let i = 0; i < 100; i++) {
    const src = shipped[i % shipped.length]!;
    const uri = pathToFileURL(join(dir, `open-${i}.yaml`)).toString();
    c.open(uri, readFileSync(src, 'utf8'));
    await c.until(() => c.published.get(uri)?.length, `diagnostics of config ${i}`, 30000);
  }
  console.log(`server RSS: ${before.toFixed(1)} MB after start, ${rssMb(c.pid).toFixed(1)} MB after opening 100 configs`);
  await c.shutdown();
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
