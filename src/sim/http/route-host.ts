// What the per-engine route tables (routes.ts, gateway.ts) may use of the simulated HTTP server (server.ts), kept
// apart so the tables and the server do not import each other.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ResolvedSim } from '../config';
import type { FlushHost } from './flush';
import type { SpecTotals } from './metrics';

/** One request as the route tables see it. */
export interface RouteCall {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  method: string;
}

export type GenerationKind = 'completion' | 'chat' | 'native';

export interface RouteHost extends FlushHost {
  readonly config: ResolvedSim;
  /** vLLM: VLLM_SERVER_DEV_MODE is set. */
  readonly devMode: boolean;
  /** /metrics calls on trtllm-serve (its iteration counter). */
  iterations: number;
  /** trtllm-serve: the speculative-decoding counters at its last /metrics call (each call drains what came since). */
  specPolled: SpecTotals;
  authorized(req: IncomingMessage): boolean;
  notAllowed(res: ServerResponse): void;
  generation(c: RouteCall, kind: GenerationKind): Promise<void>;
  warmedUp(): boolean;
  workerRegistered(): boolean;
  models(): object;
  modelInfo(): object;
  serverInfo(): object;
  healthGenerate(res: ServerResponse): void;
  tokenizeRoute(res: ServerResponse, body: unknown): void;
  detokenizeRoute(res: ServerResponse, body: unknown): void;
}
