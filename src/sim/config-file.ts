// SGLang's `--config FILE`: a YAML mapping of server flags read before the command line, which wins over it (SGLang's own rule); the simulator expands it into flags so the rest of its parsing is unchanged.
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { FrameworkKey } from '../core/frameworks/types';

/** Frameworks whose server reads `--config FILE` (SGLang since 0.5.3). */
const READS_CONFIG: ReadonlySet<FrameworkKey> = new Set(['sglang']);

export class ConfigFileError extends Error {}

function flagWords(key: string, value: unknown): string[] {
  const flag = `--${key.replace(/_/g, '-')}`;
  if (value === true) return [flag];
  if (value === false || value === null || value === undefined) return [];
  const word = (v: unknown): string => (typeof v === 'object' && v !== null ? JSON.stringify(v) : String(v));
  if (Array.isArray(value)) return [flag, ...value.map(word)];
  return [flag, word(value)];
}

/** The `--config FILE` path of an argv (the last one), or undefined. */
function configPath(argv: readonly string[]): string | undefined {
  let path: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--config') path = argv[++i];
    else if (a.startsWith('--config=')) path = a.slice('--config='.length);
  }
  return path;
}

/**
 * SGLang's error for a `--config` file that is not on this node (a file written on another host), as its parser raises it:
 * `if not path.exists(): raise ValueError(f"Config file not found: {file_path}")` (sgl-project/sglang
 * python/sglang/srt/server_args_config_parser.py @03bd2f16), uncaught: a traceback and exit status 1.
 */
export function missingConfigFile(fw: FrameworkKey, argv: readonly string[]): string | undefined {
  if (!READS_CONFIG.has(fw)) return undefined;
  const path = configPath(argv);
  if (path === undefined || existsSync(path)) return undefined;
  return [
    'Traceback (most recent call last):',
    '  File "<frozen runpy>", line 198, in _run_module_as_main',
    '  File "sglang/srt/server_args_config_parser.py", in _parse_config_file (simulated)',
    `ValueError: Config file not found: ${path}`,
  ].join('\n');
}

/** argv with `--config FILE` replaced by the file's flags, placed first so the command line's own flags win. */
export function expandConfigFile(fw: FrameworkKey, argv: readonly string[]): string[] {
  if (!READS_CONFIG.has(fw)) return [...argv];
  const rest: string[] = [];
  let path: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    if (a === '--config') path = argv[++i];
    else if (a.startsWith('--config=')) path = a.slice('--config='.length);
    else rest.push(a);
  }
  if (path === undefined) return rest;
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(path, 'utf8'));
  } catch (e) {
    throw new ConfigFileError(`error: cannot read the config file ${path}: ${(e as Error).message}`);
  }
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new ConfigFileError(`error: the config file ${path} must be a YAML mapping of server arguments`);
  return [...Object.entries(doc as Record<string, unknown>).flatMap(([k, v]) => flagWords(k, v)), ...rest];
}
