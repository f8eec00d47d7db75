// What can stop a run before it measures anything, typed so a caller can say what fixes it: a base URL that
// is not one, a server that cannot be reached or never becomes ready, no model, every warmup failing, a failed cache flush.
import { isLoopbackHost } from '../core/loopback';

export type SetupFailure = 'bad-url' | 'unreachable' | 'not-ready' | 'no-model' | 'warmup-failed' | 'flush-failed';

export class BenchSetupError extends Error {
  constructor(
    readonly failure: SetupFailure,
    message: string,
  ) {
    super(message);
    this.name = 'BenchSetupError';
  }
}

/** The origin the pool connects to and the path prefix every request carries, or why `baseUrl` is not usable. */
export type ParsedBaseUrl = { ok: true; origin: string; basePath: string } | { ok: false; problem: string };

export function parseBaseUrl(baseUrl: string): ParsedBaseUrl {
  let u: URL;
  try {
    u = new URL(baseUrl);
  } catch {
    return { ok: false, problem: `'${baseUrl}' is not a URL` };
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    // `localhost:8000` parses as the scheme `localhost:`; say so rather than "only http".
    return { ok: false, problem: /^[a-z][a-z0-9+.-]*:\d/i.test(baseUrl) ? `'${baseUrl}' has no scheme` : `'${baseUrl}' is not an http or https URL` };
  }
  if (!u.hostname) return { ok: false, problem: `'${baseUrl}' names no host` };
  if (u.search || u.hash) return { ok: false, problem: `'${baseUrl}' has a query or fragment; give only scheme, host, port and an optional path prefix` };
  return { ok: true, origin: u.origin, basePath: u.pathname.replace(/\/+$/, '') };
}

/** Socket errors that mean nobody is listening (or the host does not exist): polling again will not help. */
const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EADDRNOTAVAIL: 'address not available',
};

/** 'connection refused' and the like for an error (or its cause) that says nothing listens there; undefined otherwise. */
export function unreachableReason(e: unknown): string | undefined {
  for (let err = e as { code?: unknown; cause?: unknown } | undefined, depth = 0; err && depth < 4; err = err.cause as typeof err, depth++) {
    if (typeof err.code === 'string' && UNREACHABLE[err.code]) return UNREACHABLE[err.code];
  }
  return undefined;
}

/** The origin names this machine (core/loopback.ts): the server then shares this machine's cores with the client. */
export function isLoopbackOrigin(origin: string): boolean {
  try {
    return isLoopbackHost(new URL(origin).hostname);
  } catch {
    return false;
  }
}
