// Node >= 20 on the target's host, for the load client that runs there: $AUTOBENCH_NODE, node or nodejs on its PATH, or one brought there earlier (host-node-fetch.ts); and the folder autobench keeps its files in on that host.
import type { Executor } from '../exec';

export const MIN_NODE_MAJOR = 20;

export interface HostNode {
  path: string;
  /** `node --version`: v20.20.2 */
  version: string;
}

export interface HostFacts {
  /** Where autobench keeps files on the host: $XDG_CACHE_HOME/autobench, ~/.cache/autobench, else a per-user folder in /tmp. */
  cacheDir: string;
  /** `uname -s` and `uname -m`: Linux, x86_64. */
  os: string;
  machine: string;
  /** Every node the host offered, in order of preference, usable or not. */
  found: HostNode[];
  /** The first of them that is new enough. */
  node: HostNode | undefined;
  /** The sha256 of the file probeHost was asked about (a path under cacheDir), when it is there. */
  fileSha256?: string;
}

// Run by a node on the host: the sha256 of a file, or nothing when there is none.
export const SHA_SCRIPT = `const f=process.argv[1];try{process.stdout.write(require('crypto').createHash('sha256').update(require('fs').readFileSync(f)).digest('hex'))}catch{}`;

// One round trip. Also clears trial folders a lost connection left behind (older than a day). $1: a file under the
// folder to hash with the first node found ($2 the script), so the client's bundle is checked in the same trip.
const PROBE_SCRIPT = [
  'c="${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/autobench"',
  'mkdir -p "$c" 2>/dev/null && [ -w "$c" ] || { c="${TMPDIR:-/tmp}/autobench-$(id -u)"; mkdir -p "$c" && chmod 700 "$c"; } || exit 3',
  'printf \'cache=%s\\n\' "$c"',
  'printf \'uname=%s %s\\n\' "$(uname -s)" "$(uname -m)"',
  '[ -d "$c/trials" ] && find "$c/trials" -mindepth 1 -maxdepth 1 -mmin +1440 -exec rm -rf {} + 2>/dev/null',
  'for n in "${AUTOBENCH_NODE:-}" node nodejs "$c"/node-v*/bin/node; do',
  '  [ -n "$n" ] || continue',
  '  p=$(command -v "$n" 2>/dev/null) || continue',
  '  v=$("$p" --version 2>/dev/null) || continue',
  '  printf \'node=%s %s\\n\' "$p" "$v"',
  '  first="${first:-$p}"',
  'done',
  '[ -n "${1:-}" ] && [ -n "${first:-}" ] && [ -f "$c/$1" ] && printf \'sha256=%s\\n\' "$("$first" -e "$2" "$c/$1" 2>/dev/null)"',
  'exit 0',
].join('\n');

/** v20.20.2 -> 20 (NaN when it is no version). */
export function nodeMajor(version: string): number {
  const m = /^v(\d+)\./.exec(version.trim());
  return m ? Number(m[1]) : NaN;
}

export function parseProbe(stdout: string): HostFacts | undefined {
  const lines = stdout.split('\n');
  const cacheDir = lines.find((l) => l.startsWith('cache='))?.slice(6);
  if (!cacheDir || !cacheDir.startsWith('/')) return undefined;
  const [os = '', machine = ''] = (lines.find((l) => l.startsWith('uname='))?.slice(6) ?? '').split(' ');
  const found: HostNode[] = [];
  for (const l of lines) {
    const m = /^node=(\/\S.*) (v\S+)$/.exec(l);
    if (m && !found.some((f) => f.path === m[1])) found.push({ path: m[1] as string, version: m[2] as string });
  }
  const sha = lines.find((l) => /^sha256=[0-9a-f]{64}$/.test(l))?.slice(7);
  return { cacheDir, os, machine, found, node: found.find((f) => nodeMajor(f.version) >= MIN_NODE_MAJOR), ...(sha ? { fileSha256: sha } : {}) };
}

/** What the host offers (and the sha256 of `file`, a path under its autobench folder); throws when it cannot even say (the shell failed, no writable folder). */
export async function probeHost(ex: Executor, file?: string): Promise<HostFacts> {
  const r = await ex.run(['sh', '-c', PROBE_SCRIPT, 'autobench-probe', ...(file ? [file, SHA_SCRIPT] : [])], { timeoutMs: 30_000 });
  const facts = r.code === 0 ? parseProbe(r.stdout) : undefined;
  if (!facts) throw new Error(`could not look for node on ${ex.target}: ${r.stderr.trim().split('\n').pop() || `exit ${r.code ?? r.signal}`}`);
  return facts;
}

/** Why no node on the host will do, in words. */
export function noNodeReason(facts: HostFacts): string {
  if (facts.found.length === 0) return `no node on the host's PATH (the load client needs Node >= ${MIN_NODE_MAJOR})`;
  return `no Node >= ${MIN_NODE_MAJOR} on the host (found ${facts.found.map((f) => `${f.version} at ${f.path}`).join(', ')})`;
}
