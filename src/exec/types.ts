// The Executor contract the runner drives: short commands, long-running servers in their own process group, port forwards and file copies both ways, the same on every target.
//
// One Executor per target ('local', 'ssh:<host>', a container wrapper over either). The runner:
//   - probes with run(argv) — `--help` texts, versions, nvidia-smi — and gets code/stdout/stderr;
//   - launches a candidate with start(spec): the server runs in a process group of its own, its
//     stdout+stderr stream (redacted) into spec.logFile and a tail buffer; `exited` settles once
//     with the exit status, or with `error` set when the transport failed (a lost ssh connection),
//     which the runner turns into a failed trial;
//   - reaches the server through forward(port): identity for local targets, an ssh local forward
//     for ssh targets, so the load client always talks to 127.0.0.1:<localPort>;
//   - tears down with stop({ graceMs }): TERM to the whole group, KILL after the grace period;
//   - copies remote artifacts back with copyBack, files onto the target with copyTo (the load client's
//     bundle and trial specs), and close()s the executor (stopping any server it still runs).
// Secrets are passed by name only (secretEnv): their values come from the executor's secret source
// (the local process environment by default) and never appear in an argv, a command line or a log.

export type SecretSource = (name: string) => string | undefined;

export interface EnvOptions {
  /** Plain variables; values are visible in command lines on the host, so never put a secret here. */
  env?: Readonly<Record<string, string>>;
  /** Names of secret variables, values taken from the secret source; an unset one stays unset. */
  secretEnv?: readonly string[];
  /** Working directory on the target. */
  cwd?: string;
}

export interface RunOptions extends EnvOptions {
  /** Default 60 s; on expiry the command's process group is killed and `timedOut` is set. */
  timeoutMs?: number;
  /** Output kept per stream; the rest is dropped and `truncated` set. Default 16 MiB. */
  maxOutputBytes?: number;
}

export interface RunResult {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut?: boolean;
  truncated?: boolean;
}

export interface StartSpec extends EnvOptions {
  argv: readonly string[];
  /** Local file receiving stdout+stderr line by line, redacted; appended to. */
  logFile?: string;
  /** Lines kept for logTail(); default 200. */
  tailLines?: number;
  /** More values to redact from its output (a secret that reached it some other way than secretEnv: an argv word). */
  redactValues?: readonly string[];
  /** Sees every redacted output line first; returning true keeps it out of the log and the tail. */
  onLine?: (line: string) => boolean | void;
  /** 'pipe': the process gets a stdin to write (ServerProcess.write) where the executor has `pipesStdin`; else none. */
  stdin?: 'pipe';
}

export interface ExitInfo {
  code: number | null;
  signal: string | null;
  /** Set when the process could not be followed to its end (connection lost). */
  error?: Error;
  /** From stop(): processes of the launch the group kill missed (another group or session) that had to be ended, `pid name` each. */
  leftovers?: string[];
}

export interface StopOptions {
  /** Time between TERM and KILL; default 10 s. */
  graceMs?: number;
}

export interface ServerProcess {
  /** Pid of the server on its host (inside a container: of the engine CLI on the host). */
  readonly pid: number;
  /** Its process group, killed as a whole by stop(). */
  readonly pgid: number;
  readonly exited: Promise<ExitInfo>;
  readonly running: boolean;
  /** Started with `stdin: 'pipe'` on an executor that `pipesStdin`: writes to its stdin (false once it is gone); endInput() closes it. */
  write?(text: string): boolean;
  endInput?(): void;
  onExit(listener: (info: ExitInfo) => void): void;
  /** The last n redacted output lines (default: all kept). */
  logTail(n?: number): string[];
  /** TERM to the group, KILL after the grace; resolves when nothing of the group is left. */
  stop(opts?: StopOptions): Promise<ExitInfo>;
}

export interface ForwardOptions {
  /** Address the server listens on, seen from the target; default 127.0.0.1. */
  remoteHost?: string;
}

export interface PortForward {
  readonly localHost: string;
  readonly localPort: number;
  close(): Promise<void>;
}

export interface Executor {
  /** 'local', 'ssh:<host>', 'local+docker', ... */
  readonly target: string;
  /** One line for logs and the manifest: user, host, port, jumps, engine. */
  describe(): string;
  run(cmd: readonly string[], opts?: RunOptions): Promise<RunResult>;
  start(spec: StartSpec): Promise<ServerProcess>;
  forward(remotePort: number, opts?: ForwardOptions): Promise<PortForward>;
  /** A file or a directory on the target into a local path (a directory's contents go under it). */
  copyBack(remotePath: string, localPath: string): Promise<void>;
  /**
   * A local file onto the target at remotePath (an absolute path; missing folders are made). The file appears
   * whole or not at all (written beside it, then renamed). Optional: a target without it cannot take files,
   * and callers fall back (the runner then measures through forward()).
   */
  copyTo?(localPath: string, remotePath: string): Promise<void>;
  /**
   * A file or folder on the target removed, if there. Optional: callers without it run `rm -rf` there (a Slurm job's
   * files are on a shared file system, where removing them needs no job step).
   */
  remove?(remotePath: string): Promise<void>;
  /** start() honours `stdin: 'pipe'` (a long-lived client fed over its stdin: runner/host-session.ts). */
  readonly pipesStdin?: boolean;
  /** Called when the transport to the target breaks; returns an unsubscribe function. */
  onConnectionLost(listener: (err: ConnectionLostError) => void): () => void;
  /** Stops every server still running, then releases the transport. */
  close(): Promise<void>;
}

/** The transport to a target broke: running trials on it fail with this reason. */
export class ConnectionLostError extends Error {
  constructor(
    readonly target: string,
    readonly causeMessage: string,
  ) {
    super(`connection to ${target} lost: ${causeMessage}`);
    this.name = 'ConnectionLostError';
  }
}

/** The host key was not accepted: unknown without permission to add it, or different from known_hosts. */
export class HostKeyError extends Error {
  constructor(
    message: string,
    readonly kind: 'unknown' | 'mismatch' | 'revoked',
    readonly fingerprint: string,
  ) {
    super(message);
    this.name = 'HostKeyError';
  }
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Environment variable names reach a shell unquoted (`export NAME`), so only plain names pass. */
export function checkEnvName(name: string): string {
  if (!ENV_NAME.test(name)) throw new Error(`not a valid environment variable name: ${JSON.stringify(name)}`);
  return name;
}

export const processEnvSecrets: SecretSource = (name) => process.env[name];
