// Shared helpers for the client tests: a fake server per test and small hand-made workloads.
import { FakeServer, type FakeServerOptions, type Truth } from './fake-server';
import type { Workload, WorkloadRow } from '../../src/core/workload/types';

export async function withServer<T>(opts: FakeServerOptions, fn: (srv: FakeServer) => Promise<T>): Promise<T> {
  const srv = new FakeServer({ detailed: true, ...opts });
  await srv.listen();
  try {
    return await fn(srv);
  } finally {
    await srv.close();
  }
}

export function rows(n: number, outputLen: number, extra: Partial<WorkloadRow> = {}): WorkloadRow[] {
  return Array.from({ length: n }, (_, i) => ({ prompt: `question number ${i} about things`, promptLen: 6, outputLen, scenario: 'test', ...extra }));
}

export function workload(r: WorkloadRow[], name = 'custom'): Workload {
  return { name, rows: r, notes: [], promptLenCheck: 'exact', timed: r.some((x) => x.arrivalMs !== undefined) };
}

/** Sum of a list. */
export function sum(v: readonly number[]): number {
  return v.reduce((a, b) => a + b, 0);
}

/** Most requests the server was handling at once (body received .. last write), from its own record. */
export function serverPeak(truths: Truth[]): number {
  const ev: [number, number][] = [];
  for (const t of truths) ev.push([t.tBody, 1], [t.tEnd, -1]);
  ev.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let cur = 0;
  let peak = 0;
  for (const [, d] of ev) peak = Math.max(peak, (cur += d));
  return peak;
}
