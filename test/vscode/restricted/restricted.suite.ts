// Restricted Mode on a hostile workspace (its settings point runs at other targets; its plan's server_command writes a
// marker): configs are still checked and shown, no lens offers a run, every command that would run or connect refuses
// with the trust message, the marker never appears, and the workspace's run target is not the one in effect.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readSettings } from '../../../src/extension/settings';
import { MANAGE_TRUST, RESTRICTED_LENS_TITLE } from '../../../src/extension/trust';
import { test, waitFor } from '../suite/harness';
import { extension, open } from '../suite/workspace';

const MARKERS = [path.join(tmpdir(), 'autobench-hostile-marker'), '/tmp/autobench-hostile-marker'];
const RUN_COMMANDS = new Set(['autobench.runBaseline', 'autobench.runCandidate', 'autobench.runAll']);

function planUri(): vscode.Uri {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  assert.ok(folder, 'no workspace folder');
  return vscode.Uri.file(path.join(folder, 'plans', 'hostile.autobench.yaml'));
}

interface Refusal {
  refused?: string;
  message?: string;
}

test('the workspace opened in Restricted Mode, and the extension is active in it', async () => {
  assert.equal(vscode.workspace.isTrusted, false, 'the test host opened the workspace trusted');
  await extension().activate();
  assert.equal(extension().isActive, true);
});

test('diagnostics and lenses still work; no lens runs anything: one "Restricted Mode" lens per framework opens trust management', async () => {
  const uri = planUri();
  await open(uri);
  const lenses = await waitFor('the plan\'s code lenses', async () => {
    const all = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100);
    return (all ?? []).some((l) => /^\d+ candidates?/.test(l.command?.title ?? '')) ? all : undefined;
  });
  const titles = lenses.map((l) => `${l.command?.title} -> ${l.command?.command}`);
  assert.deepEqual(lenses.filter((l) => RUN_COMMANDS.has(l.command?.command ?? '') || /^Run /.test(l.command?.title ?? '')).map((l) => l.command?.title), [], `run lenses in Restricted Mode: ${JSON.stringify(titles)}`);
  const restricted = lenses.filter((l) => l.command?.title === RESTRICTED_LENS_TITLE);
  assert.equal(restricted.length, 1, JSON.stringify(titles));
  assert.equal(restricted[0]?.command?.command, MANAGE_TRUST);
  assert.ok(lenses.some((l) => l.command?.title === 'Show commands'), JSON.stringify(titles));
  // The language server checks the plan as usual: its budget warning is there.
  await waitFor('the plan\'s diagnostics', () => vscode.languages.getDiagnostics(uri).some((d) => d.source === 'autobench' && /search_space has 2 combinations/.test(d.message)));
  // Show commands still opens the listing (it runs nothing).
  const listing = await vscode.commands.executeCommand<string | undefined>('autobench.showCandidates', uri, 'sglang');
  assert.ok(listing, 'Show commands opened nothing');
});

test('every command that would run or connect refuses with "trust this workspace to …", even with an explicit target; the marker never appears', async () => {
  const uri = planUri().toString();
  const calls: Array<[string, unknown[]]> = [
    ['autobench.runBaseline', [uri, 'sglang', { wait: true, target: 'local', ifErrors: 'run' }]],
    ['autobench.runBaseline', [uri, 'sglang', { wait: true, target: 'sim', ifErrors: 'run' }]],
    ['autobench.runCandidate', [uri, 'sglang', { wait: true, target: 'local', candidate: 'baseline', ifErrors: 'run' }]],
    ['autobench.runAll', [uri, 'sglang', { wait: true, ifErrors: 'run' }]],
    ['autobench.captureHelp', [uri, { target: 'local' }]],
    ['autobench.checkTarget', [uri, { target: 'local' }]],
    ['autobench.selectTarget', []],
    ['autobench.rerunRun', [path.join(path.dirname(planUri().fsPath), 'no-such-run'), { wait: true, target: 'local' }]],
    ['autobench.resumeRun', [path.join(path.dirname(planUri().fsPath), 'no-such-run'), { wait: true, target: 'local' }]],
  ];
  for (const [id, args] of calls) {
    const r = await vscode.commands.executeCommand<Refusal | undefined>(id, ...args);
    assert.equal(r?.refused, 'untrusted', `${id} did not refuse: ${JSON.stringify(r)}`);
    assert.match(r.message ?? '', /^Autobench: trust this workspace to [a-z-]/, id);
  }
  // "Run" from the candidate pick is refused the same way.
  const picked = await vscode.commands.executeCommand<{ result?: Refusal } | undefined>('autobench.pickCandidate', uri, 'sglang', { candidate: 'baseline', action: 'run' });
  assert.equal(picked?.result?.refused, 'untrusted', JSON.stringify(picked));
  for (const m of MARKERS) assert.equal(existsSync(m), false, `${m} exists: the hostile server_command ran`);
  const runs = path.join(path.dirname(path.dirname(planUri().fsPath)), 'autobench-runs');
  assert.equal(existsSync(runs), false, 'a run folder was created');
});

test('the workspace\'s run target, hosts and Slurm settings are not in effect (VS Code and the extension ignore them)', async () => {
  await extension().activate();
  const config = vscode.workspace.getConfiguration('autobench');
  assert.equal(config.get('run.target'), 'sim');
  assert.equal(config.get('target'), 'sim');
  assert.deepEqual(config.get('run.hosts'), []);
  assert.deepEqual(config.get('hosts'), []);
  assert.equal(config.get('slurm.simOnNodes'), false);
  const s = readSettings();
  assert.equal(s.run.target, 'sim');
  assert.deepEqual(s.run.hosts, []);
  assert.deepEqual(s.slurm, { maxParallel: 4, simOnNodes: false });
});
