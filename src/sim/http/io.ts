// Small HTTP helpers for the simulated server: JSON bodies in and out, error bodies in each dialect, and the
// header that marks every response as coming from the simulator.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiDialect } from '../fw/types';

export const SIM_HEADER = 'x-autobench-simulated';
const MAX_BODY = 64 * 1024 * 1024;

export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
  ) {
    super(message);
  }
}

const ERROR_TYPES: Record<number, string> = {
  400: 'BadRequestError',
  401: 'AuthenticationError',
  404: 'NotFoundError',
  405: 'MethodNotAllowed',
  413: 'BadRequestError',
  500: 'InternalServerError',
  503: 'ServiceUnavailableError',
};

export function errorBody(dialect: ApiDialect, status: number, message: string, param: string | null = null): string {
  const inner = { message, type: ERROR_TYPES[status] ?? 'Error', param, code: status };
  return JSON.stringify(dialect.errorShape === 'flat' ? { object: 'error', ...inner } : { error: inner });
}

export function baseHeaders(extra: Record<string, string> = {}): Record<string, string> {
  return { [SIM_HEADER]: 'true', ...extra };
}

export function sendJson(res: ServerResponse, status: number, body: string | object, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, baseHeaders({ 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), ...headers }));
  res.end(text);
}

export function sendText(res: ServerResponse, status: number, text: string, type = 'text/plain; charset=utf-8'): void {
  res.writeHead(status, baseHeaders({ 'content-type': type, 'content-length': String(Buffer.byteLength(text)) }));
  res.end(text);
}

export function sendError(res: ServerResponse, dialect: ApiDialect, status: number, message: string, param: string | null = null): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  sendJson(res, status, errorBody(dialect, status, message, param));
}

/** Reads the request body as JSON; HttpError 400/413 on a bad one. */
export function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (c: Buffer) => {
      if (failed) return;
      size += c.length;
      if (size > MAX_BODY) {
        failed = true;
        reject(new HttpError(413, `Request body larger than ${MAX_BODY} bytes.`));
        return;
      }
      chunks.push(c);
    });
    req.on('error', (e) => {
      if (!failed) reject(e);
      failed = true;
    });
    req.on('end', () => {
      if (failed) return;
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') {
        resolve(undefined);
        return;
      }
      try {
        resolve(JSON.parse(text));
      } catch (e) {
        reject(new HttpError(400, `Invalid JSON body: ${(e as Error).message}`));
      }
    });
  });
}

export function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === 'object' && x !== null && !Array.isArray(x);
}

/**
 * Writes server-sent events, coalescing what one turn of the event loop produces into one socket write.
 * When the engine catches up several overdue steps at once their tokens leave together anyway; one write
 * instead of one per token keeps the per-token cost at a string append.
 */
export class SseWriter {
  private pending = '';
  private scheduled = false;

  constructor(private readonly res: ServerResponse) {}

  write(text: string): void {
    this.pending += text;
    if (!this.scheduled) {
      this.scheduled = true;
      process.nextTick(this.flush);
    }
  }

  end(text: string): void {
    this.res.end(this.pending + text);
    this.pending = '';
  }

  /** Sends what is pending, then drops the connection with the response unfinished: a server failing mid-stream. */
  cut(): void {
    const text = this.pending;
    this.pending = '';
    const drop = (): void => void this.res.destroy();
    if (text !== '' && !this.res.destroyed && !this.res.writableEnded) this.res.write(text, drop);
    else drop();
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    if (this.pending === '' || this.res.writableEnded || this.res.destroyed) return;
    this.res.write(this.pending);
    this.pending = '';
  };
}
