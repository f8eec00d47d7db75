// Public surface of the load client, for the CLI and the runner.
export { runBenchmark } from './run-benchmark';
export type { BenchEvent, BenchHooks, BenchOptions, BenchPhase, BenchProgress, BenchResult, ClientStats } from './types';
export { BACKENDS, apiFor, buildBody, isBackend, type ApiKind, type Backend } from './backends';
export { computeMetrics, isGood, tpotOf, type BenchMetrics, type GoodputSlo, type LatencyStats } from './metrics';
export type { ErrorKind, OutputTokensSource, RequestRecord } from './record';
export { arrivalSchedule, type ArrivalOptions } from './arrivals';
export { formatSummary } from './result-table';
export { appendResult, resultJson, retokenized, toRowMetrics, toRowWorkload, type RunDescription } from './output';
export { ProgressBar } from './progress-bar';
