// Outline end to end: VS Code accepts the server's document symbols (it rejects malformed ranges) and lists the frameworks
// with their candidate counts.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { checkConfigText } from '../../../src/core/config/check';
import { test, waitFor } from './harness';
import { open, shippedConfigText, writeConfig } from './workspace';

function flatten(symbols: vscode.DocumentSymbol[]): vscode.DocumentSymbol[] {
  return symbols.flatMap((s) => [s, ...flatten(s.children ?? [])]);
}

test('the outline lists the model, the scenarios and each framework with its candidate count', async () => {
  const text = shippedConfigText();
  const plans = checkConfigText(text, { kind: 'auto' }).candidateLists;
  const uri = writeConfig('outline.yaml', text);
  await open(uri);
  // VS Code drops every symbol of a provider whose result it rejects (e.g. a selectionRange outside its range), so an
  // empty answer here can mean malformed symbols: the extension host log shows VS Code's reason.
  const symbols = await waitFor('document symbols', async () => {
    const got = await vscode.commands.executeCommand<vscode.DocumentSymbol[]>('vscode.executeDocumentSymbolProvider', uri);
    return got?.length ? got : undefined;
  }, 10_000);
  const top = symbols.map((s) => s.name);
  for (const name of ['model', 'scenarios', 'frameworks']) assert.ok(top.includes(name), `top-level symbols: ${JSON.stringify(top)}`);
  const all = flatten(symbols);
  for (const p of plans) {
    const sym = all.find((s) => s.name === p.framework);
    assert.ok(sym, `no outline entry for ${p.framework}`);
    assert.match(`${sym.name} ${sym.detail}`, new RegExp(`\\b${p.candidates.length} candidates?\\b`), `${p.framework}: ${sym.detail}`);
    assert.ok(sym.range.contains(sym.selectionRange), `${p.framework}: selection outside the symbol's range`);
  }
});
