// Completion end to end: a vLLM server flag is offered at a new key under frameworks.vllm.base_server_flags.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { test, waitFor } from './harness';
import { open, shippedConfigText, vllmBaseFlagsLine, writeConfig } from './workspace';

const labelOf = (item: vscode.CompletionItem): string => (typeof item.label === 'string' ? item.label : item.label.label);

test('completion under vllm base_server_flags offers max_num_seqs', async () => {
  const text = shippedConfigText();
  const uri = writeConfig('completion.yaml', text);
  const doc = await open(uri);
  const line = vllmBaseFlagsLine(text) + 1;
  const edit = new vscode.WorkspaceEdit();
  edit.insert(uri, new vscode.Position(line, 0), '      \n');
  assert.ok(await vscode.workspace.applyEdit(edit));
  assert.equal(doc.lineAt(line).text, '      ');
  const position = new vscode.Position(line, 6);
  const item = await waitFor('a max_num_seqs completion item', async () => {
    const list = await vscode.commands.executeCommand<vscode.CompletionList>('vscode.executeCompletionItemProvider', uri, position);
    // Kind Text is VS Code's word-based fallback (the word occurs in the file's search_space); it does not count.
    return list?.items.find((i) => labelOf(i) === 'max_num_seqs' && i.kind !== vscode.CompletionItemKind.Text);
  });
  assert.equal(labelOf(item), 'max_num_seqs');
});
