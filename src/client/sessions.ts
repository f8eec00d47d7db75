// Multi-turn sessions in a run's records: per turn, its TTFT, the prefix-cache hits the server reported and how late
// the client sent it against its think time; per session, whether every turn succeeded and, under a goodput SLO,
// whether every turn met it (session goodput). Only for runs whose rows have later turns.
import { isGood } from './metrics';
import type { GoodputSlo } from './metrics';
import type { RequestRecord } from './record';

export interface TurnStats {
  turn: number;
  requests: number;
  p50TtftMs: number | null;
  /** Cached prompt tokens / prompt tokens, over the turn's requests that reported them; null when none did. */
  cacheHitFraction: number | null;
  /** Start - due time of the turn's requests (after a think time: the client's lateness), p99; null for the first turn. */
  p99LateMs: number | null;
}

export interface SessionStats {
  sessions: number;
  /** Sessions whose every turn succeeded. */
  completed: number;
  /** Sessions whose every turn met the goodput SLO, and their rate (per second); null without an SLO. */
  good: number | null;
  sessionGoodput: number | null;
  turns: TurnStats[];
}

function quantile(xs: number[], q: number): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const i = (s.length - 1) * q;
  const lo = Math.floor(i);
  return (s[lo] as number) + ((s[Math.ceil(i)] as number) - (s[lo] as number)) * (i - lo);
}

function turnStats(turn: number, rs: readonly RequestRecord[]): TurnStats {
  const ok = rs.filter((r) => r.success);
  const cached = ok.filter((r) => r.cachedTokens !== undefined);
  const prompt = cached.reduce((a, r) => a + (r.promptTokensServer ?? r.promptLen), 0);
  return {
    turn,
    requests: rs.length,
    p50TtftMs: quantile(ok.map((r) => r.ttftMs).filter(Number.isFinite), 0.5),
    cacheHitFraction: cached.length && prompt > 0 ? cached.reduce((a, r) => a + (r.cachedTokens ?? 0), 0) / prompt : null,
    p99LateMs: turn === 0 ? null : quantile(rs.map((r) => r.startMs - r.arrivalMs), 0.99),
  };
}

/** The sessions of a run's measured records; undefined when no row had a later turn. */
export function sessionStats(records: readonly RequestRecord[], durationMs: number, slo?: GoodputSlo): SessionStats | undefined {
  const measured = records.filter((r) => !r.warmup);
  if (!measured.some((r) => r.turn > 0)) return undefined;
  const bySession = new Map<number, RequestRecord[]>();
  const byTurn = new Map<number, RequestRecord[]>();
  for (const r of measured) {
    bySession.set(r.index, [...(bySession.get(r.index) ?? []), r]);
    byTurn.set(r.turn, [...(byTurn.get(r.turn) ?? []), r]);
  }
  const sessions = [...bySession.values()];
  const hasSlo = slo !== undefined && (slo.ttftMs !== undefined || slo.tpotMs !== undefined || slo.e2eMs !== undefined);
  const good = hasSlo ? sessions.filter((s) => s.every((r) => isGood(r, slo))).length : null;
  return {
    sessions: sessions.length,
    completed: sessions.filter((s) => s.every((r) => r.success)).length,
    good,
    sessionGoodput: good === null || durationMs <= 0 ? null : good / (durationMs / 1000),
    turns: [...byTurn.keys()].sort((a, b) => a - b).map((t) => turnStats(t, byTurn.get(t) ?? [])),
  };
}
