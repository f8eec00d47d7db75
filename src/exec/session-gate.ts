// Bounds concurrent exec sessions on one ssh connection below sshd's MaxSessions, keeping one slot for teardown so a stop never waits behind servers.

interface Waiter {
  priority: boolean;
  wake: () => void;
}

export class SessionGate {
  private inUse = 0;
  private readonly queue: Waiter[] = [];

  /** max: sshd's MaxSessions (10 by default); ordinary work gets max - 1 of them. */
  constructor(private readonly max: number) {
    if (max < 2) throw new Error('maxSessions must be at least 2');
  }

  get used(): number {
    return this.inUse;
  }

  private fits(priority: boolean): boolean {
    return this.inUse < (priority ? this.max : this.max - 1);
  }

  /** Resolves with a release function (idempotent) once a slot is free. */
  async acquire(priority = false): Promise<() => void> {
    if (this.fits(priority) && (priority || this.queue.length === 0)) {
      this.inUse++;
    } else {
      // pump() takes the slot on the waiter's behalf before waking it.
      await new Promise<void>((wake) => {
        const w: Waiter = { priority, wake };
        // Priority waiters go ahead of ordinary ones.
        const at = priority ? this.queue.findIndex((q) => !q.priority) : -1;
        if (at < 0) this.queue.push(w);
        else this.queue.splice(at, 0, w);
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.inUse--;
      this.pump();
    };
  }

  private pump(): void {
    for (let i = 0; i < this.queue.length; ) {
      const w = this.queue[i] as Waiter;
      if (this.fits(w.priority)) {
        this.queue.splice(i, 1);
        this.inUse++;
        w.wake();
      } else {
        i++;
      }
    }
  }
}
