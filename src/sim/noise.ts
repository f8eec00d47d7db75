// Seeded launch-to-launch variation of the simulated engine: the per-launch step-cost factor (this launch got
// a slower or faster GPU), per-step jitter, and which requests the error-rate fault fails.
//
// Everything here is a pure function of (--sim-seed, --sim-launch-salt): a runner that gives each launch its
// own salt sees launches of the same command differ as real ones do, and can replay any launch exactly.
import { mix32, unit } from './tokens';

// Tags keep the draws of each purpose independent of one another and of the engine's other seeded choices.
const LAUNCH_TAG = 0x6c61756e;
const FACTOR_TAG = 0xfac7;
const JITTER_TAG = 0x717e;
const ERROR_TAG = 0xe770;

/** No factor goes below this, whatever sigma is: a step never becomes free. */
const MIN_FACTOR = 0.05;

/** The 32-bit stream one launch draws from: the seed and the launch salt, mixed. */
export function launchStream(seed: number, salt: number): number {
  return mix32(mix32(seed >>> 0, LAUNCH_TAG), salt >>> 0);
}

/** A standard normal deviate from a hash (Box-Muller over two derived uniforms). */
export function gaussian(h: number): number {
  const u1 = Math.max(2 ** -32, unit(mix32(h, 1)));
  const u2 = unit(mix32(h, 2));
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/** 1 + sd·z, clamped to [max(0.05, 1 − 4·sd), 1 + 4·sd]. */
export function clampedFactor(z: number, sd: number): number {
  if (!(sd > 0)) return 1;
  const lo = Math.max(MIN_FACTOR, 1 - 4 * sd);
  return Math.min(1 + 4 * sd, Math.max(lo, 1 + sd * z));
}

/**
 * The launch's step-cost factor: every step of this server takes this many times its modelled cost (above 1:
 * a slower GPU). Normal around 1 with sd `sigma`, clamped to 4 sd; exactly 1 when sigma is 0.
 */
export function launchFactor(seed: number, salt: number, sigma: number): number {
  return clampedFactor(gaussian(mix32(launchStream(seed, salt), FACTOR_TAG)), sigma);
}

/** Per-step cost multipliers of one replica (`stream` mixed with its index): seeded, normal around 1 with sd `sd`. */
export class StepJitter {
  private readonly base: number;
  private step = 0;

  constructor(
    stream: number,
    readonly sd: number,
  ) {
    this.base = mix32(stream, JITTER_TAG);
  }

  next(): number {
    const f = this.peekNext();
    this.step++;
    return f;
  }

  /** The factor next() will return, without drawing it. */
  peekNext(): number {
    if (!(this.sd > 0)) return 1;
    return clampedFactor(gaussian(mix32(this.base, this.step + 1)), this.sd);
  }
}

/** How the error-rate fault fails a request: HTTP 500 before any output, or the stream cut partway. */
export type RequestFailure = 'http-500' | 'cut';

/**
 * Whether the `index`-th generation request of a launch fails under `rate`, and how. Each index draws
 * independently, so the failures among the first N requests do not depend on the order they arrived in;
 * half of them (in expectation) are each kind.
 */
export function requestFailure(stream: number, index: number, rate: number): RequestFailure | undefined {
  if (!(rate > 0)) return undefined;
  const u = unit(mix32(mix32(stream, ERROR_TAG), index));
  if (u >= rate) return undefined;
  return u < rate / 2 ? 'http-500' : 'cut';
}
