// The language server over stdio, as an editor drives it: diagnostics, edits, completion, hover, fixes, lenses, symbols.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { TextDocument } from 'vscode-languageserver-textdocument';
import type { CodeAction, CodeLens, CompletionItem, Diagnostic, DocumentSymbol, Hover, TextEdit } from 'vscode-languageserver-protocol';
import { checkConfigText } from '../../src/core/config/check';
import { HELP, REPO, VALID } from '../support/fixtures';
import { TestClient } from '../support/lsp-client';

const QWEN = readFileSync(join(REPO, 'configs', 'cookbook-llm', 'qwen3-235b-a22b.yaml'), 'utf8');
const DEMO = readFileSync(join(REPO, 'configs', 'examples', 'demo.plan.yaml'), 'utf8');
let n = 0;
const uriFor = (dir: string, name = `doc${++n}.yaml`) => pathToFileURL(join(dir, name)).toString();

function lineOf(text: string, needle: string): number {
  const i = text.split('\n').findIndex((l) => l.includes(needle));
  assert.ok(i >= 0, `fixture line not found: ${needle}`);
  return i;
}

function apply(text: string, edits: TextEdit[]): string {
  return TextDocument.applyEdits(TextDocument.create('file:///x', 'yaml', 1, text), edits);
}

const errorsOf = (d: Diagnostic[]) => d.filter((x) => x.severity === 1);
/** Our page on SLA keys as the built server links it: docs/ beside dist/. */
const SLA_DOC = pathToFileURL(join(REPO, 'docs', 'sla.md')).href;
const msg = (d: Diagnostic): string => (typeof d.message === 'string' ? d.message : d.message.value);

describe('language server over stdio', () => {
  let client: TestClient;
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'autobench-lsp-'));
    client = new TestClient();
    await client.initialize({}, dir);
  });
  after(async () => {
    await client.shutdown();
  });

  test('an unknown flag is underlined exactly, with 0-based positions', async () => {
    const uri = uriFor(dir);
    const text = QWEN.replace('      dtype: auto\n      enable_chunked_prefill: true\n', '      dtype: auto\n      enable_chunked_prefil: true\n');
    client.open(uri, text);
    const diags = await client.diagnosticsFor(uri, 1);
    const e = errorsOf(diags);
    assert.equal(e.length, 1, JSON.stringify(diags));
    const line = lineOf(text, 'enable_chunked_prefil:');
    assert.deepEqual(e[0]!.range, { start: { line, character: 6 }, end: { line, character: 27 } });
    assert.equal(e[0]!.message, "vllm: unknown or unsupported server flag 'enable_chunked_prefil'");
    assert.equal(e[0]!.source, 'autobench');
    assert.equal(e[0]!.code, 'unknown-flag');
  });

  test('a syntax error sits on its own line', async () => {
    const uri = uriFor(dir);
    const text = VALID.replace('  tokenizer: Qwen/Qwen3-32B\n', '  tokenizer: [Qwen/Qwen3-32B\n');
    client.open(uri, text);
    const diags = await client.diagnosticsFor(uri, 1);
    assert.equal(diags.length >= 1, true);
    const bad = lineOf(text, 'tokenizer: [Qwen');
    assert.ok(diags.every((d) => d.range.start.line >= bad && d.range.start.line <= bad + 2), JSON.stringify(diags.map((d) => d.range)));
  });

  test('edits re-validate; rapid edits publish only the latest version; close clears', async () => {
    const uri = uriFor(dir);
    client.open(uri, VALID);
    assert.deepEqual(errorsOf(await client.diagnosticsFor(uri, 1)), []);
    // Type a bad key one character at a time, faster than the debounce.
    const at = lineOf(VALID, 'max_model_len: 12288');
    let v = 1;
    const typed = '      zzz: 1\n';
    for (let i = 0; i < typed.length; i++) {
      v = client.edit(uri, { start: { line: at + 1, character: i }, end: { line: at + 1, character: i } }, typed[i]!);
    }
    const last = await client.diagnosticsFor(uri, v);
    assert.deepEqual(errorsOf(last).map((d) => d.message), ["vllm: unknown or unsupported server flag 'zzz'"]);
    const versions = client.published.get(uri)!.map((p) => p.version);
    // Coalesced: 13 edits, at most one version in between published (a busy machine may stall the pipe past the
    // debounce once), and the last one always.
    assert.ok(versions.length <= 3, `published for versions ${versions.join(',')}`);
    assert.ok(versions.filter((x) => x !== undefined && x > 1 && x < v).length <= 1, `intermediate versions published: ${versions.join(',')}`);
    client.close(uri);
    await client.until(() => {
      const all = client.published.get(uri)!;
      const lastPub = all[all.length - 1]!;
      return lastPub.diagnostics.length === 0 && lastPub.version === undefined;
    }, 'empty diagnostics after close');
  });

  test('files that are not configs get no findings', async () => {
    const uri = uriFor(dir, 'other.yaml');
    client.open(uri, 'name: ci\non: push\njobs: {}\n');
    assert.deepEqual(await client.diagnosticsFor(uri, 1), []);
  });

  test('completion offers vLLM flags under base_server_flags, with their kinds', async () => {
    const uri = uriFor(dir);
    const text = QWEN.replace('      dtype: auto\n      enable_chunked_prefill: true\n', '      dtype: auto\n      \n      enable_chunked_prefill: true\n');
    client.open(uri, text);
    await client.diagnosticsFor(uri, 1);
    const line = lineOf(text, 'dtype: auto') + 1;
    const items: CompletionItem[] = await client.conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: { line, character: 6 } });
    const labels = items.map((i) => i.label);
    assert.ok(labels.includes('max_num_seqs'), labels.slice(0, 20).join(' '));
    assert.ok(!labels.includes('dtype'), 'keys already present are not offered');
    assert.ok(!labels.includes('mem_fraction_static'), 'SGLang flags are not offered for vLLM');
    const seqs = items.find((i) => i.label === 'max_num_seqs')!;
    assert.match(String(seqs.detail), /int/);
    // A boolean flag comes with its value to pick, marked as a snippet; a free-valued flag is plain text.
    const eager = items.find((i) => i.label === 'enforce_eager')!;
    assert.deepEqual([eager.insertTextFormat, (eager.textEdit as TextEdit).newText], [2, 'enforce_eager: ${1|true,false|}']);
    assert.deepEqual([seqs.insertTextFormat, (seqs.textEdit as TextEdit).newText], [undefined, 'max_num_seqs: ']);
  });

  test('completion offers choice values and schema keys', async () => {
    const uri = uriFor(dir);
    const text = QWEN.replace('      dtype: auto\n', '      dtype: auto\n      kv_cache_dtype_x: 1\n').replace('kv_cache_dtype_x: 1', 'kv_cache_dtype: ');
    client.open(uri, text);
    const line = lineOf(text, '      kv_cache_dtype: ');
    const values: CompletionItem[] = await client.conn.sendRequest('textDocument/completion', { textDocument: { uri }, position: { line, character: 22 } });
    assert.ok(values.map((v) => v.label).includes('fp8'), values.map((v) => v.label).join(' '));
    const keysText = QWEN.replace('hardware:\n  gpu_count: 8\n', 'hardware:\n  gpu_count: 8\n  \n');
    const uri2 = uriFor(dir);
    client.open(uri2, keysText);
    const hwLine = lineOf(keysText, 'gpu_count: 8') + 1;
    const keys: CompletionItem[] = await client.conn.sendRequest('textDocument/completion', { textDocument: { uri: uri2 }, position: { line: hwLine, character: 2 } });
    const names = keys.map((k) => k.label);
    assert.ok(names.includes('gpu_model'), names.join(' '));
    assert.ok(!names.includes('gpu_count'));
  });

  test('hover: a flag with its help and source, a scenario with its lengths', async () => {
    const uri = uriFor(dir);
    client.open(uri, QWEN);
    await client.diagnosticsFor(uri, 1);
    const line = lineOf(QWEN, '      max_num_seqs:');
    const h: Hover = await client.conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line, character: 9 } });
    const md = (h.contents as { value: string }).value;
    assert.match(md, /--max-num-seqs/);
    assert.match(md, /built-in flag table/);
    const inLine = lineOf(QWEN, '  - 8000');
    const h2: Hover = await client.conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: inLine, character: 5 } });
    const md2 = (h2.contents as { value: string }).value;
    assert.match(md2, /summarization/);
    assert.match(md2, /input 8000 \+ output 1000 = \*\*9000\*\*/);
    const slaLine = lineOf(QWEN, 'max_p50_ttft_ms');
    const h3: Hover = await client.conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: slaLine, character: 6 } });
    // An SLA key links our page on SLA keys, shipped beside the server bundle.
    assert.ok((h3.contents as { value: string }).value.endsWith(`\n\n[SLA keys and what each limits](${SLA_DOC})`), (h3.contents as { value: string }).value);
    // In the indentation before the key: nothing.
    assert.equal(await client.conn.sendRequest('textDocument/hover', { textDocument: { uri }, position: { line: slaLine, character: 2 } }), null);
  });

  test('every quick fix applies and the config re-validates clean', async () => {
    const uri = uriFor(dir);
    let text = QWEN;
    text = text.replace('    max_p50_ttft_ms: 1500', '    max_p99_ttft_ms: 1500'); // deprecated SLA key
    text = text.replace('      max_model_len: 12288\n      dtype: auto\n      enable_chunked_prefill', '      max_model_len: 4096\n      dtype: auto\n      enable_chunked_prefill'); // vllm limit too small
    text = text.replace('      enable_chunked_prefill: true\n', '      enable_chunked_prefil: true\n'); // typo'd flag
    text = text.replace('      backend: pytorch\n', '      backend: trt\n'); // TRT backend
    text = text.replace('    search_space:\n      max_num_seqs:\n      - 32\n      - 48\n      - 64\n      max_num_batched_tokens', '    search_space:\n      gpu_memory_utilization:\n      - 0.85\n      max_num_seqs:\n      - 32\n      - 48\n      - 64\n      max_num_batched_tokens'); // memory knob searched
    assert.notEqual(text, QWEN);
    client.open(uri, text);
    let v = 1;
    let diags = await client.diagnosticsFor(uri, v);
    const codes = new Set(diags.map((d) => d.code));
    for (const c of ['sla-deprecated', 'seq-limit-small', 'unknown-flag', 'trt-base-backend', 'memory-knob-searched']) assert.ok(codes.has(c), `${c} missing`);
    // The SLA finding links our page that explains it; other findings link nothing.
    assert.deepEqual(diags.find((d) => d.code === 'sla-deprecated')?.codeDescription, { href: SLA_DOC });
    assert.equal(diags.find((d) => d.code === 'unknown-flag')?.codeDescription, undefined);
    const titles: string[] = [];
    for (let round = 0; round < 10; round++) {
      const fixable = diags.filter((d) => d.severity === 1 || d.code === 'memory-knob-searched');
      if (fixable.length === 0) break;
      const d = fixable[0]!;
      const actions: CodeAction[] = await client.conn.sendRequest('textDocument/codeAction', { textDocument: { uri }, range: d.range, context: { diagnostics: [d] } });
      const action = actions.find((a) => a.isPreferred) ?? actions[0];
      assert.ok(action?.edit?.changes?.[uri], `no fix for ${String(d.code)}: ${typeof d.message === "string" ? d.message : d.message.value}`);
      titles.push(action.title);
      text = apply(text, action.edit.changes[uri]);
      v = client.change(uri, text);
      diags = await client.diagnosticsFor(uri, v);
    }
    assert.deepEqual(errorsOf(diags), []);
    assert.ok(!diags.some((d) => d.code === 'memory-knob-searched'));
    assert.deepEqual(titles.sort(), [
      "Keep gpu_memory_utilization fixed in base_server_flags",
      "Replace with 'enable_chunked_prefill'",
      'Replace with max_p50_ttft_ms (changes the limit from p99 to p50: review the value)',
      'Set max_model_len to 9000',
      'Set the TensorRT-LLM backend to pytorch',
    ].sort());
    // The memory knob moved: base keeps its own value (0.9) and the search space lost it.
    assert.match(text, /gpu_memory_utilization: 0\.9\n/);
  });

  test('a client that applies snippet edits: the p99 fix renames the key and selects the value for review, and is not preferred', async () => {
    const c2 = new TestClient();
    await c2.conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(dir).toString(),
      workspaceFolders: [{ uri: pathToFileURL(dir).toString(), name: 'ws' }],
      capabilities: { workspace: { workspaceEdit: { documentChanges: true, snippetEditSupport: true } } },
      initializationOptions: { debounceMs: 20 },
    });
    await c2.conn.sendNotification('initialized', {});
    try {
      const uri = uriFor(dir);
      const text = QWEN.replace('    max_p50_ttft_ms: 1500', '    max_p99_ttft_ms: 1500').replace('    max_p50_tpot_ms: ', '    max_tpot_ms: ');
      assert.notEqual(text, QWEN);
      c2.open(uri, text);
      const diags = await c2.diagnosticsFor(uri, 1);
      const fixFor = async (needle: string): Promise<CodeAction> => {
        const d = diags.find((x) => x.code === 'sla-deprecated' && msg(x).startsWith(`sla: '${needle}'`))!;
        const actions: CodeAction[] = await c2.conn.sendRequest('textDocument/codeAction', { textDocument: { uri }, range: d.range, context: { diagnostics: [d] } });
        assert.equal(actions.length, 1);
        return actions[0]!;
      };
      const p99 = await fixFor('max_p99_ttft_ms');
      assert.equal(p99.isPreferred, false, 'a fix that changes the percentile is never applied on its own');
      const line = lineOf(text, 'max_p99_ttft_ms');
      assert.deepEqual(p99.edit?.documentChanges, [
        {
          textDocument: { uri, version: 1 },
          edits: [{ range: { start: { line, character: 4 }, end: { line, character: 25 } }, snippet: { kind: 'snippet', value: 'max_p50_ttft_ms: ${1:1500}' } }],
        },
      ]);
      // A legacy name keeps its meaning: a plain rename, preferred.
      const legacy = await fixFor('max_tpot_ms');
      assert.equal(legacy.isPreferred, true);
      assert.equal(legacy.title, "Rename to 'max_p50_tpot_ms'");
      assert.deepEqual(Object.keys(legacy.edit?.changes ?? {}), [uri]);
    } finally {
      await c2.shutdown();
    }
  });

  test('code lenses: candidate count, Show commands and the run lenses per enabled framework', async () => {
    const uri = uriFor(dir);
    client.open(uri, QWEN);
    const lenses: CodeLens[] = await client.conn.sendRequest('textDocument/codeLens', { textDocument: { uri } });
    assert.equal(lenses.length, 20);
    const expected = checkConfigText(QWEN).candidateLists;
    for (const plan of expected) {
      const line = lineOf(QWEN, `  ${plan.framework}:`);
      const here = lenses.filter((l) => l.range.start.line === line).map((l) => l.command?.title);
      assert.deepEqual(here, [`${plan.candidates.length} candidates`, 'Show commands', 'Run baseline', 'Run candidate…', 'Run all']);
      const commands = lenses.filter((l) => l.range.start.line === line).map((l) => l.command?.command);
      assert.deepEqual(commands, ['autobench.pickCandidate', 'autobench.showCandidates', 'autobench.runBaseline', 'autobench.runCandidate', 'autobench.runAll']);
      assert.ok(lenses.filter((l) => l.range.start.line === line).every((l) => JSON.stringify(l.command?.arguments) === JSON.stringify([uri, plan.framework])));
    }
  });

  test('predictions: after the document is idle the worker predicts it, the server asks for a lens refresh, the count lens names the predicted best', async () => {
    const c2 = new TestClient();
    let refreshed: () => void = () => undefined;
    const refresh = new Promise<void>((resolve) => (refreshed = resolve));
    c2.conn.onRequest('workspace/codeLens/refresh', () => {
      refreshed();
      return null;
    });
    await c2.conn.sendRequest('initialize', {
      processId: process.pid,
      rootUri: pathToFileURL(dir).toString(),
      workspaceFolders: [{ uri: pathToFileURL(dir).toString(), name: 'ws' }],
      capabilities: { workspace: { configuration: true, codeLens: { refreshSupport: true } } },
      initializationOptions: { debounceMs: 20 },
    });
    await c2.conn.sendNotification('initialized', {});
    try {
      const uri = uriFor(dir, 'predicted.plan.yaml');
      c2.open(uri, DEMO);
      const first: CodeLens[] = await c2.conn.sendRequest('textDocument/codeLens', { textDocument: { uri } });
      assert.ok(!first.some((l) => /predicted/.test(l.command?.title ?? '')), 'no prediction before the document was idle');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([refresh, new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('no workspace/codeLens/refresh within 30 s')), 30000)))]);
      clearTimeout(timer);
      const lenses: CodeLens[] = await c2.conn.sendRequest('textDocument/codeLens', { textDocument: { uri } });
      const titles = lenses.map((l) => l.command?.title ?? '');
      assert.ok(titles.some((t) => /^3 candidates · predicted best \S+ ≈ [\d.]+ req\/s chat \(model/.test(t)), JSON.stringify(titles));
    } finally {
      await c2.shutdown();
    }
  });

  test('Show commands lists the same strings as validate --json', async () => {
    const uri = uriFor(dir);
    client.open(uri, QWEN);
    const res: { content: string; candidates: Record<string, string[]> } = await client.conn.sendRequest('autobench/candidates', { uri });
    const want: Record<string, string[]> = {};
    for (const p of checkConfigText(QWEN).candidateLists) want[p.framework] = p.candidates.map((c) => c.command);
    assert.deepEqual(res.candidates, want);
    // The listing wraps each command with `\` continuations; joined back, it is the same string.
    const unwrapped = res.content.replace(/ \\\n {2}/g, ' ');
    for (const cmds of Object.values(want)) for (const c of cmds) assert.ok(unwrapped.includes(`${c}\n`), c);
  });

  test('the plan request lists each framework\'s candidate ids and overrides for Run candidate…', async () => {
    const uri = uriFor(dir);
    client.open(uri, QWEN);
    const res: { frameworks: Record<string, Array<{ id: string; overrides: string; command: string }>> } = await client.conn.sendRequest('autobench/plan', { uri });
    for (const p of checkConfigText(QWEN).candidateLists) {
      const got = res.frameworks[p.framework] ?? [];
      assert.deepEqual(got.map((c) => c.id), p.candidates.map((c) => c.id));
      assert.deepEqual(got.map((c) => c.command), p.candidates.map((c) => c.command));
      assert.equal(got[0]?.overrides, '', 'the baseline overrides nothing');
      assert.ok(got.slice(1).every((c) => /^\S+=/.test(c.overrides)), JSON.stringify(got.map((c) => c.overrides)));
    }
  });

  test('validate files on disk: every config gets its diagnostics, other YAML is skipped', async () => {
    const good = join(dir, 'ws-good.yaml');
    const bad = join(dir, 'ws-bad.yaml');
    const other = join(dir, 'ws-other.yaml');
    writeFileSync(good, VALID);
    writeFileSync(bad, VALID.replace('schema_version: 1', 'schema_version: 2'));
    writeFileSync(other, 'name: ci\n');
    const uris = [good, bad, other].map((f) => pathToFileURL(f).toString());
    const res: { configs: number; errors: number; skipped: number } = await client.conn.sendRequest('autobench/validateFiles', { uris });
    assert.equal(res.configs, 2);
    assert.equal(res.errors, 1);
    assert.equal(res.skipped, 1);
    const diags = await client.until(() => client.published.get(uris[1]!)?.[0]?.diagnostics, 'diagnostics of the file on disk');
    assert.deepEqual(errorsOf(diags).map((d) => d.message), ['schema_version must be 1']);
  });

  test('outline: model, scenarios, frameworks with candidate counts', async () => {
    const uri = uriFor(dir);
    client.open(uri, QWEN);
    const syms: DocumentSymbol[] = await client.conn.sendRequest('textDocument/documentSymbol', { textDocument: { uri } });
    assert.deepEqual(syms.map((s) => s.name), ['model', 'scenarios', 'frameworks']);
    assert.equal(syms[0]!.detail, 'Qwen/Qwen3-235B-A22B');
    assert.deepEqual(syms[1]!.children!.map((c) => `${c.name} ${c.detail}`), ['chat 1000 → 1000', 'summarization 8000 → 1000']);
    assert.deepEqual(syms[2]!.children!.map((c) => c.name), ['sglang', 'vllm', 'tensorrt_llm', 'tokenspeed']);
    assert.match(syms[2]!.children![1]!.detail!, /^\d+ candidates$/);
    // VS Code rejects a whole outline if any symbol's range does not contain its selection.
    const contains = (s: DocumentSymbol): boolean => {
      const r = s.range;
      const sel = s.selectionRange;
      const before = (a: { line: number; character: number }, b: { line: number; character: number }) => a.line < b.line || (a.line === b.line && a.character <= b.character);
      return before(r.start, sel.start) && before(sel.end, r.end) && (s.children ?? []).every(contains);
    };
    assert.ok(syms.every(contains));
  });
});

describe('snapshots in the editor', () => {
  let client: TestClient;
  let dir: string;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'autobench-lsp-snap-'));
    client = new TestClient();
    await client.initialize({}, dir);
  });
  after(async () => client.shutdown());

  test('a help-dir modeline checks flags against that version, and says so in the status', async () => {
    const help = join(dir, 'snapshots', 'v0.6.6');
    cpSync(join(HELP, 'vllm', 'v0.6.6'), help, { recursive: true });
    const uri = uriFor(dir);
    const text = `# autobench: help-dir=snapshots/v0.6.6\n${QWEN}`;
    client.open(uri, text);
    const diags = await client.diagnosticsFor(uri, 1);
    assert.ok(errorsOf(diags).some((d) => d.message === "vllm: unknown or unsupported server flag 'long_prefill_token_threshold'"));
    const status = await client.until(
      () => client.notifications.find((x) => x.method === 'autobench/status' && (x.params as { uri: string }).uri === uri)?.params as { sources: string[]; label: string; builtinOnly: boolean } | undefined,
      'status notification',
    );
    assert.ok(status.sources.includes('vLLM 0.6.6'), status.sources.join(', '));
    assert.equal(status.builtinOnly, false);
    // The status bar's text: the snapshot by its version, the frameworks left on the built-in table with the versions it follows.
    assert.equal(status.label, 'flags: vLLM 0.6.6 · built-in table (SGLang main 2026-07-18, TensorRT-LLM main @ 00209af1, TokenSpeed 0.1.0)');
  });

  test('a plan points at its server_help files; changing a snapshot file re-validates', async () => {
    const helpDir = join(dir, 'artifacts', 'help');
    mkdirSync(helpDir, { recursive: true });
    const helpFile = join(helpDir, 'vllm_serve_all.txt');
    cpSync(join(HELP, 'vllm', 'v0.6.6', 'vllm_serve_help.txt'), helpFile);
    const plan = readFileSync(join(HELP, '..', 'plans', 'example-plan.yaml'), 'utf8');
    const uri = uriFor(dir, 'plan.yaml');
    client.open(uri, plan);
    const before = await client.diagnosticsFor(uri, 1);
    assert.ok(errorsOf(before).some((d) => /long_prefill_token_threshold/.test(msg(d))), JSON.stringify(errorsOf(before).map((d) => d.message)));
    const count = client.published.get(uri)!.length;
    cpSync(join(HELP, 'vllm', 'v0.20.1', 'vllm_serve_all.txt'), helpFile);
    void client.conn.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: pathToFileURL(helpFile).toString(), type: 2 }] });
    const after = await client.until(() => client.published.get(uri)!.slice(count)[0]?.diagnostics, 're-validation after the snapshot changed');
    assert.ok(!errorsOf(after).some((d) => /long_prefill_token_threshold/.test(msg(d))));
  });

  test('the include setting makes any YAML a config', async () => {
    const c2 = new TestClient();
    const d2 = mkdtempSync(join(tmpdir(), 'autobench-lsp-inc-'));
    await c2.initialize({ include: ['special/*.yaml'] }, d2);
    mkdirSync(join(d2, 'special'));
    const uri = pathToFileURL(join(d2, 'special', 'x.yaml')).toString();
    writeFileSync(join(d2, 'special', 'x.yaml'), 'model: {}\n');
    c2.open(uri, 'model: {}\n');
    const diags = await c2.diagnosticsFor(uri, 1);
    await c2.shutdown();
    assert.ok(errorsOf(diags).some((d) => d.message === 'schema_version must be 1'));
  });
});


