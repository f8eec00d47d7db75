// Per-request latency histograms of a simulated server, observed as each request finishes (modelled seconds): the
// intervals vLLM's and SGLang's own /metrics expose (queue, prefill, decode, TTFT, E2E, per-token, and on a P/D
// worker the KV transfer), which http/metrics.ts renders under each engine's names. Engine-neutral here.
import type { SimRequest } from './request';

/** A Prometheus histogram as rendered: cumulative counts at each bound (then +Inf = count), sum and count. */
export interface HistogramView {
  bounds: readonly number[];
  cumulative: number[];
  sum: number;
  count: number;
}

/** Every observation of one interval (value, times), so each engine's own buckets can be drawn from it. */
class Series {
  private readonly values: number[] = [];
  private readonly times: number[] = [];
  sum = 0;
  count = 0;

  observe(v: number, times = 1): void {
    if (!Number.isFinite(v) || times <= 0) return;
    this.values.push(Math.max(0, v));
    this.times.push(times);
    this.sum += Math.max(0, v) * times;
    this.count += times;
  }

  view(bounds: readonly number[]): HistogramView {
    const cumulative = bounds.map(() => 0);
    this.values.forEach((v, i) => {
      const t = this.times[i] as number;
      for (let b = 0; b < bounds.length; b++) if (v <= (bounds[b] as number)) cumulative[b] = (cumulative[b] as number) + t;
    });
    return { bounds, cumulative, sum: this.sum, count: this.count };
  }
}

/** The intervals kept, each as the engines define them (docs/ENGINES.md "Worker metrics of a P/D unit"). */
export type LatencyKey =
  /** Queued (reached this worker, a decode worker's KV wait included) to first scheduled: vLLM's queue interval. */
  | 'queue_from_received'
  /** Waiting queue (after its KV landed, on a decode worker) to first scheduled: SGLang's queue_time. */
  | 'queue_from_arrival'
  /** First scheduled to first token. */
  | 'prefill'
  /** First token to last token. */
  | 'decode'
  /** Reached this worker to first token. */
  | 'ttft'
  /** Reached this worker to finish. */
  | 'e2e'
  /** Per request: decode interval over its tokens after the first (observed once per such token). */
  | 'per_token'
  /** A P/D decode worker: its request's KV transfer (reached this worker to KV landed). */
  | 'kv_received'
  /** A P/D prefill worker: the modelled transfer of its request's KV to the decode worker. */
  | 'kv_sent';

const KEYS: readonly LatencyKey[] = ['queue_from_received', 'queue_from_arrival', 'prefill', 'decode', 'ttft', 'e2e', 'per_token', 'kv_received', 'kv_sent'];

export class LatencyLog {
  private readonly h: Record<LatencyKey, Series>;

  /** `sentSeconds`: on a P/D prefill worker, the modelled transfer of a prompt of that many tokens (pd.ts). */
  constructor(private readonly sentSeconds?: (promptTokens: number) => number) {
    this.h = Object.fromEntries(KEYS.map((k) => [k, new Series()])) as Record<LatencyKey, Series>;
  }

  /** One interval's histogram at these bucket bounds (seconds). */
  view(key: LatencyKey, bounds: readonly number[]): HistogramView {
    return this.h[key].view(bounds);
  }

  /** A request that finished with at least one token (a request aborted or refused before its first token is not observed). */
  finished(r: SimRequest): void {
    if (!Number.isFinite(r.firstAt) || !Number.isFinite(r.startedAt) || !Number.isFinite(r.doneAt)) return;
    const received = Number.isFinite(r.receivedAt) ? r.receivedAt : r.arrivalAt;
    this.h.queue_from_received.observe(r.startedAt - received);
    this.h.queue_from_arrival.observe(r.startedAt - r.arrivalAt);
    this.h.prefill.observe(r.firstAt - r.startedAt);
    this.h.decode.observe(r.doneAt - r.firstAt);
    this.h.ttft.observe(r.firstAt - received);
    this.h.e2e.observe(r.doneAt - received);
    if (r.generated > 1) this.h.per_token.observe((r.doneAt - r.firstAt) / (r.generated - 1), r.generated - 1);
    if (Number.isFinite(r.receivedAt)) this.h.kv_received.observe(r.arrivalAt - r.receivedAt);
    if (this.sentSeconds) this.h.kv_sent.observe(this.sentSeconds(r.promptLen));
  }
}
