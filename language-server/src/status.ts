// The status bar's notification (`autobench/status`), per document: sent at once when what the item shows changes
// (flag sources and their label, error and warning counts), else at most once a second, carrying the latest validation's time.
// Typing changes only the tooltip's "last validated" line, which need not be repainted on every keystroke.
import type { StatusParams } from '../../src/shared/protocol';

/** How often an unchanged status (only its time and ms moved on) is sent while a document is being edited. */
export const STATUS_INTERVAL_MS = 1000;

const shown = (s: StatusParams): string => JSON.stringify([s.label, s.sources, s.builtinOnly, s.errors, s.warnings]);

interface Sent {
  shown: string;
  at: number;
  /** The latest status not sent yet, and the timer that sends it. */
  pending?: { status: StatusParams; timer: NodeJS.Timeout };
}

export class StatusNotifier {
  private readonly sent = new Map<string, Sent>();

  constructor(
    private readonly send: (s: StatusParams) => void,
    private readonly now: () => number = () => Date.now(),
  ) {}

  update(s: StatusParams): void {
    const last = this.sent.get(s.uri);
    if (!last || last.shown !== shown(s) || this.now() - last.at >= STATUS_INTERVAL_MS) {
      if (last?.pending) clearTimeout(last.pending.timer);
      this.sendNow(s);
      return;
    }
    if (last.pending) {
      last.pending.status = s;
      return;
    }
    const timer = setTimeout(() => {
      const p = this.sent.get(s.uri)?.pending;
      if (p) this.sendNow(p.status);
    }, last.at + STATUS_INTERVAL_MS - this.now());
    last.pending = { status: s, timer };
  }

  private sendNow(s: StatusParams): void {
    this.sent.set(s.uri, { shown: shown(s), at: this.now() });
    this.send(s);
  }

  /** A closed document: nothing more is sent for it. */
  forget(uri: string): void {
    const last = this.sent.get(uri);
    if (last?.pending) clearTimeout(last.pending.timer);
    this.sent.delete(uri);
  }
}
