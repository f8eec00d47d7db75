// Debounces validation per document: a new edit cancels the pending run; opening runs at once.

/** A pending run: a timer for a quiet period, an immediate for none (Node clamps a 0 ms timer to 1 ms). */
type Pending = { timer: NodeJS.Timeout } | { immediate: NodeJS.Immediate };

export class DiagnosticScheduler {
  private readonly pending = new Map<string, Pending>();

  constructor(
    private readonly delay: () => number,
    private readonly run: (uri: string) => void,
  ) {}

  schedule(uri: string, immediate: boolean): void {
    this.cancel(uri);
    const ms = immediate ? 0 : Math.max(0, this.delay());
    const fire = (): void => {
      this.pending.delete(uri);
      this.run(uri);
    };
    // With no quiet period the run still waits for the messages already read (they may be more edits).
    this.pending.set(uri, ms > 0 ? { timer: setTimeout(fire, ms) } : { immediate: setImmediate(fire) });
  }

  cancel(uri: string): void {
    const p = this.pending.get(uri);
    if (p && 'timer' in p) clearTimeout(p.timer);
    else if (p) clearImmediate(p.immediate);
    this.pending.delete(uri);
  }
}
