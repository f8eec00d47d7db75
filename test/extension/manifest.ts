// package.json's contributes section and the extension's sources as plain data, for tests that must not import vscode.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const REPO = resolve(__dirname, '..', '..');

export interface SettingDecl {
  type?: string;
  default?: unknown;
  pattern?: string;
  scope?: string;
  markdownDescription?: string;
  markdownDeprecationMessage?: string;
}

export interface Manifest {
  activationEvents?: string[];
  contributes: {
    commands: Array<{ command: string; title: string }>;
    menus?: Record<string, Array<{ command: string }>>;
    configuration: { properties: Record<string, SettingDecl> };
  };
}

export function manifest(): Manifest {
  return JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as Manifest;
}

/** Every src/extension module: file name -> source text. */
export function extensionSources(): Map<string, string> {
  const dir = join(REPO, 'src', 'extension');
  return new Map(
    readdirSync(dir)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => [f, readFileSync(join(dir, f), 'utf8')]),
  );
}
