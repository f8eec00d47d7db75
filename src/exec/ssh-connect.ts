// Opens a verified, authenticated ssh2 connection to a config host, through its ProxyJump hops: each hop's host key checked against known_hosts.
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { Client, utils } from 'ssh2';
import type { AgentAuthMethod, ConnectConfig, PublicKeyAuthMethod } from 'ssh2';
import type { Duplex } from 'node:stream';
import {
  checkHostKey,
  fingerprintSha256,
  keyTypeOfBlob,
  knownHostLine,
  knownHostName,
  parseKnownHosts,
  preferredHostKeyAlgorithms,
} from './known-hosts';
import type { KnownHostEntry } from './known-hosts';
import { resolveSshHost } from './ssh-config';
import type { SshHostConfig } from './ssh-config';
import { HostKeyError } from './types';

export interface HostKeyPrompt {
  /** host:port as connected. */
  host: string;
  port: number;
  keyType: string;
  fingerprint: string;
  knownHostsFile: string;
}

export interface SshConnectOptions {
  /** The config alias (`ssh:<host>`), or `user@alias`. */
  host: string;
  /** Default ~/.ssh/config. */
  configPath?: string;
  /** Read and appended to instead of UserKnownHostsFile / ~/.ssh/known_hosts (and the global file). */
  knownHostsPath?: string;
  /**
   * An unknown host key: refused unless true, or unless this callback (the editor's prompt) says
   * yes; then the key is appended to known_hosts. Default: as StrictHostKeyChecking says
   * (`accept-new`/`no` accept), otherwise refuse. A changed key is always refused.
   */
  acceptNewHostKey?: boolean | ((prompt: HostKeyPrompt) => Promise<boolean>);
  /** Agent socket; default SSH_AUTH_SOCK; false: no agent. */
  agent?: string | false;
  /** Keys tried in addition to (before) the config's IdentityFile entries. */
  identityFiles?: string[];
  user?: string;
  port?: number;
  keepaliveIntervalMs?: number;
  keepaliveCountMax?: number;
  readyTimeoutMs?: number;
  home?: string;
}

export interface Hop {
  config: SshHostConfig;
}

export interface SshConnection {
  /** Connected hops, jumps first, the target last. */
  clients: Client[];
  target: Client;
  hops: SshHostConfig[];
}

const MAX_HOPS = 8;
const DEFAULT_KEYS = ['id_ed25519', 'id_ecdsa', 'id_rsa'];
const DEFAULT_HOST_KEY_ALGS = [
  'ssh-ed25519',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'rsa-sha2-512',
  'rsa-sha2-256',
  'ssh-rsa',
];

/** The hops to go through, jumps first: ProxyJump of the target, the first jump's own ProxyJump, ... */
export function resolveHops(opts: SshConnectOptions): SshHostConfig[] {
  const read = (alias: string): SshHostConfig =>
    resolveSshHost(alias, { path: opts.configPath, ...(opts.home ? { home: opts.home } : {}) });
  // `user@host` as on ssh's command line: the config is looked up by the host part.
  const at = opts.host.lastIndexOf('@');
  const target = read(at >= 0 ? opts.host.slice(at + 1) : opts.host);
  if (at >= 0) target.user = opts.host.slice(0, at);
  if (opts.user) target.user = opts.user;
  if (opts.port) target.port = opts.port;
  const chain: SshHostConfig[] = [target];
  let cur = target;
  while (cur.proxyJump.length > 0) {
    if (chain.length > MAX_HOPS) throw new Error(`ProxyJump chain of ${opts.host} is longer than ${MAX_HOPS} hops (a loop?)`);
    const jumps = cur.proxyJump.map((j) => {
      const c = read(j.host);
      if (j.user) c.user = j.user;
      if (j.port) c.port = j.port;
      return c;
    });
    // Like ssh: the first jump is reached with its own config (its ProxyJump too); the later
    // ones are plain hops through it.
    for (const j of jumps.slice(1)) j.proxyJump = [];
    chain.unshift(...jumps);
    cur = jumps[0] as SshHostConfig;
  }
  for (const hop of chain) {
    if (hop.proxyCommand && hop.proxyJump.length === 0) {
      throw new Error(`${hop.alias}: ProxyCommand is not supported by autobench's ssh client; use ProxyJump`);
    }
  }
  return chain;
}

function knownHostsFiles(opts: SshConnectOptions, hop: SshHostConfig): { read: string[]; append: string } {
  if (opts.knownHostsPath) return { read: [opts.knownHostsPath], append: opts.knownHostsPath };
  const home = opts.home ?? homedir();
  const user = hop.userKnownHostsFiles.length > 0 ? hop.userKnownHostsFiles : [join(home, '.ssh', 'known_hosts')];
  return { read: [...user, '/etc/ssh/ssh_known_hosts'], append: user[0] as string };
}

function readEntries(files: readonly string[]): KnownHostEntry[] {
  return files.flatMap((f) => {
    try {
      return parseKnownHosts(readFileSync(f, 'utf8'));
    } catch {
      return [];
    }
  });
}

function appendKnownHost(file: string, line: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  let prefix = '';
  if (existsSync(file)) {
    const cur = readFileSync(file, 'utf8');
    if (cur.length > 0 && !cur.endsWith('\n')) prefix = '\n';
  }
  appendFileSync(file, `${prefix}${line}\n`, { mode: 0o600 });
}

function authList(opts: SshConnectOptions, hop: SshHostConfig, notes: string[]): (AgentAuthMethod | PublicKeyAuthMethod)[] {
  const home = opts.home ?? homedir();
  const files = [...(opts.identityFiles ?? []), ...hop.identityFiles];
  if (files.length === 0) files.push(...DEFAULT_KEYS.map((k) => join(home, '.ssh', k)).filter((p) => existsSync(p)));
  const keys: PublicKeyAuthMethod[] = [];
  for (const file of [...new Set(files)]) {
    let data: Buffer;
    try {
      data = readFileSync(file);
    } catch {
      continue; // ssh too skips a configured key that is not there
    }
    const parsed = utils.parseKey(data);
    if (parsed instanceof Error) {
      notes.push(`${file}: ${parsed.message} (encrypted keys work through the agent)`);
      continue;
    }
    keys.push({ type: 'publickey' as const, username: hop.user, key: data });
  }
  const sock = opts.agent === false ? undefined : (opts.agent ?? process.env.SSH_AUTH_SOCK);
  const agent: AgentAuthMethod[] = sock ? [{ type: 'agent' as const, username: hop.user, agent: sock }] : [];
  return hop.identitiesOnly ? [...keys, ...agent] : [...agent, ...keys];
}

function describeHop(h: SshHostConfig): string {
  return `${h.user}@${h.hostName}${h.port === 22 ? '' : `:${h.port}`}`;
}

const lastErrors = new WeakMap<Client, Error>();

/** The last error a connected client reported (why it closed). */
export function lastErrorOf(client: Client): Error | undefined {
  return lastErrors.get(client);
}

function connectHop(opts: SshConnectOptions, hop: SshHostConfig, sock: Duplex | undefined): Promise<Client> {
  const files = knownHostsFiles(opts, hop);
  const entries = readEntries(files.read);
  const name = knownHostName(hop.hostKeyAlias ?? hop.hostName, hop.port);
  const accept =
    opts.acceptNewHostKey ??
    (hop.strictHostKeyChecking === 'accept-new' || hop.strictHostKeyChecking === 'no' || hop.strictHostKeyChecking === 'off');
  const notes: string[] = [];
  let refused: HostKeyError | undefined;

  const hostVerifier = (key: Buffer, verify: (ok: boolean) => void): void => {
    const fp = fingerprintSha256(key);
    const type = keyTypeOfBlob(key);
    const verdict = checkHostKey(entries, name, key);
    if (verdict.kind === 'match') return verify(true);
    if (verdict.kind === 'revoked') {
      refused = new HostKeyError(
        `host key of ${name} (${type} ${fp}) is marked @revoked in known_hosts line ${verdict.line}; refusing to connect`,
        'revoked',
        fp,
      );
      return verify(false);
    }
    if (verdict.kind === 'mismatch') {
      refused = new HostKeyError(
        `HOST KEY MISMATCH for ${name}: it presented ${type} ${fp}, which differs from known_hosts ` +
          `(${files.read.join(', ')} line ${verdict.lines.join(', ')}: ${verdict.knownTypes.join(', ')}). ` +
          `Refusing to connect: the host was reinstalled or someone is intercepting the connection. ` +
          `If the change is expected, remove the old entry (ssh-keygen -R '${name}') and connect again.`,
        'mismatch',
        fp,
      );
      return verify(false);
    }
    const unknown = (): HostKeyError =>
      new HostKeyError(
        `host ${name} is not in known_hosts (${files.append}); it presented ${type} ${fp}. ` +
          `Check the fingerprint, then accept it (--accept-new-host-key) to add it.`,
        'unknown',
        fp,
      );
    const decide = typeof accept === 'function'
      ? accept({ host: hop.hostName, port: hop.port, keyType: type, fingerprint: fp, knownHostsFile: files.append })
      : Promise.resolve(accept);
    decide.then(
      (yes) => {
        if (!yes) {
          refused = unknown();
          return verify(false);
        }
        try {
          appendKnownHost(files.append, knownHostLine(name, key));
        } catch (e) {
          refused = new HostKeyError(`cannot add ${name} to ${files.append}: ${(e as Error).message}`, 'unknown', fp);
          return verify(false);
        }
        verify(true);
      },
      () => {
        refused = unknown();
        verify(false);
      },
    );
  };

  const config: ConnectConfig = {
    host: hop.hostName,
    port: hop.port,
    username: hop.user,
    authHandler: authList(opts, hop, notes),
    hostVerifier,
    algorithms: { serverHostKey: preferredHostKeyAlgorithms(entries, name, DEFAULT_HOST_KEY_ALGS) as never },
    keepaliveInterval: opts.keepaliveIntervalMs ?? (hop.serverAliveIntervalS ? hop.serverAliveIntervalS * 1000 : 15_000),
    keepaliveCountMax: opts.keepaliveCountMax ?? hop.serverAliveCountMax ?? 3,
    readyTimeout: opts.readyTimeoutMs ?? (hop.connectTimeoutS ? hop.connectTimeoutS * 1000 : 20_000),
  };
  if (sock) config.sock = sock;

  const client = new Client();
  return new Promise((resolve, reject) => {
    const fail = (err: Error): void => {
      client.removeListener('ready', ok);
      client.end();
      if (refused) return reject(refused);
      const extra = notes.length > 0 ? ` (${notes.join('; ')})` : '';
      const e = new Error(`ssh ${describeHop(hop)}: ${err.message}${extra}`);
      reject(e);
    };
    const ok = (): void => {
      client.removeListener('error', fail);
      // From now on an error (socket reset, keepalive timeout) is followed by 'close', where the
      // owner reads it; without a listener it would crash the process.
      client.on('error', (err: Error) => lastErrors.set(client, err));
      // Requests and SSE events are small writes: without this, Nagle holds them back behind
      // unacknowledged packets (tens of ms per forwarded request).
      client.setNoDelay(true);
      resolve(client);
    };
    client.once('ready', ok);
    client.once('error', fail);
    client.connect(config);
  });
}

function forwardThrough(client: Client, host: string, port: number): Promise<Duplex> {
  return new Promise((resolve, reject) => {
    client.forwardOut('127.0.0.1', 0, host, port, (err, stream) => (err ? reject(err) : resolve(stream)));
  });
}

/** Connects hop by hop; on any failure every hop opened so far is closed. */
export async function openSshConnection(opts: SshConnectOptions): Promise<SshConnection> {
  const hops = resolveHops(opts);
  const clients: Client[] = [];
  try {
    let sock: Duplex | undefined;
    for (const hop of hops) {
      const client = await connectHop(opts, hop, sock);
      clients.push(client);
      const next = hops[clients.length];
      if (next) {
        try {
          sock = await forwardThrough(client, next.hostName, next.port);
        } catch (e) {
          throw new Error(`ssh ${describeHop(hop)}: cannot reach ${describeHop(next)} through it: ${(e as Error).message}`);
        }
      }
    }
  } catch (e) {
    for (const c of clients.reverse()) c.end();
    throw e;
  }
  return { clients, target: clients[clients.length - 1] as Client, hops };
}

export function describeConnection(hops: readonly SshHostConfig[]): string {
  const target = hops[hops.length - 1];
  if (!target) return 'ssh';
  const via = hops.slice(0, -1).map(describeHop);
  return `ssh ${describeHop(target)}${via.length ? ` via ${via.join(' -> ')}` : ''}`;
}
