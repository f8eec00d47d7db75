// The SGLang-style result table printed after a run (same banner, labels and widths), with our extra rows after SGLang's.
import type { LatencyStats } from './metrics';
import { retokenized } from './output';
import type { BenchResult } from './types';

const WIDTH = 50;

/** Python's format(s, 'c^n'): extra padding goes to the right. */
function centre(s: string, fill: string): string {
  const pad = Math.max(0, WIDTH - s.length);
  const left = Math.floor(pad / 2);
  return fill.repeat(left) + s + fill.repeat(pad - left);
}

function row(label: string, value: string | number | null): string {
  const v = value === null ? 'n/a' : typeof value === 'number' ? (Number.isInteger(value) ? String(value) : value.toFixed(2)) : value;
  return `${label.padEnd(40)} ${v.padEnd(10)}`.trimEnd();
}

function fixed(v: number | null): string {
  return v === null || !Number.isFinite(v) ? 'n/a' : v.toFixed(2);
}

function latency(lines: string[], title: string, short: string, s: LatencyStats, withMax = false): void {
  lines.push(centre(title, '-'));
  lines.push(row(`Mean ${short} (ms):`, fixed(s.mean)));
  lines.push(row(`Median ${short} (ms):`, fixed(s.median)));
  lines.push(row(`P90 ${short} (ms):`, fixed(s.p90)));
  lines.push(row(`P95 ${short} (ms):`, fixed(s.p95)));
  lines.push(row(`P99 ${short} (ms):`, fixed(s.p99)));
  if (withMax) lines.push(row(`Max ${short} (ms):`, fixed(s.max)));
}

function withInterval(v: number | null, i: [number, number] | null): string {
  return i ? `${fixed(v)} [${fixed(i[0])}, ${fixed(i[1])}]` : fixed(v);
}

/** Whether the numbers above can carry a verdict: the steady window, 95% intervals, validity and the client's own load. */
function trust(lines: string[], r: BenchResult): void {
  const m = r.metrics;
  const s = m.steady;
  const i = m.intervals;
  lines.push(centre('Steady State (95% intervals)', '-'));
  lines.push(row('Steady window (s):', s.startS === null || s.endS === null ? 'none' : `${fixed(s.startS)} - ${fixed(s.endS)}`));
  lines.push(row('Steady completions / needed:', `${s.completed} / ${Math.ceil(s.minCompleted)}`));
  lines.push(row('Steady request throughput (req/s):', withInterval(s.requestThroughput, i.requestThroughput)));
  lines.push(row('Steady output throughput (tok/s):', withInterval(s.outputThroughput, i.outputThroughput)));
  lines.push(row('Median TTFT (ms):', withInterval(m.ttft.median, i.p50TtftMs)));
  lines.push(row('Median TPOT (ms):', withInterval(m.tpot.median, i.p50TpotMs)));
  lines.push(row('Median E2E Latency (ms):', withInterval(m.e2e.median, i.p50E2eMs)));
  if (m.cacheHitFraction !== null) lines.push(row('Prefix cache hits (%):', fixed(m.cacheHitFraction * 100)));
  const v = m.validity;
  if (v.zeroOutputRequests > 0) lines.push(row('Requests with no output:', v.zeroOutputRequests));
  if (v.shortOutputRequests > 0) lines.push(row('Shorter than asked (ignore_eos):', v.shortOutputRequests));
  if (s.tooShort) lines.push(`too short: ${s.tooShort}`);
  if (r.client.bound) lines.push(`client-bound: ${r.client.bound}`);
}

export function formatRate(rate: number): string {
  return Number.isFinite(rate) ? String(rate) : 'inf';
}

export function formatSummary(r: BenchResult): string {
  const m = r.metrics;
  const lines: string[] = [];
  lines.push(centre(' Serving Benchmark Result ', '='));
  lines.push(row('Backend:', r.backend));
  lines.push(row('Traffic request rate:', r.workloadName === 'mooncake' || r.workloadName === 'trace-csv' ? 'trace' : formatRate(r.requestRate)));
  lines.push(row('Max request concurrency:', r.maxConcurrency === null ? 'not set' : String(r.maxConcurrency)));
  lines.push(row('Successful requests:', m.completed));
  lines.push(row('Benchmark duration (s):', fixed(m.durationS)));
  lines.push(row('Total input tokens:', m.totalInputTokens));
  lines.push(row('Total input text tokens:', m.totalInputTokens));
  lines.push(row('Total generated tokens:', m.totalOutputTokens));
  lines.push(row('Total generated tokens (retokenized):', retokenized(r)));
  lines.push(row('Request throughput (req/s):', fixed(m.requestThroughput)));
  lines.push(row('Input token throughput (tok/s):', fixed(m.inputThroughput)));
  lines.push(row('Output token throughput (tok/s):', fixed(m.outputThroughput)));
  lines.push(row('Peak output token throughput (tok/s):', fixed(m.maxOutputTokensPerS)));
  lines.push(row('Peak concurrent requests:', m.maxConcurrentRequests));
  lines.push(row('Total token throughput (tok/s):', fixed(m.totalThroughput)));
  lines.push(row('Concurrency:', fixed(m.concurrency)));
  // Ours, after SGLang's rows.
  lines.push(row('Failed requests:', m.failed));
  lines.push(row('Success rate (%):', fixed(m.successRate * 100)));
  lines.push(row('Request rate achieved (req/s):', fixed(m.achievedRequestRate)));
  if (m.goodput) lines.push(row('Request goodput (req/s):', fixed(m.goodput.requestGoodput)));
  latency(lines, 'End-to-End Latency', 'E2E Latency', m.e2e);
  latency(lines, 'Time to First Token', 'TTFT', m.ttft);
  latency(lines, 'Time per Output Token (excl. 1st token)', 'TPOT', m.tpot);
  latency(lines, 'Inter-Token Latency', 'ITL', m.itl, true);
  lines.push(centre('Client', '-'));
  lines.push(row('Client queueing, mean / P99 (ms):', `${fixed(m.clientQueue.mean)} / ${fixed(m.clientQueue.p99)}`));
  lines.push(row('Client CPU (% of one core):', fixed(r.client.cpuPercent)));
  if (r.client.workers > 1) lines.push(row('Client worker threads:', String(r.client.workers)));
  lines.push(row('Event-loop lag P99 / max (ms):', `${fixed(r.client.eventLoopLagP99Ms)} / ${fixed(r.client.eventLoopLagMaxMs)}`));
  lines.push(row('Output tokens counted by:', Object.entries(m.outputTokensSource).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ') || 'n/a'));
  trust(lines, r);
  const scen = r.lengths.measured.slice(0, 10);
  if (scen.length > 0) {
    lines.push(centre('Lengths (tokens, p50 / p95 / max)', '-'));
    for (const l of scen) {
      lines.push(row(`${l.scenario} input:`, `${l.input.p50} / ${l.input.p95} / ${l.input.max}`));
      lines.push(row(`${l.scenario} output:`, `${l.output.p50} / ${l.output.p95} / ${l.output.max}`));
    }
  }
  const errs = Object.entries(m.errors);
  if (errs.length > 0) {
    lines.push(centre('Errors', '-'));
    for (const [kind, n] of errs) lines.push(row(`${kind}:`, n));
    const first = r.records.find((x) => !x.success);
    if (first) lines.push(`first: ${first.error.slice(0, 200)}`);
  }
  lines.push('='.repeat(WIDTH));
  return lines.join('\n');
}
