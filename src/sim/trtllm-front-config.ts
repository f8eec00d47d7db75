// `trtllm-serve disaggregated` on the simulator, its command line and config: the options serve.py @00209af1 defines
// (-c/--config_file, -m, -t, -r, -l, --metrics-log-interval), the YAML's hostname, port and context/generation server
// sections (num_instances, urls, router.type) as disagg_utils.py @3e53e4ad reads them, and its --help (labelled simulated).
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { extractSimOptions, SimOptionError, type SimOptions } from './options';

export class FrontEndUsageError extends Error {}
/** The config is read and refused as the engine does (a Python ValueError at startup: exit 1). */
export class FrontEndConfigError extends Error {}

export type FrontRole = 'ctx' | 'gen';

export interface FrontServers {
  urls: string[];
  router: string;
}

export interface FrontEndArgs {
  configFile: string;
  startTimeoutS: number;
  requestTimeoutS: number;
  host: string;
  port: number;
  maxRetries: number;
  ctx: FrontServers;
  gen: FrontServers;
  sim: SimOptions;
  portOverride: number | undefined;
}

/** Its options, as `trtllm-serve disaggregated --help` (click) lists them. */
const OPTIONS: Array<[string, string, string]> = [
  ['-c, --config_file TEXT', 'Specific option for disaggregated mode.', ''],
  ['-m, --metadata_server_config_file TEXT', 'Path to metadata server config file', ''],
  ['-t, --server_start_timeout INTEGER', 'Server start timeout', '180'],
  ['-r, --request_timeout INTEGER', 'Request timeout', '180'],
  ['-l, --log_level [internal_error|error|warning|info|verbose|debug|trace]', 'The logging level.', 'info'],
  ['--metrics-log-interval INTEGER', 'The interval of logging metrics in seconds. Set to 0 to disable metrics logging.', '0'],
];

export const FRONT_END_VERSION = '1.2.0+autobench.sim';

export function frontEndHelp(): string {
  const lines = ['Usage: trtllm-serve disaggregated [OPTIONS]', '', '  Running server in disaggregated mode (autobench-sim: SIMULATED front end; nothing it measures is a GPU result)', '', 'Options:'];
  for (const [o, h, d] of OPTIONS) lines.push(`  ${o}`, `      ${h}${d ? `  [default: ${d}]` : ''}`);
  lines.push('  --help  Show this message and exit.', '');
  return lines.join('\n');
}

const NAMES: Record<string, string> = {
  '-c': 'config_file', '--config_file': 'config_file', '-m': 'metadata', '--metadata_server_config_file': 'metadata',
  '-t': 'start', '--server_start_timeout': 'start', '-r': 'request', '--request_timeout': 'request',
  '-l': 'log_level', '--log_level': 'log_level', '--metrics-log-interval': 'metrics',
};

function intOption(name: string, v: string): number {
  if (!/^-?\d+$/.test(v)) throw new FrontEndUsageError(`Invalid value for '${name}': '${v}' is not a valid integer.`);
  return Number(v);
}

/** The options of the argv (after `disaggregated`), click's way: `-c FILE`, `--config_file FILE` or `--config_file=FILE`. */
function readOptions(argv: readonly string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    const eq = a.startsWith('--') ? a.indexOf('=') : -1;
    const flag = eq > 0 ? a.slice(0, eq) : a;
    const key = NAMES[flag];
    if (!key) throw new FrontEndUsageError(a.startsWith('-') ? `No such option: ${flag}` : `Got unexpected extra argument (${a})`);
    const v = eq > 0 ? a.slice(eq + 1) : argv[++i];
    if (v === undefined) throw new FrontEndUsageError(`Option '${flag}' requires an argument.`);
    out.set(key, v);
    if (key === 'start' || key === 'request' || key === 'metrics') intOption(flag, v);
  }
  return out;
}

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === 'object' && x !== null && !Array.isArray(x);

function servers(doc: Obj, key: string, type: string): FrontServers {
  const raw = doc[key];
  const sec: Obj = isObj(raw) ? raw : {};
  const n = typeof sec.num_instances === 'number' ? sec.num_instances : 1;
  const urls = Array.isArray(sec.urls) ? sec.urls.map(String) : [];
  if (urls.length !== n) throw new FrontEndConfigError(`ValueError: Number of hostnames (${urls.length}) should be equal to the number of instances (${n})`);
  const router = isObj(sec.router) && typeof sec.router.type === 'string' ? sec.router.type : 'round_robin';
  if (!['round_robin', 'load_balancing', 'kv_cache_aware'].includes(router)) throw new FrontEndConfigError(`ValueError: Unsupported router type: ${router}`);
  if (urls.length === 0) throw new FrontEndConfigError(`ValueError: At least one ${type} server must be provided`);
  return { urls, router };
}

/** The argv and the config file it names; usage errors exit 2 (click), config errors 1. */
export function parseFrontEnd(argv: readonly string[], env: NodeJS.ProcessEnv): FrontEndArgs {
  let rest: string[];
  let sim: SimOptions;
  try {
    const o = extractSimOptions(argv, env);
    rest = o.rest;
    sim = o.options;
  } catch (e) {
    if (e instanceof SimOptionError) throw new FrontEndUsageError(e.message);
    throw e;
  }
  const o = readOptions(rest);
  const configFile = o.get('config_file');
  if (configFile === undefined) throw new FrontEndUsageError("Missing option '-c' / '--config_file' (autobench-sim: the simulated front end needs the config)");
  if (o.has('metadata')) throw new FrontEndUsageError('the simulated front end has no etcd metadata server: list the workers in the config');
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(configFile, 'utf8'));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new FrontEndConfigError(code === 'ENOENT' ? `FileNotFoundError: [Errno 2] No such file or directory: '${configFile}'` : `yaml: ${(e as Error).message}`);
  }
  const d = isObj(doc) ? doc : {};
  const hostname = typeof d.hostname === 'string' ? d.hostname : 'localhost';
  const maxRetries = typeof d.max_retries === 'number' ? d.max_retries : 1;
  if (maxRetries < 0) throw new FrontEndConfigError('ValueError: max_retries must be >= 0');
  return {
    configFile,
    startTimeoutS: Number(o.get('start') ?? 180),
    requestTimeoutS: Number(o.get('request') ?? 180),
    host: hostname === 'localhost' ? '127.0.0.1' : hostname,
    port: typeof d.port === 'number' ? d.port : 8000,
    maxRetries,
    gen: servers(d, 'generation_servers', 'generation'),
    ctx: servers(d, 'context_servers', 'context'),
    sim,
    portOverride: sim.port,
  };
}
