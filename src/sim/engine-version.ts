// Which release of a real engine the simulator stands in for (`--sim-version`): behaviours that changed between
// releases (vLLM's --help=all, its multi-node flags, request logging; TokenSpeed's CLI; the gateway's streamed usage)
// are decided here, from the version, never from a guess.
import type { FrameworkKey } from '../core/frameworks/types';
import { SIM_FRAMEWORKS } from './fw';
import type { SimOptions } from './options';

/** The engine version a simulated server answers as: `--sim-version`, else the release its flag table follows. */
export function simEngineVersion(fw: FrameworkKey, options: Pick<SimOptions, 'engineVersion'>): string {
  return options.engineVersion ?? SIM_FRAMEWORKS[fw].version.replace(/\+autobench\.sim$/, '');
}

/** Numeric release parts of a version string (`0.10.1.1` -> [0, 10, 1, 1]; `0.5.6.post2` -> [0, 5, 6]). */
function parts(v: string): number[] {
  const m = /^v?(\d+(?:\.\d+)*)/.exec(v.trim());
  return m ? (m[1] as string).split('.').map(Number) : [];
}

/** -1, 0 or 1 as version `a` is older than, the same release as, or newer than `b` (missing parts count as 0). */
export function compareVersions(a: string, b: string): number {
  const x = parts(a);
  const y = parts(b);
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return d < 0 ? -1 : 1;
  }
  return 0;
}

/** True when `v` is `min` or newer. A version with no numbers (a branch name) counts as the newest. */
export function versionAtLeast(v: string, min: string): boolean {
  return parts(v).length === 0 || compareVersions(v, min) >= 0;
}
