// A small ~/.ssh/config reader: what `ssh HOST` would use for HostName, User, Port, IdentityFile, ProxyJump and host-key checking.
//
// OpenSSH's rules kept here: keywords are case-insensitive, `Key Value` or `Key=Value`, values may
// be double-quoted; for each keyword the first value that applies wins, except IdentityFile and
// UserKnownHostsFile which accumulate; `Host` takes patterns with `*`, `?` and `!negation`;
// `Include` is read in place (relative paths under ~/.ssh, a `*` glob in the file name);
// `Match` supports `all`, `host` and `originalhost` — a block with other criteria never applies
// (reported in `notes`). `%h %p %r %u %n %d %%` and a leading `~` are expanded where ssh does.
import { readdirSync, readFileSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { basename, dirname, isAbsolute, join } from 'node:path';

export interface JumpSpec {
  host: string;
  user?: string;
  port?: number;
}

export interface SshHostConfig {
  /** The name asked for (the `ssh:<alias>` part). */
  alias: string;
  hostName: string;
  port: number;
  user: string;
  /** Expanded paths, in config order; empty when none configured. */
  identityFiles: string[];
  identitiesOnly: boolean;
  proxyJump: JumpSpec[];
  userKnownHostsFiles: string[];
  strictHostKeyChecking?: string;
  hostKeyAlias?: string;
  serverAliveIntervalS?: number;
  serverAliveCountMax?: number;
  connectTimeoutS?: number;
  /** Set but unsupported by this client (it refuses to connect rather than ignore it). */
  proxyCommand?: string;
  /** What the reader skipped: unsupported Match criteria, unreadable includes. */
  notes: string[];
}

export interface ReadSshConfigOptions {
  /** Default ~/.ssh/config; a missing file is an empty config. */
  path?: string;
  /** Config text instead of a file (tests). */
  text?: string;
  home?: string;
  localUser?: string;
}

interface Line {
  key: string;
  args: string[];
  where: string;
}

const MAX_INCLUDE_DEPTH = 16;

/** One config line into keyword + arguments; `#` starts a comment only at the beginning. */
export function splitConfigLine(raw: string): { key: string; args: string[] } | undefined {
  const line = raw.trim();
  if (line === '' || line.startsWith('#')) return undefined;
  const m = /^([^\s=]+)\s*(?:=\s*|\s+)?(.*)$/.exec(line);
  if (!m) return undefined;
  const key = (m[1] ?? '').toLowerCase();
  const rest = m[2] ?? '';
  const args: string[] = [];
  let cur = '';
  let inQuote = false;
  let started = false;
  for (const ch of rest) {
    if (ch === '"') {
      inQuote = !inQuote;
      started = true;
    } else if (!inQuote && (ch === ' ' || ch === '\t')) {
      if (started) args.push(cur);
      cur = '';
      started = false;
    } else {
      cur += ch;
      started = true;
    }
  }
  if (started) args.push(cur);
  return { key, args };
}

/** ssh's pattern: `*` any run, `?` one character, case-insensitive. */
export function globMatch(pattern: string, text: string): boolean {
  const re = new RegExp(
    '^' +
      pattern
        .split('')
        .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
        .join('') +
      '$',
    'i',
  );
  return re.test(text);
}

/** A pattern list: some positive pattern matches and no negated one does. */
export function patternListMatch(patterns: readonly string[], text: string): boolean {
  let hit = false;
  for (const p of patterns) {
    if (p.startsWith('!')) {
      if (globMatch(p.slice(1), text)) return false;
    } else if (globMatch(p, text)) {
      hit = true;
    }
  }
  return hit;
}

/** `[user@]host[:port]`, `ssh://[user@]host[:port]`, IPv6 in brackets; comma-separated. */
export function parseProxyJump(value: string): JumpSpec[] {
  if (value.toLowerCase() === 'none') return [];
  return value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((spec) => {
      let s = spec.startsWith('ssh://') ? spec.slice(6) : spec;
      const out: JumpSpec = { host: '' };
      const at = s.lastIndexOf('@');
      if (at >= 0) {
        out.user = s.slice(0, at);
        s = s.slice(at + 1);
      }
      const v6 = /^\[([^\]]+)\](?::(\d+))?$/.exec(s);
      const plain = /^([^:]+)(?::(\d+))?$/.exec(s);
      const m = v6 ?? plain;
      if (!m) throw new Error(`invalid ProxyJump entry: ${spec}`);
      out.host = m[1] ?? '';
      if (m[2] !== undefined) out.port = Number(m[2]);
      return out;
    });
}

function expandTilde(p: string, home: string): string {
  if (p === '~') return home;
  if (p.startsWith('~/')) return join(home, p.slice(2));
  return p;
}

function expandTokens(s: string, t: Record<string, string>): string {
  return s.replace(/%(.)/g, (whole, c: string) => (c === '%' ? '%' : (t[c] ?? whole)));
}

function includeFiles(arg: string, home: string): string[] {
  const path = expandTilde(arg, home);
  const full = isAbsolute(path) ? path : join(home, '.ssh', path);
  const name = basename(full);
  if (!/[*?]/.test(name)) return [full];
  try {
    return readdirSync(dirname(full))
      .filter((f) => globMatch(name, f))
      .sort()
      .map((f) => join(dirname(full), f));
  } catch {
    return [];
  }
}

function readLines(text: string, where: string, home: string, depth: number, notes: string[]): Line[] {
  const out: Line[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const parsed = splitConfigLine(raw);
    if (!parsed) return;
    const at = `${where}:${i + 1}`;
    if (parsed.key === 'include') {
      if (depth >= MAX_INCLUDE_DEPTH) {
        notes.push(`${at}: Include nested too deeply`);
        return;
      }
      for (const arg of parsed.args) {
        for (const file of includeFiles(arg, home)) {
          let inc: string;
          try {
            inc = readFileSync(file, 'utf8');
          } catch {
            notes.push(`${at}: cannot read included ${file}`);
            continue;
          }
          out.push(...readLines(inc, file, home, depth + 1, notes));
        }
      }
      return;
    }
    out.push({ key: parsed.key, args: parsed.args, where: at });
  });
  return out;
}

const MULTI = new Set(['identityfile', 'userknownhostsfile']);

/** Resolves what applies to `alias`, like `ssh -G alias` for the keys we use. */
export function resolveSshHost(alias: string, opts: ReadSshConfigOptions = {}): SshHostConfig {
  const home = opts.home ?? homedir();
  const localUser = opts.localUser ?? userInfo().username;
  const notes: string[] = [];
  let text = opts.text;
  const path = opts.path ?? join(home, '.ssh', 'config');
  if (text === undefined) {
    try {
      text = readFileSync(path, 'utf8');
    } catch {
      text = '';
    }
  }
  const lines = readLines(text, opts.text !== undefined ? '<config>' : path, home, 0, notes);

  const single = new Map<string, string[]>();
  const multi = new Map<string, string[]>();
  let applies = true;
  for (const line of lines) {
    if (line.key === 'host') {
      applies = patternListMatch(line.args, alias);
      continue;
    }
    if (line.key === 'match') {
      applies = matchApplies(line, alias, single.get('hostname')?.[0] ?? alias, notes);
      continue;
    }
    if (!applies) continue;
    if (MULTI.has(line.key)) {
      multi.set(line.key, [...(multi.get(line.key) ?? []), ...line.args]);
    } else if (!single.has(line.key)) {
      single.set(line.key, line.args);
    }
  }

  const first = (k: string): string | undefined => single.get(k)?.[0];
  const hostName = expandTokens(first('hostname') ?? alias, { h: alias, '%': '%' });
  const port = Number(first('port') ?? 22);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`invalid Port for ${alias}: ${first('port')}`);
  const user = first('user') ?? localUser;
  const tokens: Record<string, string> = { h: hostName, p: String(port), r: user, u: localUser, n: alias, d: home };
  const expandPath = (p: string): string => expandTilde(expandTokens(p, tokens), home);
  const numeric = (k: string): number | undefined => {
    const v = first(k);
    return v === undefined || !/^\d+$/.test(v) ? undefined : Number(v);
  };

  const cfg: SshHostConfig = {
    alias,
    hostName,
    port,
    user,
    identityFiles: (multi.get('identityfile') ?? []).filter((f) => f.toLowerCase() !== 'none').map(expandPath),
    identitiesOnly: first('identitiesonly')?.toLowerCase() === 'yes',
    proxyJump: first('proxyjump') !== undefined ? parseProxyJump(single.get('proxyjump')?.join(' ') ?? '') : [],
    userKnownHostsFiles: (multi.get('userknownhostsfile') ?? []).filter((f) => f.toLowerCase() !== 'none').map(expandPath),
    notes,
  };
  const opt = <K extends keyof SshHostConfig>(key: K, value: SshHostConfig[K] | undefined): void => {
    if (value !== undefined) cfg[key] = value;
  };
  opt('strictHostKeyChecking', first('stricthostkeychecking')?.toLowerCase());
  opt('hostKeyAlias', first('hostkeyalias'));
  opt('serverAliveIntervalS', numeric('serveraliveinterval'));
  opt('serverAliveCountMax', numeric('serveralivecountmax'));
  opt('connectTimeoutS', numeric('connecttimeout'));
  const proxyCommand = single.get('proxycommand')?.join(' ');
  if (proxyCommand !== undefined && proxyCommand.toLowerCase() !== 'none') cfg.proxyCommand = proxyCommand;
  return cfg;
}

function matchApplies(line: Line, alias: string, hostName: string, notes: string[]): boolean {
  const a = line.args;
  let ok = true;
  for (let i = 0; i < a.length; i++) {
    const crit = (a[i] ?? '').toLowerCase();
    if (crit === 'all') continue;
    const arg = a[i + 1];
    if ((crit === 'host' || crit === 'originalhost') && arg !== undefined) {
      i++;
      const list = arg.split(',');
      ok &&= patternListMatch(list, crit === 'host' ? hostName : alias);
      continue;
    }
    notes.push(`${line.where}: Match ${crit} is not supported; the block is skipped`);
    return false;
  }
  return ok;
}
