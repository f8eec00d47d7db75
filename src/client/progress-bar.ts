// A one-line progress bar for a TTY (stderr), fed by the run's progress events; silent elsewhere.
import type { BenchEvent } from './types';

export class ProgressBar {
  private shown = false;

  constructor(private readonly stream: NodeJS.WriteStream) {}

  static wanted(stream: NodeJS.WriteStream, disabled: boolean): boolean {
    return !disabled && Boolean(stream.isTTY) && process.env.TERM !== 'dumb';
  }

  onEvent(e: BenchEvent): void {
    if (e.type === 'phase') {
      if (e.phase === 'finish') this.done();
      else if (e.phase !== 'measure') this.line(`${e.phase}${e.detail ? ` (${e.detail})` : ''}...`);
      return;
    }
    if (e.type !== 'progress') return;
    const finished = e.completed + e.failed;
    const width = 24;
    const fill = e.total > 0 ? Math.round((finished / e.total) * width) : 0;
    const bar = `${'#'.repeat(fill)}${'.'.repeat(width - fill)}`;
    const ttft = e.ttftMsP50 === null ? '-' : e.ttftMsP50.toFixed(0);
    const tpot = e.tpotMsP50 === null ? '-' : e.tpotMsP50.toFixed(1);
    this.line(
      `[${bar}] ${finished}/${e.total}${e.failed ? ` (${e.failed} failed)` : ''} | ${e.inFlight} in flight | ${e.requestsPerS.toFixed(1)} req/s ${e.outputTokensPerS.toFixed(0)} tok/s | TTFT p50 ${ttft} ms TPOT p50 ${tpot} ms | ${e.elapsedS.toFixed(0)} s`,
    );
  }

  private line(s: string): void {
    const cols = this.stream.columns || 120;
    this.stream.write(`\r${s.slice(0, cols - 1)}\u001b[K`);
    this.shown = true;
  }

  done(): void {
    if (this.shown) this.stream.write('\r\u001b[K');
    this.shown = false;
  }
}
