// The extension's commands are registered once it is active.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { test } from './harness';
import { extension } from './workspace';

test('the autobench commands are registered', async () => {
  await extension().activate();
  const all = new Set(await vscode.commands.getCommands(true));
  const ids = ['autobench.showCandidates', 'autobench.validateWorkspace', 'autobench.openSummary', 'autobench.runBaseline', 'autobench.runCandidate', 'autobench.runAll', 'autobench.cancelRun', 'autobench.selectTarget', 'autobench.setHfToken', 'autobench.captureHelp'];
  for (const id of ids) assert.ok(all.has(id), `${id} is not registered`);
});
