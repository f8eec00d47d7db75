// What a config error about one framework means for a run: skip the candidates using an unknown flag, skip the framework as unsupported, or skip it as invalid.
import { FRAMEWORKS, type FrameworkKey } from '../frameworks/types';
import type { Finding } from './finding';

export type RunEffect =
  /** The flag is not in the CLI's flag set: candidates using it are skipped; a captured --help re-judges it. */
  | { kind: 'unknown-flag'; framework: FrameworkKey; flag: string | undefined }
  /** vLLM's grouped --help summary lists no flags: every candidate is skipped until a full capture. */
  | { kind: 'no-flag-list'; framework: FrameworkKey }
  /** The framework is configured in a way the runner does not run (a TensorRT-LLM engine backend). */
  | { kind: 'unsupported'; framework: FrameworkKey }
  /** The framework's P/D block (`disaggregation:`) is invalid: no units are built; its aggregated candidates still run. */
  | { kind: 'units'; framework: FrameworkKey }
  /** The framework's section is invalid: the framework is skipped with the message. */
  | { kind: 'invalid'; framework: FrameworkKey }
  /** Not about one framework: the plan cannot run. */
  | { kind: 'stop' };

const UNSUPPORTED = new Set(['trt-base-backend', 'trt-backend-policy', 'trt-backend-searched']);

/** The framework an error is about, when it is about one. */
export function findingFramework(f: Finding): FrameworkKey | undefined {
  if (f.path[0] !== 'frameworks' || f.path.length < 2) return undefined;
  const fw = f.path[1];
  return typeof fw === 'string' && (FRAMEWORKS as readonly string[]).includes(fw) ? (fw as FrameworkKey) : undefined;
}

/** The effect of an error on a run (warnings have none). */
export function runEffect(f: Finding): RunEffect {
  const framework = findingFramework(f);
  if (!framework) return { kind: 'stop' };
  if (f.path[2] === 'disaggregation') return { kind: 'units', framework };
  if (f.code === 'unknown-flag') return { kind: 'unknown-flag', framework, flag: typeof f.path[3] === 'string' ? f.path[3] : undefined };
  if (f.code === 'snapshot-grouped') return { kind: 'no-flag-list', framework };
  if (UNSUPPORTED.has(f.code)) return { kind: 'unsupported', framework };
  return { kind: 'invalid', framework };
}
