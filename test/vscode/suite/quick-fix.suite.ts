// Quick fix end to end: the "Remove" fix for an unknown flag, applied through VS Code, restores the config and clears it.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { test, waitFor } from './harness';
import { open, ourDiagnostics, plantUnderVllmBaseFlags, shippedConfigText, writeConfig } from './workspace';

test('the Remove quick fix deletes an unknown flag and the diagnostic clears', async () => {
  const original = shippedConfigText();
  const planted = plantUnderVllmBaseFlags(original, '      long_prefill_token_thresholdd: 1');
  const uri = writeConfig('quick-fix.yaml', planted.text);
  const doc = await open(uri);
  const message = "vllm: unknown or unsupported server flag 'long_prefill_token_thresholdd'";
  const diag = await waitFor(`diagnostic "${message}"`, () => ourDiagnostics(uri).find((d) => d.message === message));

  const actions = await waitFor('code actions for the diagnostic', async () => {
    const got = await vscode.commands.executeCommand<Array<vscode.CodeAction | vscode.Command>>(
      'vscode.executeCodeActionProvider', uri, diag.range, undefined, 20);
    return got?.length ? got : undefined;
  });
  const titles = actions.map((a) => a.title);
  const fix = actions.find((a) => a.title.startsWith('Remove'));
  assert.ok(fix, `no "Remove …" action among ${JSON.stringify(titles)}`);
  // A plain Command has a string `command`; a CodeAction carries an optional edit and an optional Command.
  const asCommand = typeof fix.command === 'string' ? (fix as vscode.Command) : undefined;
  const action = asCommand ? undefined : (fix as vscode.CodeAction);
  if (action?.edit) assert.ok(await vscode.workspace.applyEdit(action.edit), 'applyEdit refused the fix');
  const command = asCommand ?? action?.command;
  if (command) await vscode.commands.executeCommand(command.command, ...((command.arguments ?? []) as unknown[]));
  assert.ok(action?.edit || command, `"${fix.title}" has neither an edit nor a command`);

  assert.ok(!doc.getText().includes('long_prefill_token_thresholdd'), 'the flag is still in the text');
  assert.equal(doc.getText(), original, 'removing the planted line should give back the shipped config');
  await waitFor('the diagnostic to clear', () => !ourDiagnostics(uri).some((d) => d.message === message));
  await doc.save();
});
