// Work that must not run while socket reads are being timestamped: queued from the I/O callbacks, run in the check phase (setImmediate).

/**
 * Node runs every ready socket's read callback in the poll phase, then setImmediate callbacks. Our
 * read callbacks only take a timestamp and keep the bytes; parsing SSE and JSON, finishing records
 * and (through the finished records) starting the next requests happen here, after every socket
 * that was ready has been stamped.
 */
export class DeferredQueue {
  private work: { process(): void }[] = [];
  private scheduled = false;
  private readonly run = (): void => this.drain();

  /** Something with bytes or an ending to process. */
  add(item: { process(): void }): void {
    this.work.push(item);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.run);
  }

  private drain(): void {
    this.scheduled = false;
    if (this.work.length > 0) {
      const work = this.work;
      this.work = [];
      for (const w of work) w.process();
    }
  }
}
