// Which server log lines say the engine itself hit an error, per framework (each engine prints its errors its own way), and which lines only echo a request (a prompt may say anything).
import type { FrameworkKey } from './types';

/**
 * Request-log lines: they echo prompts and outputs, so "ERROR" or a pasted traceback in a prompt is not the engine's.
 * vLLM: `Received request <id>: prompt: '…'` (entrypoints/logger.py, logged by default up to v0.10.0);
 * SGLang --log-requests: `Receive: obj=GenerateReqInput(…)` / `Finish: obj=…, out=…`.
 */
const REQUEST_ECHO = /\bReceived request \S+: (prompt|params)|\bReceive: obj=|\bFinish: obj=/;

/** Every engine: a Python traceback, a CUDA failure, an out-of-memory, uvicorn's `ERROR:` lines, an exception line. */
const COMMON: readonly RegExp[] = [
  /Traceback \(most recent call last\)/,
  /\bCUDA error\b/,
  /\bout of memory\b/i,
  /^ERROR:\s/, // uvicorn's default log format: `ERROR:    Exception in ASGI application`
  /^(\w+\.)*\w*(Error|Exception): /, // the last line of a traceback: `RuntimeError: …`
];

const PER_FRAMEWORK: Record<FrameworkKey, readonly RegExp[]> = {
  // vLLM's format `LEVEL MM-DD HH:MM:SS [file.py:N] …`, with `(APIServer pid=N) ` / `(EngineCore_0 pid=N) ` in front
  // from its multiprocess front end (vllm/logger.py _FORMAT: "%(levelname)s %(asctime)s [%(fileinfo)s:%(lineno)d] %(message)s").
  vllm: [/^(\([\w.-]+ pid=\d+\) )?(ERROR|CRITICAL) \d\d-\d\d /],
  // SGLang's lines carry no level name (`[%(asctime)s TP0] %(message)s`): errors are told by their words.
  sglang: [/\bException in\b/, /\bhit an exception\b/, /\bReceived sigquit from a child process\b/],
  // TensorRT-LLM: tensorrt_llm/logger.py prints `[TRT-LLM] [E] …` (MPI ranks: `[TRT-LLM][MPI_Rank N] [E]`), C++: `[TensorRT-LLM][ERROR]`.
  tensorrt_llm: [/\[TRT-LLM\] ?(\[MPI_Rank \d+\] ?)?\[[EF]\]/, /\[TensorRT-LLM\]\[(ERROR|FATAL)\]/],
  // TokenSpeed: an SGLang-derived engine behind the smg gateway (Rust tracing: `<time> ERROR <target>: …`).
  tokenspeed: [/\bException in\b/, /\bhit an exception\b/, /^\S+\s+ERROR\s/],
};

/** True when `line` says the server (of `fw`; any engine when unknown) hit an error; request echoes never do. */
export function isEngineErrorLine(line: string, fw?: FrameworkKey): boolean {
  if (REQUEST_ECHO.test(line)) return false;
  const text = line.replace(/\s+$/, '');
  if (COMMON.some((re) => re.test(text))) return true;
  const own = fw ? PER_FRAMEWORK[fw] : Object.values(PER_FRAMEWORK).flat();
  return own.some((re) => re.test(text));
}
