// Debounces validation per document: a new edit cancels the pending run; opening runs at once.

export class DiagnosticScheduler {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly delay: () => number,
    private readonly run: (uri: string) => void,
  ) {}

  schedule(uri: string, immediate: boolean): void {
    this.cancel(uri);
    const ms = immediate ? 0 : Math.max(0, this.delay());
    const t = setTimeout(() => {
      this.timers.delete(uri);
      this.run(uri);
    }, ms);
    this.timers.set(uri, t);
  }

  cancel(uri: string): void {
    const t = this.timers.get(uri);
    if (t) clearTimeout(t);
    this.timers.delete(uri);
  }
}
