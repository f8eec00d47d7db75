// Test workspace helpers: copies of a config shipped inside the extension package, with planted edits.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { DIAGNOSTIC_SOURCE } from '../../../src/shared/protocol';

export const EXTENSION_ID = 'autobench.llm-serving-autobench';
export const SHIPPED_CONFIG = 'configs/cookbook-llm/qwen3-235b-a22b.yaml';

export function extension(): vscode.Extension<unknown> {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  if (!ext) throw new Error(`extension ${EXTENSION_ID} is not loaded`);
  return ext;
}

/** The config as the .vsix ships it (read from the installed extension folder, not the source tree). */
export function shippedConfigText(): string {
  return readFileSync(path.join(extension().extensionPath, SHIPPED_CONFIG), 'utf8');
}

function workspaceRoot(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('the test host opened no workspace folder');
  return folder.uri.fsPath;
}

/** Writes `text` to <workspace>/cookbook-llm/<name> (the layout the include globs expect) and returns its uri. */
export function writeConfig(name: string, text: string): vscode.Uri {
  const file = path.join(workspaceRoot(), 'cookbook-llm', name);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return vscode.Uri.file(file);
}

/** 0-based index of the first line matching `re` at or after `from`. */
export function lineIndex(lines: string[], re: RegExp, from = 0): number {
  for (let i = from; i < lines.length; i++) if (re.test(lines[i] ?? '')) return i;
  throw new Error(`no line matches ${String(re)}`);
}

/** 0-based line of `frameworks.vllm.base_server_flags:` in `text`. */
export function vllmBaseFlagsLine(text: string): number {
  const lines = text.split('\n');
  return lineIndex(lines, /^ {4}base_server_flags:\s*$/, lineIndex(lines, /^ {2}vllm:\s*$/));
}

/** Inserts `line` as the first entry of the vLLM base_server_flags; returns the new text and the line's 0-based index. */
export function plantUnderVllmBaseFlags(text: string, line: string): { text: string; line: number } {
  const lines = text.split('\n');
  const at = vllmBaseFlagsLine(text) + 1;
  lines.splice(at, 0, line);
  return { text: lines.join('\n'), line: at };
}

export async function open(uri: vscode.Uri): Promise<vscode.TextDocument> {
  const doc = await vscode.workspace.openTextDocument(uri);
  await vscode.window.showTextDocument(doc, { preview: false });
  return doc;
}

/** Our diagnostics (source autobench) currently shown for `uri`. */
export function ourDiagnostics(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === DIAGNOSTIC_SOURCE);
}

export const describe = (d: vscode.Diagnostic): string => `${d.range.start.line}:${d.range.start.character} ${d.message}`;
