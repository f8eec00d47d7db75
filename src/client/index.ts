// Public surface of the load client, for the CLI and the runner.
export { runBenchmark } from './run-benchmark';
export { recountOutputTokens } from './recount';
export { BenchSetupError, parseBaseUrl, type ParsedBaseUrl, type SetupFailure } from './setup';
export type { BenchEvent, BenchHooks, BenchOptions, BenchPhase, BenchProgress, BenchResult, ClientStats } from './types';
export { BACKENDS, apiFor, buildBody, isBackend, type ApiKind, type Backend } from './backends';
export { computeMetrics, isGood, tpotOf, type BenchMetrics, type GoodputSlo, type LatencyStats, type MetricsOptions } from './metrics';
export {
  CLIENT_CPU_LIMIT_PERCENT,
  CLIENT_LAG_P99_LIMIT_MS,
  MIN_INTERVAL_COMPLETIONS,
  MIN_P50_SAMPLES,
  MIN_P99_SAMPLES,
  STEADY_MIN_COMPLETED,
  STEADY_MIN_SPAN_E2E,
  STEADY_MIN_TURNOVERS,
  THROUGHPUT_BINS,
  clientBound,
  type Intervals,
  type SteadyWindow,
  type Validity,
} from './trust';
export { CONFIDENCE, RESAMPLES, type Interval } from './bootstrap';
export type { ErrorKind, OutputTokensSource, RequestRecord } from './record';
export { arrivalSchedule, type ArrivalOptions } from '../core/workload/arrivals';
export { formatSummary } from './result-table';
export { appendResult, resultJson, retokenized, toRowMetrics, toRowWorkload, type RunDescription } from './output';
export { ProgressBar } from './progress-bar';
export { WIRE_VERSION, EVENT_PREFIX, CLIENT_HEADERS_ENV, withEnvHeaders, encodeWire, decodeWire, resultFromWire, parseTrialSpec, type TrialSpec, type HostBenchOptions, type WireEvent, type ServeCommand } from './wire';
