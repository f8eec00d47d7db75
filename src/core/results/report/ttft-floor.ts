// The simulated-engine caveat's word on TTFT: a sped-up simulator's per-request floor (the runner's ttft_floor block,
// runner/ttft-floor.ts) — how many simulated rows had it removed, how much, and which could not be trusted.
import { pyGet } from '../../py/ops';
import { numberOf, strAt } from './values';
import type { Work } from './work';

/** One sentence for the simulated caveat, or undefined when no row records a floor. */
export function ttftFloorText(work: readonly Work[]): string | undefined {
  const rows = work.filter((w) => pyGet(w.row, 'ttft_floor') !== undefined && pyGet(w.row, 'ttft_floor') !== null);
  if (!rows.length) return undefined;
  const count = (a: string): number => rows.filter((w) => strAt(w.row, 'ttft_floor.action') === a).length;
  const removed = rows.map((w) => numberOf(pyGet(w.row, 'ttft_floor.removed_ms')) ?? 0).filter((x) => x > 0);
  const speeds = [...new Set(rows.map((w) => strAt(w.row, 'ttft_floor.speed')))].join(', ');
  const parts = [`${count('subtracted') + count('uncertain')} had ${removed.length ? `${Math.round(Math.min(...removed))}–${Math.round(Math.max(...removed))} ms` : 'it'} removed from TTFT and E2E`];
  if (count('negligible')) parts.push(`${count('negligible')} kept it (under 2% of the TTFT limit)`);
  if (count('uncertain')) parts.push(`${count('uncertain')} are uncertain (the floor varied by over 5% of the limit: rerun at a lower --sim-speed)`);
  if (count('unmeasured')) parts.push(`${count('unmeasured')} could not measure it`);
  return `At speed x${speeds} each request's fixed wall-clock cost (HTTP, timers, the client) is multiplied by the speed; of ${rows.length} simulated row(s) with a TTFT floor, ${parts.join('; ')} (see each row's ttft_floor).`;
}
