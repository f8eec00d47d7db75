// Which --help snapshots apply to a document: the `# autobench: help-dir=` modeline, then a plan's version_manifest server_help files, then the setting, else the built-in table.
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseYaml } from '../../src/core/config/yaml-doc';
import { modelineHelpDir, resolveSnapshotSource, snapshotSourceFor } from '../../src/core/config/snapshot-source';
import { FIXTURES, HELP } from '../support/fixtures';
import { readRepoFile, replaceOnce } from '../support/text-at';

const QWEN = readRepoFile('configs', 'cookbook-llm', 'qwen3-235b-a22b.yaml');
const PLAN = readFileSync(join(FIXTURES, 'plans', 'example-plan.yaml'), 'utf8');
const WS = resolve('/ws');
const DOC = join(WS, 'plans', 'example-plan.yaml');
const rootOf = (text: string) => parseYaml(text).root?.value;
/** A file system holding exactly these paths. */
const only = (...paths: string[]) => {
  const set = new Set(paths);
  return (p: string) => set.has(p);
};

describe('modelineHelpDir', () => {
  test('reads help-dir from a `# autobench:` line, among other options, quoted or not', () => {
    assert.equal(modelineHelpDir(`# autobench: help-dir=snapshots/v0.6.6\n${QWEN}`), 'snapshots/v0.6.6');
    assert.equal(modelineHelpDir('#autobench:   strict help-dir=../help other=1\n'), '../help');
    assert.equal(modelineHelpDir('# autobench: help-dir="my help/v 1" x=y\n'), 'my help/v 1');
    assert.equal(modelineHelpDir("# autobench: help-dir='my help'\n"), 'my help');
  });

  test('the modeline may sit below other lines, within the first 4096 characters', () => {
    assert.equal(modelineHelpDir(`schema_version: 1\n# autobench: help-dir=h\n${QWEN}`), 'h');
    const late = `${'#'.repeat(4096)}\n# autobench: help-dir=h\n`;
    assert.equal(modelineHelpDir(late), undefined);
  });

  test('no help-dir without the exact modeline shape', () => {
    assert.equal(modelineHelpDir(QWEN), undefined);
    assert.equal(modelineHelpDir('# autobench: strict\n'), undefined);
    assert.equal(modelineHelpDir('# autobench help-dir=h\n'), undefined, 'the colon after `autobench` is required');
    assert.equal(modelineHelpDir('  # autobench: help-dir=h\n'), undefined, 'the modeline starts its line');
    assert.equal(modelineHelpDir('# autobench: helpdir=h\n'), undefined);
    // Only the first modeline is read.
    assert.equal(modelineHelpDir('# autobench: strict\n# autobench: help-dir=h\n'), undefined);
  });
});

describe('snapshotSourceFor precedence', () => {
  const plan = rootOf(PLAN);
  const vllmHelp = join(WS, 'plans', 'artifacts', 'help', 'vllm_serve_all.txt');
  const sglangHelp = join(WS, 'plans', 'artifacts', 'help', 'sglang_launch_server.txt');
  const modeline = join(WS, 'plans', 'snapshots', 'v0.6.6');

  test('an explicit folder (`--help-dir`) wins over everything the document says', () => {
    const text = `# autobench: help-dir=snapshots/v0.6.6\n${PLAN}`;
    const explicit = resolveSnapshotSource(text, rootOf(text), { docPath: DOC, explicitDir: 'cli-help', settingHelpDir: 'help', workspaceRoots: [WS], exists: () => true });
    assert.deepEqual(explicit, { kind: 'dir', dir: resolve('cli-help'), from: 'explicit' });
  });

  test('a modeline wins over the plan\'s version_manifest and the setting', () => {
    const text = `# autobench: help-dir=snapshots/v0.6.6\n${PLAN}`;
    assert.deepEqual(snapshotSourceFor(text, rootOf(text), DOC, 'help', [WS], only(vllmHelp, modeline)), { kind: 'dir', dir: modeline, from: 'modeline' });
  });

  test('version_manifest wins over the setting, naming only the server_help files that exist, per framework', () => {
    assert.deepEqual(snapshotSourceFor(PLAN, plan, DOC, 'help', [WS], only(sglangHelp, vllmHelp)), {
      kind: 'files',
      files: { sglang: [sglangHelp], vllm: [vllmHelp] },
      from: 'version_manifest',
    });
  });

  test('with none of the manifest\'s files on disk, the setting applies, resolved against the first workspace folder', () => {
    assert.deepEqual(snapshotSourceFor(PLAN, plan, DOC, 'help', [WS, resolve('/other')], only()), { kind: 'dir', dir: join(WS, 'help'), from: 'setting' });
    assert.deepEqual(snapshotSourceFor(PLAN, plan, DOC, resolve('/abs/help'), [WS], only()), { kind: 'dir', dir: resolve('/abs/help'), from: 'setting' });
  });

  test('nothing applies: the built-in table', () => {
    assert.deepEqual(snapshotSourceFor(PLAN, plan, DOC, '', [WS], only()), { kind: 'builtin' });
    assert.deepEqual(snapshotSourceFor(QWEN, rootOf(QWEN), join(WS, 'cookbook-llm', 'q.yaml'), '', [WS], () => true), { kind: 'builtin' });
    // The caller skips the parse when there is no version_manifest: an absent root is fine.
    assert.deepEqual(snapshotSourceFor(PLAN, undefined, DOC, '', [WS], () => true), { kind: 'builtin' });
  });

  test('a cookbook config has no manifest, so the setting applies to it', () => {
    assert.deepEqual(snapshotSourceFor(QWEN, rootOf(QWEN), join(WS, 'q.yaml'), 'snaps', [WS], () => true), { kind: 'dir', dir: join(WS, 'snaps'), from: 'setting' });
  });

  test('server_help that is null, empty or not a string is ignored', () => {
    const text = replaceOnce(replaceOnce(PLAN, 'server_help: artifacts/help/sglang_launch_server.txt', 'server_help: null'), 'server_help: artifacts/help/vllm_serve_all.txt', "server_help: ''");
    const t3 = replaceOnce(text, 'server_help: artifacts/help/trtllm_serve.txt', 'server_help: [artifacts/help/trtllm_serve.txt]');
    assert.deepEqual(snapshotSourceFor(t3, rootOf(t3), DOC, '', [WS], () => true), {
      kind: 'files',
      files: { tokenspeed: [join(WS, 'plans', 'artifacts', 'help', 'tokenspeed_serve.txt')] },
      from: 'version_manifest',
    });
  });
});

describe('snapshotSourceFor path resolution', () => {
  const text = '# autobench: help-dir=snap\nmodel: {}\n';
  const docDir = join(WS, 'a', 'b');
  const doc = join(docDir, 'c.yaml');
  const rootA = resolve('/rootA');
  const rootB = resolve('/rootB');

  test('a relative modeline path: the document\'s folder, else the first workspace folder holding it, else the document\'s folder', () => {
    assert.deepEqual(snapshotSourceFor(text, undefined, doc, '', [rootA, rootB], only(join(docDir, 'snap'), join(rootB, 'snap'))), { kind: 'dir', dir: join(docDir, 'snap'), from: 'modeline' });
    assert.deepEqual(snapshotSourceFor(text, undefined, doc, '', [rootA, rootB], only(join(rootB, 'snap'))), { kind: 'dir', dir: join(rootB, 'snap'), from: 'modeline' });
    assert.deepEqual(snapshotSourceFor(text, undefined, doc, '', [rootA, rootB], only()), { kind: 'dir', dir: join(docDir, 'snap'), from: 'modeline' });
  });

  test('an absolute modeline path is kept as written', () => {
    const abs = resolve('/snapshots/vllm');
    assert.deepEqual(snapshotSourceFor(`# autobench: help-dir=${abs}\n`, undefined, doc, '', [rootA], only()), { kind: 'dir', dir: abs, from: 'modeline' });
  });

  test('an untitled document resolves against the first workspace folder, or the process folder', () => {
    assert.deepEqual(snapshotSourceFor(text, undefined, undefined, '', [rootA, rootB], only()), { kind: 'dir', dir: join(rootA, 'snap'), from: 'modeline' });
    assert.deepEqual(snapshotSourceFor(text, undefined, undefined, '', [], only()), { kind: 'dir', dir: join(process.cwd(), 'snap'), from: 'modeline' });
  });

  test('a relative setting without workspace folders resolves against the document\'s folder', () => {
    assert.deepEqual(snapshotSourceFor('model: {}\n', undefined, doc, 'help', [], only()), { kind: 'dir', dir: join(docDir, 'help'), from: 'setting' });
  });
});

describe('snapshotSourceFor on the file system', () => {
  test('the example plan in a folder with one captured help file', () => {
    const dir = mkdtempSync(join(tmpdir(), 'autobench-snapsrc-'));
    after(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'artifacts', 'help'), { recursive: true });
    const help = join(dir, 'artifacts', 'help', 'vllm_serve_all.txt');
    copyFileSync(join(HELP, 'vllm', 'v0.20.1', 'vllm_serve_all.txt'), help);
    assert.deepEqual(snapshotSourceFor(PLAN, rootOf(PLAN), join(dir, 'plan.yaml'), '', [], existsSync), { kind: 'files', files: { vllm: [help] }, from: 'version_manifest' });
  });

  test('a modeline naming a fixture folder relative to the document', () => {
    const text = `# autobench: help-dir=help/vllm/v0.6.6\n${QWEN}`;
    assert.deepEqual(snapshotSourceFor(text, rootOf(text), join(FIXTURES, 'x.yaml'), '', [], existsSync), { kind: 'dir', dir: join(HELP, 'vllm', 'v0.6.6'), from: 'modeline' });
  });
});
