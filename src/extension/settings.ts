// The one place the extension reads and writes autobench settings; names, aliases and the alias rule live in settings-model.ts.
import * as vscode from 'vscode';
import type { ServerSettings } from '../shared/protocol';
import { resolveSettings, serverSettingsOf, SETTINGS, type AutobenchSettings, type SettingSpec } from './settings-model';

const SECTION = 'autobench';

/** Every setting, resolved now (new name, else its deprecated alias, else the default); in Restricted Mode without a workspace's value of a restricted setting. */
export function readSettings(): AutobenchSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return resolveSettings((key) => config.inspect(key), vscode.workspace.isTrusted);
}

/** The settings the language server is pushed, at start and on every change. */
export function readServerSettings(): ServerSettings {
  return serverSettingsOf(readSettings());
}

/** True when a configuration change touches any autobench setting (new names and aliases alike). */
export function affectsSettings(e: vscode.ConfigurationChangeEvent): boolean {
  return e.affectsConfiguration(SECTION);
}

/** Writes always go to the new name, so it wins over an alias the user may still have set. */
async function write<T>(spec: SettingSpec<T>, value: T | undefined, target: vscode.ConfigurationTarget): Promise<void> {
  await vscode.workspace.getConfiguration(SECTION).update(spec.key, value, target);
}

/** Points the server at a folder of --help snapshots (workspace setting). */
export function writeHelpDir(dir: string): Promise<void> {
  return write(SETTINGS.helpDir, dir, vscode.ConfigurationTarget.Workspace);
}

/** The target the Run lenses use (workspace setting). */
export function writeRunTarget(target: string): Promise<void> {
  return write(SETTINGS.target, target, vscode.ConfigurationTarget.Workspace);
}
