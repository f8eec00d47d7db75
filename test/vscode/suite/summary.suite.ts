// The summary panel opens on a rows file and reports back that it rendered every row.
import assert from 'node:assert/strict';
import { copyFileSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { test } from './harness';
import { extension } from './workspace';

// The suite bundle lives in <repo>/out/vscode-suite; the fixture is the results tests' own.
const FIXTURE = path.resolve(__dirname, '..', '..', 'test', 'core', 'results', 'fixtures', 'multi-framework.jsonl');

test('Open Benchmark Summary renders every row of a rows file in a webview', async () => {
  await extension().activate();
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  assert.ok(folder, 'no workspace folder');
  const rows = path.join(folder, 'rows.jsonl');
  copyFileSync(FIXTURE, rows);
  const expected = readFileSync(rows, 'utf8').split('\n').filter((l) => l.trim()).length;
  const opened = await vscode.commands.executeCommand<{ rowCount: number } | undefined>('autobench.openSummary', vscode.Uri.file(rows));
  assert.ok(opened, 'the command returned nothing');
  assert.equal(opened.rowCount, expected);
  const tab = vscode.window.tabGroups.activeTabGroup.activeTab;
  assert.ok(tab?.input instanceof vscode.TabInputWebview, 'the active tab is not the summary webview');
  assert.match(tab.label, /^Summary: rows\.jsonl$/);
});
