// The simulated engine's GPU power: a modelled energy counter per server (as NVML's total-energy counter is per GPU),
// read by the runner around each trial at `GET /autobench/sim/energy` to give joules per output token. Modelled, not
// measured: each GPU draws an idle share of its board power while its replica waits and a busy share while a step runs.
import type { ServerResponse } from 'node:http';
import { sendJson } from './http/io';

export const ENERGY_PATH = '/autobench/sim/energy';

/**
 * Board power limits (W) from the vendors' spec sheets: A100 SXM 400, H100/H200 SXM 700, B200 1000, B300 1100,
 * GB200 1200 per GPU, GH200's GPU share 700, MI300X 750, L40S 350, RTX PRO 6000 Server 600.
 */
const BOARD_W: Record<string, number> = {
  'A100-80GB': 400,
  H100: 700,
  H200: 700,
  B200: 1000,
  B300: 1100,
  GB200: 1200,
  GH200: 700,
  MI300X: 750,
  L40S: 350,
  'RTX-PRO-6000-Blackwell-Server': 600,
};
/** Shares of the board power drawn idle and during a step (modelled: serving rarely holds a GPU at its limit). */
export const IDLE_SHARE = 0.1;
export const BUSY_SHARE = 0.8;

export function boardWatts(gpu: string): number {
  return BOARD_W[gpu] ?? 700;
}

/** Joules the server's GPUs used by modelled time `now`: per replica, its GPUs idle all along plus busy while stepping. */
export function modelledJoules(gpu: string, gpusPerReplica: number, busySeconds: readonly number[], now: number): number {
  const w = boardWatts(gpu);
  let j = 0;
  for (const busy of busySeconds) j += gpusPerReplica * (IDLE_SHARE * w * now + (BUSY_SHARE - IDLE_SHARE) * w * Math.min(busy, now));
  return j;
}

/** What the energy route answers: the counter, the modelled time it was read at, and the output tokens so far. */
export interface EnergyReading {
  joules: number;
  seconds: number;
  output_tokens: number;
  gpus: number;
  basis: 'modelled';
}

export function sendEnergy(res: ServerResponse, e: EnergyReading): void {
  sendJson(res, 200, e);
}
