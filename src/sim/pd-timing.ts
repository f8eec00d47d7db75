// The simulated P/D router's account of a unit's TTFT: each request's modelled times on its prefill worker and on its
// decode worker (read from the legs' answers), split into prefill queue, prefill, KV transfer, decode queue and first
// decode, kept for the runner at `GET /autobench/sim/pd-split?after=N`. The router's own hops are wall time, which the
// runner's TTFT floor accounts for; they are not in the split.
import { Transform, type TransformCallback } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StringDecoder } from 'node:string_decoder';
import { sendJson, SIM_HEADER } from './http/io';
import { TIMING_HEADER } from './http/ttft-report';
import type { Upstream } from './pd-legs';

export const PD_SPLIT_PATH = '/autobench/sim/pd-split';

/** A leg's modelled times (simulated seconds, each in its own worker's clock; jobs.ts simTiming). */
export interface LegTiming {
  arrival: number;
  admitted: number;
  first_token: number;
  received?: number;
}

/** One request's modelled TTFT and its parts (ms). */
export interface PdSplit {
  prefill_queue_ms: number;
  prefill_ms: number;
  transfer_ms: number;
  decode_queue_ms: number;
  first_decode_ms: number;
  ttft_ms: number;
}

const TIMING_RE = /"autobench_sim_timing":(\{[^{}]*\})/;
const STRIP_RE = /,"autobench_sim_time":[-0-9.eE+]+|,"autobench_sim_timing":\{[^{}]*\}/g;

/** The first modelled-times object in a worker's answer (a JSON body or SSE events), if it has one with every time set. */
export function timingIn(text: string): LegTiming | undefined {
  const m = TIMING_RE.exec(text);
  if (!m) return undefined;
  try {
    const t = JSON.parse(m[1] as string) as Partial<Record<keyof LegTiming, unknown>>;
    const num = (x: unknown): number => (typeof x === 'number' ? x : NaN);
    const out: LegTiming = { arrival: num(t.arrival), admitted: num(t.admitted), first_token: num(t.first_token), ...(typeof t.received === 'number' ? { received: t.received } : {}) };
    return [out.arrival, out.admitted, out.first_token].every(Number.isFinite) ? out : undefined;
  } catch {
    return undefined;
  }
}

const ms = (s: number): number => Math.round(s * 1e6) / 1e3;

/** The split of a request's TTFT from its two legs; undefined when a time is missing or runs backwards. */
export function splitOf(p: LegTiming, d: LegTiming): PdSplit | undefined {
  const received = d.received ?? d.arrival;
  const parts = [p.admitted - p.arrival, p.first_token - p.admitted, d.arrival - received, d.admitted - d.arrival, d.first_token - d.admitted];
  if (!parts.every((x) => Number.isFinite(x) && x >= -1e-9)) return undefined;
  const [pq, pf, tr, dq, fd] = parts.map((x) => Math.max(0, x)) as [number, number, number, number, number];
  return { prefill_queue_ms: ms(pq), prefill_ms: ms(pf), transfer_ms: ms(tr), decode_queue_ms: ms(dq), first_decode_ms: ms(fd), ttft_ms: ms(pq + pf + tr + dq + fd) };
}

/** Entries kept at least (up to twice as many); `seq` counts every one. */
const KEEP = 100_000;

export class SplitAccount {
  private seq = 0;
  private entries: PdSplit[] = [];

  note(s: PdSplit): void {
    this.entries.push(s);
    this.seq++;
    if (this.entries.length > 2 * KEEP) this.entries.splice(0, this.entries.length - KEEP);
  }

  /** `{ seq, split }`: the splits noted after entry `after`. */
  send(url: string, res: ServerResponse): void {
    const q = url.indexOf('?');
    const after = Number(new URLSearchParams(q >= 0 ? url.slice(q + 1) : '').get('after') ?? '0');
    const first = this.seq - this.entries.length;
    const from = Math.max(0, (Number.isFinite(after) ? after : 0) - first);
    sendJson(res, 200, { seq: this.seq, split: this.entries.slice(from) });
  }
}

/**
 * The decode leg's answer on its way to the client: its first modelled-times object goes to `onTiming`, and unless the
 * client asked for modelled times itself they are taken out, so the client reads what it would from a real unit.
 * SSE answers pass event by event; a JSON answer whole.
 */
export class TimingTap extends Transform {
  private buf = '';
  private found = false;
  private readonly text = new StringDecoder('utf8');

  constructor(
    private readonly sse: boolean,
    private readonly strip: boolean,
    private readonly onTiming: (t: LegTiming) => void,
  ) {
    super();
  }

  private pass(text: string): string {
    if (!this.found) {
      const t = timingIn(text);
      if (t) {
        this.found = true;
        this.onTiming(t);
      }
    }
    return this.strip ? text.replace(STRIP_RE, '') : text;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    this.buf += this.text.write(chunk);
    if (!this.sse) return done();
    const end = this.buf.lastIndexOf('\n\n');
    if (end < 0) return done();
    const events = this.buf.slice(0, end + 2);
    this.buf = this.buf.slice(end + 2);
    done(null, this.pass(events));
  }

  override _flush(done: TransformCallback): void {
    this.buf += this.text.end();
    done(null, this.buf ? this.pass(this.buf) : undefined);
  }
}

/**
 * The decode leg's answer relayed to the client, labelled simulated. A client that asked for modelled times (the
 * TTFT-floor probe) reads its arrival in the decode worker's clock moved back by the prefill leg's modelled time, so
 * first token - arrival is the unit's modelled TTFT; each request's split goes to `onSplit`.
 */
export function relayDecodeLeg(req: IncomingMessage, res: ServerResponse, dec: Upstream, prefill: LegTiming | undefined, onSplit: (split: PdSplit) => void): void {
  const headers: Record<string, string> = { [SIM_HEADER]: 'true' };
  for (const k of ['content-type', 'cache-control']) if (typeof dec.headers[k] === 'string') headers[k] = dec.headers[k];
  const clientTiming = req.headers[TIMING_HEADER] === '1';
  const arrival = Number(dec.headers['x-autobench-sim-arrival']);
  if (clientTiming && prefill && Number.isFinite(arrival)) headers['x-autobench-sim-arrival'] = String(arrival - (prefill.first_token - prefill.arrival));
  res.writeHead(dec.status, headers);
  res.flushHeaders();
  const tap = new TimingTap(String(dec.headers['content-type'] ?? '').includes('event-stream'), !clientTiming, (decode) => {
    const split = prefill && splitOf(prefill, decode);
    if (split) onSplit(split);
  });
  dec.res.pipe(tap).pipe(res);
}
