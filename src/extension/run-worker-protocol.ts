// The messages between the extension and its run worker (a child process that runs runPlan off the extension host's event loop), shared by both ends.
//
// Handshake: the worker posts `ready` once it listens; the parent then posts `start` exactly once.
// The worker streams every RunEvent as `event`, asks `host-key` questions the parent answers with
// `host-key-answer`, and ends with one `result` or one `failed`. `cancel` may come at any time.
// Functions cannot cross a process, so RunOptions travel without them: secrets as a name -> value
// map (read by the extension beforehand and approved for the target; never in argv, the worker's environment or a
// log; the worker is started without secret-named variables), the
// host-key prompt as a flag plus the question/answer pair, the HTML renderer as a flag (the worker
// renders with the webview's own page).
import type { HostKeyPrompt, RunEvent, RunOptions, RunResult } from '../runner';

/** RunOptions minus what cannot cross a process (functions) or is read again in the worker (the plan). */
export type WorkerRunOptions = Omit<RunOptions, 'plan' | 'planReader' | 'renderHtml' | 'secrets' | 'hostKeyPrompt'>;

type FunctionKeys<T> = { [K in keyof T]-?: NonNullable<T[K]> extends (...args: never[]) => unknown ? K : never }[keyof T];
/** A function added to RunOptions later fails the build here, not a run with a DataCloneError: give it a message pair or leave it out above. */
export const NO_FUNCTION_OPTIONS: [FunctionKeys<WorkerRunOptions>] extends [never] ? true : never = true;

export interface WorkerStart {
  type: 'start';
  options: WorkerRunOptions;
  /** Secret values by variable name, approved for the run's target; a name not here is not sent (no fallback to any environment). */
  secrets: Record<string, string>;
  /** The parent answers host-key questions; without it an unknown ssh host key is refused (or accepted per acceptNewHostKey). */
  hostKeyPrompt: boolean;
  /** Write summary.html with the webview's report page. */
  renderHtml: boolean;
}

export type ToWorker = WorkerStart | { type: 'cancel' } | { type: 'host-key-answer'; id: number; trust: boolean };

/** Why a run could not run: a plan with problems, a run directory already in use, anything else. */
export type WorkerFailure =
  | { kind: 'plan'; message: string; problems: string[] }
  | { kind: 'run-dir-in-use'; message: string; dir: string }
  | { kind: 'error'; message: string };

export type FromWorker =
  | { type: 'ready' }
  | { type: 'event'; event: RunEvent }
  | { type: 'host-key'; id: number; prompt: HostKeyPrompt }
  | { type: 'result'; result: RunResult }
  | { type: 'failed'; failure: WorkerFailure };

/** The messages are plain data: structured clone ('advanced') keeps bigint and Map should a row ever carry them. */
export const WORKER_SERIALIZATION = 'advanced' as const;

export function isMessage<T extends { type: string }>(m: unknown): m is T {
  return typeof m === 'object' && m !== null && typeof (m as { type?: unknown }).type === 'string';
}
