// Which row a measuring loop sends next: one thread's FIFO of due rows under the concurrency cap (LocalRows), or one row counter and one slot count in shared memory that worker threads take from, each within its share of the cap (SharedRows).

/** What a measuring loop asks of its rows: the next one it may send, a slot given back, when to look again. */
export interface RowSource {
  /** The index of the next row due by `now` (ms after t0) that may start now, its slot taken; -1 when none. */
  take(now: number): number;
  /** A row taken by this loop has ended: its slot is free. */
  release(): void;
  /**
   * When this loop should look again (ms after t0), or undefined when something else will wake it (a request of its
   * own ending) or nothing is left. `idle`: this loop has nothing in flight.
   */
  nextDue(now: number, idle: boolean): number | undefined;
  /** Every row has been taken (by this loop or another). */
  exhausted(): boolean;
}

export class LocalRows implements RowSource {
  private readonly ready: number[] = [];
  private head = 0;
  private next = 0;
  private active = 0;

  constructor(
    private readonly arrivals: Float64Array,
    private readonly limit: number,
  ) {}

  take(now: number): number {
    const { arrivals, ready } = this;
    while (this.next < arrivals.length && (arrivals[this.next] as number) <= now) ready.push(this.next++);
    if (this.head >= ready.length || this.active >= this.limit) return -1;
    this.active++;
    return ready[this.head++] as number;
  }

  release(): void {
    this.active--;
  }

  nextDue(): number | undefined {
    return this.next < this.arrivals.length ? (this.arrivals[this.next]) : undefined;
  }

  exhausted(): boolean {
    return this.head >= this.arrivals.length;
  }
}

/** Int32 cells of the shared state. */
export const NEXT_ROW = 0;
export const ACTIVE_SLOTS = 1;
export const STARTED = 2;
export const SHARED_CELLS = 3;

/** How often a worker with nothing in flight looks for a slot another worker has left free, or for the end (ms). */
export const IDLE_POLL_MS = 2;

export function sharedState(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(SHARED_CELLS * Int32Array.BYTES_PER_ELEMENT));
}

/**
 * Rows taken in arrival order by several threads. A slot is taken before the row (a row is never taken without
 * one), and a worker holds at most `quota` slots, so no worker starves the others of the cap at rate inf; a slot a
 * worker frees goes to that worker's next row first, which keeps the cap full without waking the others.
 */
export class SharedRows implements RowSource {
  private mine = 0;

  constructor(
    private readonly arrivals: Float64Array,
    private readonly state: Int32Array,
    private readonly limit: number,
    private readonly quota: number,
  ) {}

  take(now: number): number {
    const { state, arrivals } = this;
    if (this.mine >= this.quota) return -1;
    for (;;) {
      const i = Atomics.load(state, NEXT_ROW);
      if (i >= arrivals.length || (arrivals[i] as number) > now) return -1;
      if (Atomics.add(state, ACTIVE_SLOTS, 1) >= this.limit) {
        Atomics.sub(state, ACTIVE_SLOTS, 1);
        return -1;
      }
      if (Atomics.compareExchange(state, NEXT_ROW, i, i + 1) === i) {
        this.mine++;
        return i;
      }
      Atomics.sub(state, ACTIVE_SLOTS, 1);
    }
  }

  release(): void {
    Atomics.sub(this.state, ACTIVE_SLOTS, 1);
    this.mine--;
  }

  nextDue(now: number, idle: boolean): number | undefined {
    const i = Atomics.load(this.state, NEXT_ROW);
    if (i >= this.arrivals.length) return undefined;
    const due = this.arrivals[i] as number;
    if (due > now) return due;
    return idle ? now + IDLE_POLL_MS : undefined;
  }

  exhausted(): boolean {
    return Atomics.load(this.state, NEXT_ROW) >= this.arrivals.length;
  }
}
