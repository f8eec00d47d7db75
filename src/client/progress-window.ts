// The live counters of a measured run and its current progress window (requests, tokens, TTFT and TPOT medians since the last progress event), fed one finished request at a time.
import { tpotOf } from './metrics';
import type { RequestRecord } from './record';
import type { BenchProgress } from './types';

/** The median of `v`, sorting it in place; null when empty. */
function median(v: number[]): number | null {
  if (v.length === 0) return null;
  const s = v.sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? (s[m] as number) : ((s[m - 1] as number) + (s[m] as number)) / 2;
}

export class ProgressWindow {
  completed = 0;
  failed = 0;
  private outputTokens = 0;
  private winDone = 0;
  private winTokens = 0;
  private winTtft: number[] = [];
  private winTpot: number[] = [];
  private lastTick = 0;

  /** Counts a finished request in the totals and the window. */
  count(rec: RequestRecord): void {
    if (!rec.success) {
      this.failed++;
      return;
    }
    this.completed++;
    this.outputTokens += rec.outputTokens;
    this.winDone++;
    this.winTokens += rec.outputTokens;
    this.winTtft.push(rec.ttftMs);
    const tp = tpotOf(rec);
    if (tp !== undefined) this.winTpot.push(tp);
  }

  /** The progress event for the window ending `now` (ms after t0); a new window starts. */
  tick(now: number, total: number, started: number, inFlight: number): BenchProgress {
    const dt = (now - this.lastTick) / 1000;
    this.lastTick = now;
    const p: BenchProgress = {
      type: 'progress',
      elapsedS: now / 1000,
      total,
      started,
      completed: this.completed,
      failed: this.failed,
      inFlight,
      outputTokens: this.outputTokens,
      requestsPerS: dt > 0 ? this.winDone / dt : 0,
      outputTokensPerS: dt > 0 ? this.winTokens / dt : 0,
      ttftMsP50: median(this.winTtft),
      tpotMsP50: median(this.winTpot),
    };
    this.winDone = 0;
    this.winTokens = 0;
    this.winTtft = [];
    this.winTpot = [];
    return p;
  }
}
