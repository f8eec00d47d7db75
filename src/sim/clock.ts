// Simulated time: seconds on the modelled GPU, running `speed` times faster than the wall clock.
import { performance } from 'node:perf_hooks';

export class SimClock {
  private readonly t0 = performance.now();

  constructor(readonly speed: number) {
    if (!(speed > 0) || !Number.isFinite(speed)) throw new RangeError(`sim speed must be a positive number, got ${speed}`);
  }

  /** Simulated seconds since the clock started. */
  now(): number {
    return ((performance.now() - this.t0) / 1000) * this.speed;
  }

  /** Wall-clock milliseconds until simulated time `t` (negative when it has passed). */
  wallMsUntil(t: number): number {
    return ((t - this.now()) / this.speed) * 1000;
  }

  /** Wall-clock seconds a simulated duration takes. */
  toWall(simSeconds: number): number {
    return simSeconds / this.speed;
  }
}
