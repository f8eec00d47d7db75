// Log line shapes of each real engine, so the runner's log checks meet the text real servers print:
// vLLM `(APIServer pid=N) INFO MM-DD HH:MM:SS [file.py:line] msg`, SGLang `[YYYY-MM-DD HH:MM:SS] msg` (no level
// name; `[... TP0]` from scheduler processes), trtllm-serve `[MM/DD/YYYY-HH:MM:SS] [TRT-LLM] [I] msg`, the
// TokenSpeed gateway's tracing lines, and each engine's own shape for a crash.
import type { FrameworkKey } from '../core/frameworks/types';
import { versionAtLeast } from './engine-version';

export type LogLevel = 'INFO' | 'WARNING' | 'ERROR';

/** Which process of the real server prints the line (vLLM and SGLang prefix their lines with it). */
export type LogSource = 'api' | 'engine';

export interface LogShape {
  fw: FrameworkKey;
  /** The engine release (`--sim-version`): vLLM's `(APIServer pid=N)` prefix exists from 0.10.2. */
  version: string;
  pid: number;
}

const p2 = (n: number): string => String(n).padStart(2, '0');

/** vLLM's logger: `%(levelname)s %(asctime)s [%(filename)s:%(lineno)d] %(message)s` with date format `%m-%d %H:%M:%S`. */
const VLLM_FILES: Record<LogSource, string> = { api: 'api_server.py:1', engine: 'core.py:1' };

/**
 * One log line in the engine's shape. Upstream formats (read, not run):
 * - vLLM: vllm-project/vllm · vllm/logger.py (`_FORMAT = "%(levelname)s %(asctime)s [%(fileinfo)s:%(lineno)d] %(message)s"`,
 *   `_DATE_FORMAT = "%m-%d %H:%M:%S"`); the `(APIServer pid=N)` / `(EngineCore_DP0 pid=N)` process prefix comes
 *   from vllm/utils `decorate_logs` (INFERENCE: present from about 0.10.2; older lines start at the level name).
 * - SGLang: sgl-project/sglang · python/sglang/srt/utils `configure_logger`: `[%(asctime)s{prefix}] %(message)s`,
 *   date `%Y-%m-%d %H:%M:%S`, prefix ` TP0` in scheduler processes; no level name.
 * - TRT-LLM: NVIDIA/TensorRT-LLM · tensorrt_llm/logger.py @027cd518: `[%m/%d/%Y-%H:%M:%S] [TRT-LLM] [I] msg`,
 *   `[W]`, `[E]` for warning and error.
 * - TokenSpeed: its gateway is smg (Rust `tracing`): `2026-01-02T03:04:05.678901Z  INFO smg::server: msg`.
 *   Engine lines of TokenSpeed's scheduler keep SGLang's shape.
 */
export function logLine(shape: LogShape, level: LogLevel, msg: string, source: LogSource = 'api', now = new Date()): string {
  const d = now;
  const time = `${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}`;
  switch (shape.fw) {
    case 'vllm': {
      const prefix = versionAtLeast(shape.version, '0.10.2') ? `(${source === 'api' ? 'APIServer' : 'EngineCore_DP0'} pid=${shape.pid}) ` : '';
      return `${prefix}${level} ${p2(d.getMonth() + 1)}-${p2(d.getDate())} ${time} [${VLLM_FILES[source]}] ${msg}`;
    }
    case 'tensorrt_llm': {
      const sev = level === 'INFO' ? 'I' : level === 'WARNING' ? 'W' : 'E';
      return `[${p2(d.getMonth() + 1)}/${p2(d.getDate())}/${d.getFullYear()}-${time}] [TRT-LLM] [${sev}] ${msg}`;
    }
    case 'tokenspeed':
      if (source === 'api') return `${d.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z')} ${(level === 'WARNING' ? 'WARN' : level).padStart(5)} smg::server: ${msg}`;
      return `[${d.getFullYear()}-${p2(d.getMonth() + 1)}-${p2(d.getDate())} ${time} TP0] ${msg}`;
    default:
      return `[${d.getFullYear()}-${p2(d.getMonth() + 1)}-${p2(d.getDate())} ${time}${source === 'engine' ? ' TP0' : ''}] ${msg}`;
  }
}

/** The lines a real engine prints when the GPU fails under it (the crash fault), in its own error shape. */
export function crashLines(shape: LogShape, why: string): string[] {
  const cuda = `RuntimeError: CUDA error: an illegal memory access was encountered (simulated crash: ${why})`;
  const trace = ['Traceback (most recent call last):', '  File "<simulated>", line 1, in run_engine_loop', cuda];
  switch (shape.fw) {
    case 'vllm':
      // vllm/v1/engine/core.py logs "EngineCore encountered a fatal error." at ERROR, then the traceback.
      return [logLine(shape, 'ERROR', 'EngineCore encountered a fatal error.', 'engine'), ...trace];
    case 'tensorrt_llm':
      // tensorrt_llm/logger.py: errors are `[TRT-LLM] [E] ...`; the executor reports the exception on one line.
      return [logLine(shape, 'ERROR', `Encountered an error in forward function: ${cuda}`)];
    default:
      // SGLang's scheduler: "Scheduler hit an exception: <traceback>" (no level name in the line).
      return [logLine(shape, 'ERROR', `Scheduler hit an exception: ${trace[0]}`, 'engine'), ...trace.slice(1)];
  }
}
