// Code lenses end to end: "N candidates", "Show commands" and the Run lenses above each enabled framework, with the
// counts and the command strings `autobench validate --json` gives for the same file.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import * as vscode from 'vscode';
import { checkConfigText } from '../../../src/core/config/check';
import { screenshot, test, waitFor } from './harness';
import { extension, open, shippedConfigText, writeConfig } from './workspace';

const CANDIDATES = /^(\d+) candidates?$/;

/** The listing's commands joined back from their `\` continuations. */
const unwrap = (t: string): string => t.replace(/ \\\n {2}/g, ' ');

async function lensesOf(uri: vscode.Uri, wanted: number): Promise<vscode.CodeLens[]> {
  return waitFor(`${wanted} "N candidates" code lenses`, async () => {
    // The count asks VS Code to resolve lenses whose command the server fills in lazily.
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>('vscode.executeCodeLensProvider', uri, 100);
    const titled = (lenses ?? []).filter((l) => l.command?.title);
    return titled.filter((l) => CANDIDATES.test(l.command?.title ?? '')).length >= wanted ? titled : undefined;
  });
}

/** The framework whose key (`  <name>:`) is at or above `line`. */
function frameworkAt(doc: vscode.TextDocument, line: number): string | undefined {
  for (let i = line; i >= 0; i--) {
    const m = /^ {2}([A-Za-z0-9_]+):\s*$/.exec(doc.lineAt(i).text);
    if (m) return m[1];
  }
  return undefined;
}

test('code lenses show each enabled framework\'s candidate count, a Show commands lens and the Run lenses', async () => {
  const text = shippedConfigText();
  const plans = checkConfigText(text, { kind: 'auto' }).candidateLists;
  assert.ok(plans.length > 0, 'the shipped config should enable frameworks');
  const uri = writeConfig('code-lens.yaml', text);
  const doc = await open(uri);
  const lenses = await lensesOf(uri, plans.length);
  const titles = lenses.map((l) => l.command?.title ?? '');
  const counts = lenses.filter((l) => CANDIDATES.test(l.command?.title ?? ''));
  assert.deepEqual(
    counts.map((l) => `${frameworkAt(doc, l.range.start.line)} ${l.command?.title}`).sort(),
    plans.map((p) => `${p.framework} ${p.candidates.length} candidate${p.candidates.length === 1 ? '' : 's'}`).sort(),
    `lens titles: ${JSON.stringify(titles)}`,
  );
  assert.equal(titles.filter((t) => t === 'Show commands').length, plans.length, `lens titles: ${JSON.stringify(titles)}`);
  // The run lenses: one of each per framework, running its command with [uri, framework].
  for (const [title, command] of [['Run baseline', 'autobench.runBaseline'], ['Run candidate…', 'autobench.runCandidate'], ['Run all', 'autobench.runAll']] as const) {
    const runs = lenses.filter((l) => l.command?.title === title);
    assert.deepEqual(runs.map((l) => frameworkAt(doc, l.range.start.line)).sort(), plans.map((p) => p.framework).sort(), `${title} lenses: ${JSON.stringify(titles)}`);
    for (const l of runs) {
      assert.equal(l.command?.command, command);
      assert.deepEqual(l.command?.arguments, [uri.toString(), frameworkAt(doc, l.range.start.line)]);
    }
  }
  // The README's picture of the lenses: the config alone in the window, its first framework's lenses near the top.
  await vscode.commands.executeCommand('workbench.action.closeSidebar');
  const first = Math.min(...counts.map((l) => l.range.start.line));
  const editor = await vscode.window.showTextDocument(doc);
  editor.revealRange(new vscode.Range(Math.max(0, first - 3), 0, Math.max(0, first - 3), 0), vscode.TextEditorRevealType.AtTop);
  await new Promise((r) => setTimeout(r, 500));
  await screenshot('config-lenses');
});

test('the Show commands lens opens a document listing the framework\'s exact candidate commands', async () => {
  const text = shippedConfigText();
  const plans = checkConfigText(text, { kind: 'auto' }).candidateLists;
  const uri = writeConfig('show-commands.yaml', text);
  const doc = await open(uri);
  const lenses = await lensesOf(uri, plans.length);
  const lens = lenses.find((l) => l.command?.title === 'Show commands');
  assert.ok(lens?.command, 'no Show commands lens');
  const framework = frameworkAt(doc, lens.range.start.line);
  const expected = plans.find((p) => p.framework === framework)?.candidates.map((c) => c.command);
  assert.ok(expected?.length, `no candidates for the framework at line ${lens.range.start.line} (${framework})`);
  await vscode.commands.executeCommand(lens.command.command, ...((lens.command.arguments ?? []) as unknown[]));
  const listing = await waitFor('a document with every candidate command', () =>
    vscode.workspace.textDocuments.find((d) => d.uri.scheme !== 'file' && expected.every((c) => unwrap(d.getText()).includes(c))));
  // Wrapped for reading: one option per line with a `\` continuation.
  assert.match(listing.getText(), / \\\n {2}--/);
});

test('the "N candidates" lens picks a candidate, then copies its exact command or opens it in the listing', async () => {
  const text = shippedConfigText();
  const plans = checkConfigText(text, { kind: 'auto' }).candidateLists;
  const uri = writeConfig('pick-candidate.yaml', text);
  const doc = await open(uri);
  const lenses = await lensesOf(uri, plans.length);
  const lens = lenses.find((l) => CANDIDATES.test(l.command?.title ?? ''));
  assert.ok(lens?.command);
  assert.equal(lens.command.command, 'autobench.pickCandidate');
  const framework = frameworkAt(doc, lens.range.start.line);
  const c1 = plans.find((p) => p.framework === framework)?.candidates[1];
  assert.ok(c1, `no second candidate for ${framework}`);
  const args = (lens.command.arguments ?? []) as unknown[];
  const copied = await vscode.commands.executeCommand<{ action: string } | undefined>(lens.command.command, ...args, { candidate: c1.id, action: 'copy' });
  assert.equal(copied?.action, 'copy');
  assert.equal(await vscode.env.clipboard.readText(), c1.command);
  await vscode.commands.executeCommand(lens.command.command, ...args, { candidate: c1.id, action: 'open' });
  const editor = await waitFor('the listing with the cursor on the candidate', () => {
    const e = vscode.window.activeTextEditor;
    return e && e.document.uri.scheme !== 'file' && e.document.lineAt(e.selection.active.line).text.startsWith(`# ${c1.id}`) ? e : undefined;
  });
  assert.ok(unwrap(editor.document.getText()).includes(c1.command));
});

test("a P/D unit's Show commands lists every process of the unit, each with its exact command, in start order", async () => {
  const text = readFileSync(join(extension().extensionPath, 'configs/examples/disagg.plan.yaml'), 'utf8');
  const plans = checkConfigText(text, { kind: 'auto' }).candidateLists;
  const units = plans.flatMap((p) => p.candidates.filter((c) => c.unit));
  assert.ok(units.length >= 2, 'the example plan should list P/D units');
  const uri = writeConfig('disagg.plan.yaml', text);
  await open(uri);
  const lenses = await lensesOf(uri, plans.length);
  for (const lens of lenses.filter((l) => l.command?.title === 'Show commands')) {
    const args = (lens.command?.arguments ?? []) as unknown[];
    const framework = String(args[1]);
    const mine = units.filter((c) => c.framework === framework);
    assert.ok(mine.length, `no units for ${framework}`);
    await vscode.commands.executeCommand(lens.command?.command ?? '', ...args);
    const listing = await waitFor(`the ${framework} listing with every unit process`, () =>
      vscode.workspace.textDocuments.find((d) => d.uri.scheme !== 'file' && d.getText().includes(`## `) && mine.every((c) => c.unit?.processes.every((p) => unwrap(d.getText()).includes(`\n${p.command}\n`)))),
    );
    const body = unwrap(listing.getText());
    for (const c of mine) {
      const at = c.unit?.processes.map((p) => body.indexOf(`\n${p.command}\n`, body.indexOf(`# ${c.id}: P/D unit`))) ?? [];
      assert.deepEqual([...at].sort((a, b) => a - b), at, `${c.id}: its processes in start order, the router last`);
      assert.match(body, new RegExp(`# {3}${c.id} router \\(the load client talks to it\\), port \\d+\\n`));
    }
  }
});
