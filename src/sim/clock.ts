// Simulated time: seconds on the modelled GPU, running `speed` times faster than the wall clock.
import { performance } from 'node:perf_hooks';

/** What the engine needs of a clock: the wall clock scaled (SimClock) or a virtual one that runs no timers (VirtualClock). */
export interface EngineClock {
  readonly speed: number;
  now(): number;
  wallMsUntil(t: number): number;
  /** A virtual clock runs `fn` when its time reaches `t` instead of the engine arming a wall-clock timer. */
  at?(t: number, fn: () => void, quiet?: boolean): void;
  /** A virtual clock: when the next event that is not a quiet engine step is due (Infinity: none). */
  nextLoud?(): number;
}

export class SimClock implements EngineClock {
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
