// Settings: every name is `autobench.<area>.<name>`, old names stay deprecated aliases, and the new name wins when set at any level.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS } from '../../src/shared/protocol';
import { resolveSetting, resolveSettings, RESTRICTED_SETTINGS, serverSettingsOf, SETTINGS, slurmRunOptions, userValue, type InspectFn, type InspectLike } from '../../src/extension/settings-model';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { extensionSources, manifest, REPO } from './manifest';

/** An inspect() over a table of per-key records; undeclared keys give undefined as VS Code does. */
function inspector(records: Record<string, InspectLike>): InspectFn {
  return (key) => records[key];
}

const isString = (v: unknown): v is string => typeof v === 'string';

describe('the alias rule', () => {
  test('nothing set anywhere: the default', () => {
    assert.equal(resolveSetting(SETTINGS.target, inspector({ 'run.target': { defaultValue: 'sim' }, target: { defaultValue: 'sim' } })), 'sim');
    assert.equal(resolveSetting(SETTINGS.target, inspector({})), 'sim');
  });

  test('only the old name set: the old name', () => {
    const read = inspector({ 'run.target': { defaultValue: 'sim' }, target: { defaultValue: 'sim', workspaceValue: 'ssh:gpu1' } });
    assert.equal(resolveSetting(SETTINGS.target, read), 'ssh:gpu1');
  });

  test('the new name set at any level wins over the old one at a more specific level', () => {
    const read = inspector({ 'run.target': { defaultValue: 'sim', globalValue: 'local' }, target: { workspaceValue: 'ssh:gpu1', workspaceFolderValue: 'ssh:gpu2' } });
    assert.equal(resolveSetting(SETTINGS.target, read), 'local');
  });

  test('an explicitly empty new value still wins (the user cleared it on purpose)', () => {
    const read = inspector({ 'snapshots.helpDir': { defaultValue: '', workspaceValue: '' }, helpDir: { workspaceValue: 'artifacts/help' } });
    assert.equal(resolveSetting(SETTINGS.helpDir, read), '');
  });

  test('the defaults never count as set', () => {
    const read = inspector({ 'run.hosts': { defaultValue: ['from-default'] }, hosts: { globalValue: ['gpu1', 'gpu2'] } });
    assert.deepEqual(resolveSetting(SETTINGS.hosts, read), ['gpu1', 'gpu2']);
  });

  test('levels go as VS Code orders them: language-specific, folder, workspace, user', () => {
    assert.equal(userValue({ globalValue: 'g', workspaceValue: 'w', workspaceFolderValue: 'f' }, isString), 'f');
    assert.equal(userValue({ globalValue: 'g', workspaceValue: 'w' }, isString), 'w');
    assert.equal(userValue({ globalValue: 'g', workspaceFolderValue: 'f', globalLanguageValue: 'l' }, isString), 'l');
    assert.equal(userValue({ defaultValue: 'd' }, isString), undefined);
    assert.equal(userValue(undefined, isString), undefined);
  });

  test('a value of the wrong type counts as not set', () => {
    const read = inspector({ 'diagnostics.debounceMs': { workspaceValue: 'fast' } });
    assert.equal(resolveSetting(SETTINGS.debounceMs, read), DEFAULT_SETTINGS.debounceMs);
    const hosts = inspector({ 'run.hosts': { globalValue: [1, 2] }, hosts: { globalValue: ['gpu1'] } });
    assert.deepEqual(resolveSetting(SETTINGS.hosts, hosts), ['gpu1']);
  });

  test('settings without an alias read only their own name', () => {
    const read = inspector({ 'configs.include': { workspaceValue: ['**/*.plan.yaml'] } });
    assert.deepEqual(resolveSetting(SETTINGS.include, read), ['**/*.plan.yaml']);
  });
});

describe('the server is pushed what it was before', () => {
  test('defaults: DEFAULT_SETTINGS', () => {
    assert.deepEqual(serverSettingsOf(resolveSettings(inspector({}))), DEFAULT_SETTINGS);
  });

  test('the help folder comes through its alias too', () => {
    const s = resolveSettings(inspector({ helpDir: { workspaceValue: 'help' }, 'diagnostics.debounceMs': { globalValue: 40 } }));
    assert.deepEqual(serverSettingsOf(s), { helpDir: 'help', include: DEFAULT_SETTINGS.include, debounceMs: 40 });
    assert.deepEqual(s.run, { target: 'sim', hosts: [] });
  });
});

describe('the slurm settings reach a run only on a slurm target', () => {
  test('defaults: 4 candidates at once, the real engines', () => {
    assert.deepEqual(resolveSettings(inspector({})).slurm, { maxParallel: 4, simOnNodes: false });
  });

  test('set values are read; a count that is not a positive integer counts as not set', () => {
    const s = resolveSettings(inspector({ 'slurm.maxParallel': { workspaceValue: 2 }, 'slurm.simOnNodes': { globalValue: true } }));
    assert.deepEqual(s.slurm, { maxParallel: 2, simOnNodes: true });
    for (const bad of [0, 1.5, -3, '8']) assert.equal(resolveSettings(inspector({ 'slurm.maxParallel': { workspaceValue: bad } })).slurm.maxParallel, 4, String(bad));
  });

  test('slurm and slurm:PARTITION get them as RunOptions; sim, local and ssh hosts get nothing', () => {
    const slurm = { maxParallel: 2, simOnNodes: true };
    assert.deepEqual(slurmRunOptions('slurm', slurm), { maxParallel: 2, simOnNodes: true });
    assert.deepEqual(slurmRunOptions('slurm:gpu', { maxParallel: 4, simOnNodes: false }), { maxParallel: 4 });
    for (const t of ['sim', 'local', 'ssh:slurm', 'slurmish']) assert.deepEqual(slurmRunOptions(t, slurm), {}, t);
  });

  test("the target setting's pattern accepts slurm targets", () => {
    const pattern = new RegExp(manifest().contributes.configuration.properties['autobench.run.target']?.pattern ?? '');
    for (const t of ['sim', 'local', 'ssh:gpu1', 'slurm', 'slurm:gpu']) assert.ok(pattern.test(t), t);
    assert.ok(!pattern.test('slurm:'));
  });
});

describe('package.json declares exactly these settings', () => {
  const props = manifest().contributes.configuration.properties;
  const specs = Object.values(SETTINGS);

  test('each setting is named autobench.<area>.<name> and declared with the same default', () => {
    for (const spec of specs) {
      assert.match(spec.key, /^[a-z]+\.[a-z][A-Za-z]*$/, spec.key);
      const decl = props[`autobench.${spec.key}`];
      assert.ok(decl, `autobench.${spec.key} is not in package.json`);
      assert.deepEqual(decl.default, spec.defaultValue, `default of autobench.${spec.key}`);
      assert.equal(decl.markdownDeprecationMessage, undefined, `autobench.${spec.key} is marked deprecated`);
    }
  });

  test('each old name is still declared, deprecated in favour of the new one, with the same type, default and scope', () => {
    for (const spec of specs) {
      if (!('alias' in spec)) continue;
      const decl = props[`autobench.${spec.alias}`];
      const current = props[`autobench.${spec.key}`];
      assert.ok(decl && current, `autobench.${spec.alias} is not in package.json`);
      assert.ok(decl.markdownDeprecationMessage?.includes(`autobench.${spec.key}`), `autobench.${spec.alias} does not point at autobench.${spec.key}`);
      assert.equal(decl.type, current.type);
      assert.deepEqual(decl.default, current.default);
      assert.equal(decl.scope, current.scope);
    }
  });

  test('package.json declares nothing the settings module does not read', () => {
    const known = new Set(specs.flatMap((s) => ('alias' in s ? [s.key, s.alias] : [s.key]).map((k) => `autobench.${k}`)));
    assert.deepEqual(Object.keys(props).filter((k) => !known.has(k)), []);
  });

  test('the aliases are the renamed settings: helpDir, target, hosts', () => {
    const aliases = Object.fromEntries(specs.flatMap((s) => ('alias' in s ? [[s.alias, s.key]] : [])));
    assert.deepEqual(aliases, { helpDir: 'snapshots.helpDir', target: 'run.target', hosts: 'run.hosts' });
  });
});

describe('Restricted Mode: the settings that choose where code runs or where secrets go', () => {
  // A hostile workspace's .vscode/settings.json, and the user's own choice.
  const hostile = inspector({
    'run.target': { defaultValue: 'sim', workspaceValue: 'ssh:evil-host' },
    target: { defaultValue: 'sim', workspaceFolderValue: 'local' },
    'run.hosts': { defaultValue: [], globalValue: ['gpu-box-1'], workspaceValue: ['evil-host'] },
    'slurm.maxParallel': { defaultValue: 4, workspaceValue: 64 },
    'slurm.simOnNodes': { defaultValue: false, workspaceValue: true },
    'snapshots.helpDir': { defaultValue: '', workspaceValue: 'help' },
  });

  test('untrusted: a workspace value of a restricted setting (or of its alias) does not count; the user\'s own does; other settings keep theirs', () => {
    const s = resolveSettings(hostile, false);
    assert.equal(s.run.target, 'sim');
    assert.deepEqual(s.run.hosts, ['gpu-box-1']);
    assert.deepEqual(s.slurm, { maxParallel: 4, simOnNodes: false });
    assert.equal(s.snapshots.helpDir, 'help', 'the language server still checks against the workspace\'s snapshots');
  });

  test('trusted: the workspace values apply', () => {
    const s = resolveSettings(hostile, true);
    assert.equal(s.run.target, 'ssh:evil-host');
    assert.deepEqual(s.run.hosts, ['evil-host']);
    assert.deepEqual(s.slurm, { maxParallel: 64, simOnNodes: true });
  });

  test('package.json declares untrusted workspaces "limited", with exactly these settings restricted, each one declared', () => {
    const m = JSON.parse(readFileSync(path.join(REPO, 'package.json'), 'utf8')) as { capabilities?: { untrustedWorkspaces?: { supported?: unknown; description?: string; restrictedConfigurations?: string[] } } };
    const u = m.capabilities?.untrustedWorkspaces;
    assert.equal(u?.supported, 'limited');
    assert.ok((u?.description ?? '').length > 40, 'Restricted Mode is explained');
    const declared = [...(u?.restrictedConfigurations ?? [])].sort();
    assert.deepEqual(declared, RESTRICTED_SETTINGS.map((k) => `autobench.${k}`).sort());
    const props = manifest().contributes.configuration.properties;
    for (const k of declared) assert.ok(props[k], `${k} is not a declared setting`);
    for (const k of ['autobench.run.target', 'autobench.target', 'autobench.run.hosts', 'autobench.hosts']) assert.ok(declared.includes(k), k);
    for (const k of Object.keys(props).filter((p) => p.startsWith('autobench.slurm.'))) assert.ok(declared.includes(k), k);
  });
});

test('settings.ts is the only extension module that reads or writes configuration', () => {
  const readers = [...extensionSources()].filter(([, text]) => /getConfiguration\s*\(/.test(text)).map(([f]) => f);
  assert.deepEqual(readers, ['settings.ts']);
});
