// Every autobench setting (name, deprecated alias, default, type) and the rule that picks its value: vscode-free, so unit tests call it.
import { DEFAULT_SETTINGS, type ServerSettings } from '../shared/protocol';

/** What `WorkspaceConfiguration.inspect()` returns, as far as the alias rule reads it. */
export interface InspectLike {
  defaultValue?: unknown;
  globalValue?: unknown;
  workspaceValue?: unknown;
  workspaceFolderValue?: unknown;
  globalLanguageValue?: unknown;
  workspaceLanguageValue?: unknown;
  workspaceFolderLanguageValue?: unknown;
}

/** Reads one key under `autobench.` (e.g. `run.target`); undefined when the key is not declared. */
export type InspectFn = (key: string) => InspectLike | undefined;

export interface SettingSpec<T> {
  /** The name under `autobench.`: `<area>.<name>`. */
  readonly key: string;
  /** The old, deprecated name still honoured when the new one is not set. */
  readonly alias?: string;
  readonly defaultValue: T;
  readonly is: (v: unknown) => v is T;
}

const isString = (v: unknown): v is string => typeof v === 'string';
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every(isString);
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isPositiveInt = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 1;

export const SETTINGS = {
  helpDir: { key: 'snapshots.helpDir', alias: 'helpDir', defaultValue: DEFAULT_SETTINGS.helpDir, is: isString } satisfies SettingSpec<string>,
  include: { key: 'configs.include', defaultValue: DEFAULT_SETTINGS.include, is: isStringArray } satisfies SettingSpec<string[]>,
  debounceMs: { key: 'diagnostics.debounceMs', defaultValue: DEFAULT_SETTINGS.debounceMs, is: isNumber } satisfies SettingSpec<number>,
  target: { key: 'run.target', alias: 'target', defaultValue: 'sim', is: isString } satisfies SettingSpec<string>,
  hosts: { key: 'run.hosts', alias: 'hosts', defaultValue: [] as string[], is: isStringArray } satisfies SettingSpec<string[]>,
  slurmMaxParallel: { key: 'slurm.maxParallel', defaultValue: 4, is: isPositiveInt } satisfies SettingSpec<number>,
  slurmSimOnNodes: { key: 'slurm.simOnNodes', defaultValue: false, is: isBoolean } satisfies SettingSpec<boolean>,
} as const;

/**
 * The settings that choose where code runs or where secrets go (target, hosts, Slurm jobs), aliases included:
 * package.json declares them `restrictedConfigurations`, so VS Code ignores a workspace's values in Restricted Mode;
 * resolveSettings ignores them there too, whatever the editor hands it.
 */
export const RESTRICTED_SETTINGS: readonly string[] = [SETTINGS.target, SETTINGS.hosts, SETTINGS.slurmMaxParallel, SETTINGS.slurmSimOnNodes].flatMap((s: SettingSpec<unknown>) => [s.key, ...(s.alias ? [s.alias] : [])]);

/** The user's own levels of a value: what a workspace set (folder, workspace, their language overrides) left out. */
function userLevelsOnly(inspected: InspectLike | undefined): InspectLike | undefined {
  return inspected && { defaultValue: inspected.defaultValue, globalValue: inspected.globalValue, globalLanguageValue: inspected.globalLanguageValue };
}

/** The settings as the extension uses them, grouped by area like their names. */
export interface AutobenchSettings {
  snapshots: { helpDir: string };
  configs: { include: string[] };
  diagnostics: { debounceMs: number };
  run: { target: string; hosts: string[] };
  /** Read only when the target is `slurm[:PARTITION]`: candidates measured at once, and whether the jobs run the simulated engine. */
  slurm: { maxParallel: number; simOnNodes: boolean };
}

/**
 * The value the user set, at the level VS Code gives precedence (language-specific, then folder, workspace,
 * user); undefined when it is set nowhere. A value of the wrong type counts as not set.
 */
export function userValue<T>(inspected: InspectLike | undefined, is: (v: unknown) => v is T): T | undefined {
  if (!inspected) return undefined;
  const levels = [
    inspected.workspaceFolderLanguageValue,
    inspected.workspaceLanguageValue,
    inspected.globalLanguageValue,
    inspected.workspaceFolderValue,
    inspected.workspaceValue,
    inspected.globalValue,
  ];
  return levels.find((v): v is T => v !== undefined && is(v));
}

/** The alias rule: the new name if the user set it at any level, else the old name if set, else the default. */
export function resolveSetting<T>(spec: SettingSpec<T>, inspect: InspectFn): T {
  const own = userValue(inspect(spec.key), spec.is);
  if (own !== undefined) return own;
  const old = spec.alias === undefined ? undefined : userValue(inspect(spec.alias), spec.is);
  return old ?? spec.defaultValue;
}

/** Every setting; `trusted` false (Restricted Mode): a restricted setting's workspace levels do not count. */
export function resolveSettings(rawInspect: InspectFn, trusted = true): AutobenchSettings {
  const inspect: InspectFn = (key) => (trusted || !RESTRICTED_SETTINGS.includes(key) ? rawInspect(key) : userLevelsOnly(rawInspect(key)));
  return {
    snapshots: { helpDir: resolveSetting(SETTINGS.helpDir, inspect) },
    configs: { include: resolveSetting(SETTINGS.include, inspect) },
    diagnostics: { debounceMs: resolveSetting(SETTINGS.debounceMs, inspect) },
    run: { target: resolveSetting(SETTINGS.target, inspect), hosts: resolveSetting(SETTINGS.hosts, inspect) },
    slurm: { maxParallel: resolveSetting(SETTINGS.slurmMaxParallel, inspect), simOnNodes: resolveSetting(SETTINGS.slurmSimOnNodes, inspect) },
  };
}

/** The RunOptions a `slurm[:PARTITION]` target takes from the slurm settings; nothing on other targets (the runner's defaults hold). */
export function slurmRunOptions(target: string, s: AutobenchSettings['slurm']): { maxParallel?: number; simOnNodes?: boolean } {
  if (target !== 'slurm' && !target.startsWith('slurm:')) return {};
  return { maxParallel: s.maxParallel, ...(s.simOnNodes ? { simOnNodes: true } : {}) };
}

/** What the language server is pushed (src/shared/protocol.ts): it reads no settings itself. */
export function serverSettingsOf(s: AutobenchSettings): ServerSettings {
  return { helpDir: s.snapshots.helpDir, include: s.configs.include, debounceMs: s.diagnostics.debounceMs };
}
