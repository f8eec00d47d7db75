// The undici pool every measuring thread sends through: one connection per request in flight (up to the cap), no pipelining, no body or header timeout (the run's own deadline applies).
import { Pool } from 'undici';

export function newPool(origin: string, connections: number | null): Pool {
  return new Pool(origin, {
    connections,
    pipelining: 1,
    keepAliveTimeout: 60_000,
    keepAliveMaxTimeout: 600_000,
    headersTimeout: 0,
    bodyTimeout: 0,
    connect: { timeout: 30_000 },
  });
}
