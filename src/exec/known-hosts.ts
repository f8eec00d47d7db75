// known_hosts as OpenSSH writes it: plain and hashed (`|1|salt|hmac`) host names, `[host]:port`, markers; verdicts and SHA256 fingerprints.
import { createHash, createHmac } from 'node:crypto';

export interface KnownHostEntry {
  marker?: 'cert-authority' | 'revoked';
  /** The comma-separated host field as written. */
  hosts: string;
  keyType: string;
  key: Buffer;
  line: number;
}

export type HostKeyVerdict =
  | { kind: 'match'; line: number }
  | { kind: 'unknown' }
  | { kind: 'mismatch'; lines: number[]; knownTypes: string[] }
  | { kind: 'revoked'; line: number };

/** The name ssh looks up: the host alone on port 22, `[host]:port` otherwise. */
export function knownHostName(host: string, port: number): string {
  const h = host.toLowerCase();
  return port === 22 ? h : `[${h}]:${port}`;
}

export function parseKnownHosts(text: string): KnownHostEntry[] {
  const out: KnownHostEntry[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const parts = line.split(/\s+/);
    let marker: KnownHostEntry['marker'];
    if (parts[0]?.startsWith('@')) {
      const m = parts.shift();
      if (m === '@cert-authority') marker = 'cert-authority';
      else if (m === '@revoked') marker = 'revoked';
      else return;
    }
    const [hosts, keyType, b64] = parts;
    if (!hosts || !keyType || !b64) return;
    const key = Buffer.from(b64, 'base64');
    if (key.length === 0) return;
    const entry: KnownHostEntry = { hosts, keyType, key, line: i + 1 };
    if (marker) entry.marker = marker;
    out.push(entry);
  });
  return out;
}

function wildcardMatch(pattern: string, text: string): boolean {
  const re = pattern
    .split('')
    .map((c) => (c === '*' ? '.*' : c === '?' ? '.' : c.replace(/[\\^$.|+()[\]{}]/g, '\\$&')))
    .join('');
  return new RegExp(`^${re}$`, 'i').test(text);
}

function hashedMatch(field: string, name: string): boolean {
  const parts = field.split('|'); // ['', '1', salt, hash]
  if (parts.length !== 4 || parts[1] !== '1') return false;
  const salt = Buffer.from(parts[2] ?? '', 'base64');
  const want = parts[3] ?? '';
  return createHmac('sha1', salt).update(name).digest('base64') === want;
}

/** Does the host field name this host (`name` as knownHostName gives it)? */
export function hostFieldMatches(hosts: string, name: string): boolean {
  if (hosts.startsWith('|')) return hashedMatch(hosts, name);
  let hit = false;
  for (const p of hosts.split(',')) {
    if (p.startsWith('!')) {
      if (wildcardMatch(p.slice(1), name)) return false;
    } else if (wildcardMatch(p, name)) {
      hit = true;
    }
  }
  return hit;
}

export function checkHostKey(entries: readonly KnownHostEntry[], name: string, key: Buffer): HostKeyVerdict {
  const forHost = entries.filter((e) => e.marker !== 'cert-authority' && hostFieldMatches(e.hosts, name));
  const revoked = forHost.find((e) => e.marker === 'revoked' && e.key.equals(key));
  if (revoked) return { kind: 'revoked', line: revoked.line };
  const plain = forHost.filter((e) => e.marker === undefined);
  const hit = plain.find((e) => e.key.equals(key));
  if (hit) return { kind: 'match', line: hit.line };
  if (plain.length === 0) return { kind: 'unknown' };
  return { kind: 'mismatch', lines: plain.map((e) => e.line), knownTypes: [...new Set(plain.map((e) => e.keyType))] };
}

/** `SHA256:<base64 without padding>` as `ssh-keygen -lf` prints it. */
export function fingerprintSha256(key: Buffer): string {
  return 'SHA256:' + createHash('sha256').update(key).digest('base64').replace(/=+$/, '');
}

/** The key type named inside an SSH public key blob (its first string). */
export function keyTypeOfBlob(key: Buffer): string {
  if (key.length < 4) return 'unknown';
  const len = key.readUInt32BE(0);
  return key.subarray(4, 4 + len).toString('latin1');
}

export function knownHostLine(name: string, key: Buffer): string {
  return `${name} ${keyTypeOfBlob(key)} ${key.toString('base64')}`;
}

// A known_hosts key type -> the host key algorithms that present it.
const ALGS_FOR_TYPE: Record<string, string[]> = {
  'ssh-rsa': ['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa'],
};

/**
 * Host key algorithms in the order to offer: those known_hosts already holds for this host first,
 * as OpenSSH does, so a host we know by its ECDSA key is not met with its Ed25519 one and refused.
 */
export function preferredHostKeyAlgorithms(
  entries: readonly KnownHostEntry[],
  name: string,
  defaults: readonly string[],
): string[] {
  const known = entries
    .filter((e) => e.marker === undefined && hostFieldMatches(e.hosts, name))
    .flatMap((e) => ALGS_FOR_TYPE[e.keyType] ?? [e.keyType]);
  const first = [...new Set(known)].filter((a) => defaults.includes(a));
  return [...first, ...defaults.filter((a) => !first.includes(a))];
}
