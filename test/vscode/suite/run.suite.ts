// "Run baseline" end to end in the real editor: the shipped demo plan on the simulated engine, run in the worker process, rows written, summary opened.
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { screenshot, test, waitFor } from './harness';
import { extension, open, plantUnderVllmBaseFlags } from './workspace';

const DEMO_PLAN = 'configs/examples/demo.plan.yaml';
/** A run's summary tab: the plan's name and the run's time (UTC). */
const RUN_TAB = /^Summary: demo\.plan · \d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/;

function folderPath(): string {
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  assert.ok(folder, 'no workspace folder');
  return folder;
}

/** The shipped demo plan (read from the installed extension) copied into the workspace, with dataset.num_prompts set. */
function demoPlan(numPrompts: number): string {
  const shipped = readFileSync(path.join(extension().extensionPath, DEMO_PLAN), 'utf8');
  const line = /^ {2}num_prompts: \d+$/m;
  assert.match(shipped, line, 'the demo plan has no dataset.num_prompts line to set');
  const text = shipped.replace(line, `  num_prompts: ${numPrompts}`);
  const file = path.join(folderPath(), 'plans', 'demo.plan.yaml');
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return file;
}

/** Opens the plan and waits for the lens titled `title` above frameworks.<framework>. */
async function lensAbove(uri: vscode.Uri, framework: string, title: string): Promise<vscode.CodeLens> {
  const doc = await open(uri);
  const line = doc.getText().split('\n').findIndex((l) => l === `  ${framework}:`);
  return waitFor(`a "${title}" lens above frameworks.${framework}`, async () => {
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100);
    return (lenses ?? []).find((l) => l.command?.title === title && l.range.start.line === line);
  });
}

interface RunResultLike {
  status: string;
  notice: { level: string; text: string };
  summaryCounts: string;
  problemAt?: { line: number; character: number };
  goTo?: vscode.Command;
  outDir: string;
  simulated: boolean;
  liveRows: number;
  rows: Array<{ framework?: string; candidate_id?: unknown; status?: string; simulated?: boolean; smoke?: boolean; trial?: { key?: string } }>;
}

test('Run baseline on the demo plan (target sim) writes rows and opens the summary panel', async () => {
  await extension().activate();
  const folder = folderPath();
  // Fewer prompts than the shipped plan so the run stays well inside the test's deadline.
  const file = demoPlan(10);

  // The lens the user clicks: "Run baseline" above frameworks.sglang, with its own arguments (plus the test's options).
  const uri = vscode.Uri.file(file);
  const lens = await lensAbove(uri, 'sglang', 'Run baseline');
  assert.ok(lens.command);
  assert.deepEqual(lens.command.arguments?.slice(1), ['sglang']);
  const result = await vscode.commands.executeCommand<RunResultLike | undefined>(lens.command.command, ...((lens.command.arguments ?? []) as unknown[]), { wait: true, target: 'sim', simSpeed: 20 });
  assert.ok(result, 'the command returned no run result');
  assert.equal(result.status, 'completed');
  assert.ok(result.simulated, 'a sim run must be labelled simulated');
  assert.equal(path.dirname(result.outDir), path.join(folder, 'autobench-runs'));
  // The other frameworks of the plan get a row each saying why they did not run (left out by the lens, or unsupported).
  const others = result.rows.filter((r) => r.framework !== 'sglang');
  assert.ok(others.every((r) => r.status === 'user_excluded' || r.status === 'skipped'), JSON.stringify(others.map((r) => `${r.framework} ${r.status}`)));
  const measured = result.rows.filter((r) => r.framework === 'sglang' && !r.smoke);
  assert.ok(measured.some((r) => r.status === 'ok'), `no ok sglang row: ${JSON.stringify(measured.map((r) => r.status))}`);
  for (const r of measured) {
    assert.equal(r.candidate_id, 'baseline');
    assert.equal(r.simulated, true);
  }
  const rowsFile = path.join(result.outDir, 'rows.jsonl');
  assert.ok(existsSync(rowsFile), 'rows.jsonl was not written');
  assert.equal(readFileSync(rowsFile, 'utf8').split('\n').filter((l) => l.trim()).length, result.rows.length);
  // The run executed in its own process (the run worker), not on this extension host's event loop; it still wrote summary.html.
  const manifest = JSON.parse(readFileSync(path.join(result.outDir, 'manifest.json'), 'utf8')) as { target?: { describe?: string } };
  const runnerPid = Number(/\(pid (\d+)\)/.exec(manifest.target?.describe ?? '')?.[1]);
  assert.ok(runnerPid > 0 && runnerPid !== process.pid, `the run's process ${manifest.target?.describe} vs the extension host pid ${process.pid}`);
  assert.ok(existsSync(path.join(result.outDir, 'summary.html')), 'summary.html was not written');

  // The summary counts candidates, not rows, trials apart, and the frameworks the lens left out as not in this run.
  assert.match(result.summaryCounts, /^1 candidate · 1 measured · (1|0) met the SLA · \d+ trials, \d+ within the SLA · not in this run: vllm, tensorrt_llm, tokenspeed$/);
  assert.doesNotMatch(result.summaryCounts, /fail/);
  assert.equal(result.notice.level, 'info', result.notice.text);
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
  assert.ok(tab?.input instanceof vscode.TabInputWebview, `the active tab is not a webview: ${tab?.label}`);
  // One panel per run, titled by its plan and time.
  assert.match(tab.label, RUN_TAB);
  const live = vscode.window.tabGroups.all.flatMap((g) => g.tabs).find((t) => t.label === 'Run: sglang baseline');
  assert.ok(live, 'the live run panel was not opened');
  // One live row per trial measured (rate-search rounds included): the page drew every one of them.
  const trials = new Set(measured.map((r) => JSON.stringify(r.trial?.key ?? null)));
  assert.ok(result.liveRows >= trials.size && trials.size > 0, `the live panel showed ${result.liveRows} rows for ${trials.size} trials`);
}, 90_000);

test('Run baseline with an unknown flag: the lens says "(1 error)", the run ends in a warning that names the flag, with its line to jump to', async () => {
  await extension().activate();
  const file = demoPlan(10);
  const planted = plantUnderVllmBaseFlags(readFileSync(file, 'utf8'), '      totally_bogus_flag: 1');
  writeFileSync(file, planted.text);
  const uri = vscode.Uri.file(file);
  const lens = await lensAbove(uri, 'vllm', 'Run baseline (1 error)');
  assert.ok(lens.command);
  // The lens would ask first (a modal); the test answers "Run Anyway" up front.
  const result = await vscode.commands.executeCommand<RunResultLike | undefined>(lens.command.command, ...((lens.command.arguments ?? []) as unknown[]), { wait: true, target: 'sim', simSpeed: 20, ifErrors: 'run' });
  assert.ok(result, 'the command returned no run result');
  assert.equal(result.status, 'completed');
  assert.equal(result.notice.level, 'warning', result.notice.text);
  assert.match(result.notice.text, /^Autobench: nothing was measured\. vllm baseline was skipped: unknown flag 'totally_bogus_flag'/);
  assert.match(result.notice.text, /1 candidate: 1 skipped · 0 trials · not in this run: sglang, tensorrt_llm/);
  assert.deepEqual(result.problemAt, { line: planted.line, character: 6 }, `the flag is on line ${planted.line + 1}`);
  // What the warning's "Go to Line" runs: the plan opens with the cursor on the flag.
  assert.equal(result.goTo?.title, 'Go to Line');
  await vscode.commands.executeCommand(result.goTo.command, ...((result.goTo.arguments ?? []) as unknown[]));
  const editor = vscode.window.activeTextEditor;
  assert.equal(editor?.document.uri.fsPath, file);
  assert.equal(editor?.selection.active.line, planted.line);
}, 90_000);

test('Capture help snapshots from target (sim) writes each framework\'s --help text and points autobench.snapshots.helpDir at them', async () => {
  await extension().activate();
  const folder = folderPath();
  const file = demoPlan(10);
  const config = vscode.workspace.getConfiguration('autobench');
  try {
    const files = await vscode.commands.executeCommand<string[] | undefined>('autobench.captureHelp', vscode.Uri.file(file), { target: 'sim' });
    assert.ok(files && files.length >= 2, `captured: ${JSON.stringify(files)}`);
    for (const f of files) {
      assert.equal(path.dirname(f), path.join(folder, 'help'));
      assert.match(readFileSync(f, 'utf8'), /--/, `${f} holds no flags`);
    }
    assert.equal(vscode.workspace.getConfiguration('autobench').get('snapshots.helpDir'), path.join(folder, 'help'));
  } finally {
    await config.update('snapshots.helpDir', undefined, vscode.ConfigurationTarget.Workspace);
  }
});

test('the deprecated autobench.helpDir still names the help folder while autobench.snapshots.helpDir is not set', async () => {
  await extension().activate();
  const folder = folderPath();
  const file = demoPlan(10);
  const config = vscode.workspace.getConfiguration('autobench');
  const oldDir = path.join(folder, 'old-help');
  await config.update('helpDir', oldDir, vscode.ConfigurationTarget.Workspace);
  try {
    const files = await vscode.commands.executeCommand<string[] | undefined>('autobench.captureHelp', vscode.Uri.file(file), { target: 'sim' });
    assert.ok(files && files.length >= 2, `captured: ${JSON.stringify(files)}`);
    for (const f of files) assert.equal(path.dirname(f), oldDir);
    // A folder was configured (through the alias), so capture wrote no setting.
    assert.equal(vscode.workspace.getConfiguration('autobench').inspect('snapshots.helpDir')?.workspaceValue, undefined);
  } finally {
    await config.update('helpDir', undefined, vscode.ConfigurationTarget.Workspace);
  }
});

test('Cancel the Running Benchmark stops a run midway, keeps its finished rows and still opens their summary', async () => {
  await extension().activate();
  const file = demoPlan(32);
  const runs = path.join(folderPath(), 'autobench-runs');
  const before = new Set(existsSync(runs) ? readdirSync(runs) : []);
  const pending = vscode.commands.executeCommand<RunResultLike | undefined>('autobench.runBaseline', vscode.Uri.file(file).toString(), 'sglang', { wait: true, target: 'sim', simSpeed: 10 });
  // Cancel once the first measured row is on disk, so the run is mid-way through its trials.
  await waitFor('the first sglang row of the new run', () => {
    const dir = existsSync(runs) ? readdirSync(runs).find((d) => !before.has(d)) : undefined;
    const rows = dir ? path.join(runs, dir, 'rows.jsonl') : undefined;
    return rows && existsSync(rows) && readFileSync(rows, 'utf8').includes('"framework":"sglang"');
  }, 60_000, 50);
  assert.equal(await vscode.commands.executeCommand('autobench.cancelRun'), true, 'no run to cancel');
  const result = await pending;
  assert.ok(result, 'the command returned no run result');
  assert.equal(result.status, 'cancelled');
  const kept = result.rows.filter((r) => r.framework === 'sglang' && !r.smoke);
  assert.ok(kept.length >= 1, 'the finished rows were not kept');
  assert.equal(readFileSync(path.join(result.outDir, 'rows.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).length, result.rows.length);
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
  assert.match(tab?.label ?? '', RUN_TAB);
  assert.equal(await vscode.commands.executeCommand('autobench.cancelRun'), false, 'a run is still marked as running');
}, 90_000);

test('the Runs view lists the runs newest first; reopening a summary reuses its tab; Compare runs opens on two runs; Resume continues a cancelled run in its folder, Run Again repeats one in a new one', async () => {
  await extension().activate();
  const listed = await vscode.commands.executeCommand<Array<{ label: string; description: string; dir: string }>>('autobench.refreshRuns');
  const root = path.join(folderPath(), 'autobench-runs');
  const dirs = readdirSync(root).filter((d) => existsSync(path.join(root, d, 'manifest.json')));
  assert.ok(dirs.length >= 3, `runs on disk: ${dirs.join(', ')}`);
  assert.deepEqual(listed.map((l) => path.basename(l.dir)).sort(), dirs.sort());
  for (const l of listed) assert.match(`Summary: ${l.label}`, RUN_TAB);
  // The newest is the cancelled run of the test before.
  assert.equal(listed[0]?.description, 'cancelled · sim · simulated');

  const done = listed.filter((l) => l.description === 'completed · sim · simulated');
  assert.ok(done.length >= 2, JSON.stringify(listed));
  const rows = path.join(done[0]?.dir ?? '', 'rows.jsonl');
  await vscode.commands.executeCommand('autobench.openSummary', rows);
  await vscode.commands.executeCommand('autobench.openSummary', rows);
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => t.label === `Summary: ${done[0]?.label}`);
  assert.equal(tabs.length, 1, 'opening a run again reuses its tab');

  const text = await vscode.commands.executeCommand<string | undefined>('autobench.compareRuns', done[0]?.dir, done[1]?.dir);
  assert.ok(text, 'Compare Runs returned nothing');
  assert.match(text, /^# Compare runs\n\n- A: demo\.plan · .*\n- B: demo\.plan · /);
  assert.match(text, /## chat\n\nWinner: A .* · B /);
  const editor = vscode.window.activeTextEditor;
  assert.equal(editor?.document.languageId, 'markdown');
  assert.equal(editor?.document.getText(), text);

  // Resume the cancelled run in its own folder: its finished trials are kept, none is measured twice.
  const cancelled = listed[0];
  assert.ok(cancelled);
  const keysBefore = readFileSync(path.join(cancelled.dir, 'rows.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).length;
  const resumed = await vscode.commands.executeCommand<RunResultLike | undefined>('autobench.resumeRun', cancelled.dir, { wait: true, target: 'sim', simSpeed: 20 });
  assert.ok(resumed, 'Resume Run returned nothing');
  assert.equal(resumed.status, 'completed');
  assert.equal(resumed.outDir, cancelled.dir);
  assert.ok(resumed.rows.length > keysBefore, `${resumed.rows.length} rows after resuming, ${keysBefore} before`);
  const keys = resumed.rows.filter((r) => r.trial?.key).map((r) => JSON.stringify(r.trial?.key));
  assert.equal(new Set(keys).size, keys.length, 'a trial was measured twice');
  assert.ok(resumed.rows.every((r) => r.framework === 'sglang' || r.status === 'user_excluded' || r.status === 'skipped'), 'the resume ran only what the run ran');

  // Run again: the same plan and scope (the first run's sglang baseline) into a new folder.
  const first = done[done.length - 1];
  assert.ok(first);
  const again = await vscode.commands.executeCommand<RunResultLike | undefined>('autobench.rerunRun', first.dir, { wait: true, target: 'sim', simSpeed: 20 });
  assert.ok(again, 'Run Again returned nothing');
  assert.notEqual(again.outDir, first.dir);
  assert.equal(path.dirname(again.outDir), root);
  const scopeOf = (rows: Array<{ framework?: unknown; candidate_id?: unknown; status?: unknown }>) => [...new Set(rows.filter((r) => r.status !== 'user_excluded' && r.status !== 'skipped').map((r) => `${String(r.framework)} ${String(r.candidate_id)}`))].sort();
  assert.deepEqual(scopeOf(again.rows), scopeOf(readRowsOf(first.dir)));
  assert.deepEqual(scopeOf(again.rows), ['sglang baseline']);
}, 180_000);

function readRowsOf(dir: string): Array<Record<string, unknown>> {
  return readFileSync(path.join(dir, 'rows.jsonl'), 'utf8').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l) as Record<string, unknown>);
}

test('the summary charts a run\'s trials against the offered rate, in the light and the dark theme (screenshots kept)', async () => {
  await extension().activate();
  const listed = await vscode.commands.executeCommand<Array<{ label: string; description: string; dir: string }>>('autobench.refreshRuns');
  // The oldest completed run: the sglang baseline of the first run test, a rate search with its trials.
  const run = [...listed].reverse().find((l) => l.description === 'completed · sim · simulated');
  assert.ok(run, JSON.stringify(listed));
  const rows = path.join(run.dir, 'rows.jsonl');
  const workbench = vscode.workspace.getConfiguration('workbench');
  const before = workbench.inspect<string>('colorTheme')?.globalValue;
  try {
    for (const [theme, name] of [['Default Light Modern', 'summary-charts-light'], ['Default Dark Modern', 'summary-charts-dark']] as const) {
      // The summary alone in the window, so that the charts get its width.
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      await vscode.commands.executeCommand('workbench.action.closeSidebar');
      await workbench.update('colorTheme', theme, vscode.ConfigurationTarget.Global);
      await new Promise((r) => setTimeout(r, 500));
      // Opening it again reuses the tab and draws the page in the theme's colours, scrolled to the charts.
      await vscode.commands.executeCommand('autobench.openSummary', rows, { reveal: 'charts-section' });
      await new Promise((r) => setTimeout(r, 500));
      await screenshot(name);
    }
  } finally {
    await workbench.update('colorTheme', before, vscode.ConfigurationTarget.Global);
  }
}, 60_000);

interface DoctorReportLike {
  ok: boolean;
  simulated: boolean;
  sections: Array<{ scope: string; checks: Array<{ name: string; status: string; detail: string; fix?: string }> }>;
}

test('Check Run Target (doctor) on sim: a clean plan can run; a flag the captured help does not list is a problem with its fix', async () => {
  await extension().activate();
  const file = demoPlan(10);
  const clean = await vscode.commands.executeCommand<DoctorReportLike | undefined>('autobench.checkTarget', vscode.Uri.file(file), { target: 'sim' });
  assert.ok(clean, 'the doctor command returned no report');
  assert.equal(clean.simulated, true);
  assert.equal(clean.ok, true, JSON.stringify(clean.sections.flatMap((s) => s.checks.filter((c) => c.status === 'problem'))));
  writeFileSync(file, plantUnderVllmBaseFlags(readFileSync(file, 'utf8'), '      totally_bogus_flag: 1').text);
  const planted = await vscode.commands.executeCommand<DoctorReportLike | undefined>('autobench.checkTarget', vscode.Uri.file(file), { target: 'sim' });
  assert.ok(planted, 'the doctor command returned no report');
  assert.equal(planted.ok, false);
  const vllm = planted.sections.find((s) => s.scope === 'vllm');
  const problem = vllm?.checks.find((c) => c.status === 'problem' && /totally[-_]bogus[-_]flag/.test(c.detail));
  assert.ok(problem, `no problem names the planted flag: ${JSON.stringify(vllm)}`);
  assert.ok(problem.fix && problem.fix.length > 0, 'the problem has no fix');
}, 90_000);
