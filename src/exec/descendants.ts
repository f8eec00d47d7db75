// Every process a launch left behind, whatever its process group or session: found by the launch's marker variable (inherited by every descendant, kept across re-parenting) or by a snapshot of the ppid tree taken before TERM, then ended.
//
// Why: a server's group kill misses workers that made a group or session of their own. TensorRT-LLM starts its
// engine workers through MPI (`orted`) in separate process groups (ai-dynamo/dynamo PR #7122: "TRT-LLM starts engine
// workers via MPI (orted), which creates child processes in separate process groups"); they outlive the group kill
// and keep GPU memory. Each launch therefore carries LAUNCH_ID_ENV=<random id> in its environment (not a secret: a
// label), and stop() sweeps /proc for it after the group is gone.
import { randomBytes } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';

/** The variable every launched server (and so every descendant of it) carries: a random id per launch. */
export const LAUNCH_ID_ENV = 'AUTOBENCH_LAUNCH_ID';

export function newLaunchId(): string {
  return randomBytes(9).toString('hex');
}

/** A process seen in /proc: its pid, its start time (clock ticks since boot: a reused pid has another) and its name. */
export interface ProcRef {
  pid: number;
  start: string;
  name: string;
}

interface StatLine {
  ppid: number;
  state: string;
  start: string;
  name: string;
}

function statOf(pid: number): StatLine | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  const close = stat.lastIndexOf(')');
  const name = stat.slice(stat.indexOf('(') + 1, close);
  // After "pid (comm) ": state ppid pgrp session tty tpgid flags minflt cminflt majflt cmajflt utime stime cutime cstime priority nice threads itrealvalue starttime
  const f = stat.slice(close + 2).split(' ');
  return { state: f[0] ?? '?', ppid: Number(f[1]), start: f[19] ?? '', name };
}

function pids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((n) => /^\d+$/.test(n))
      .map(Number);
  } catch {
    return [];
  }
}

const live = (s: StatLine | undefined): s is StatLine => s !== undefined && s.state !== 'Z' && s.state !== 'X';

/** Every live descendant of `root` by parent pid (not `root` itself), as it is now. Empty where /proc is not there. */
export function descendantsOf(root: number): ProcRef[] {
  const children = new Map<number, Array<{ pid: number; s: StatLine }>>();
  for (const pid of pids()) {
    const s = statOf(pid);
    if (!live(s)) continue;
    const list = children.get(s.ppid) ?? [];
    list.push({ pid, s });
    children.set(s.ppid, list);
  }
  const out: ProcRef[] = [];
  const queue = [root];
  const seen = new Set<number>([root]);
  while (queue.length) {
    const p = queue.shift() as number;
    for (const c of children.get(p) ?? []) {
      if (seen.has(c.pid)) continue;
      seen.add(c.pid);
      out.push({ pid: c.pid, start: c.s.start, name: c.s.name });
      queue.push(c.pid);
    }
  }
  return out;
}

/** Live processes whose environment holds LAUNCH_ID_ENV=id (only our own user's are readable: those are the ones we started). */
export function markedProcesses(id: string): ProcRef[] {
  const needle = Buffer.from(`${LAUNCH_ID_ENV}=${id}\0`);
  const out: ProcRef[] = [];
  for (const pid of pids()) {
    if (pid === process.pid) continue;
    let env: Buffer;
    try {
      env = readFileSync(`/proc/${pid}/environ`);
    } catch {
      continue; // gone, or another user's
    }
    // The first variable has no NUL before it; every later one does.
    if (!(env.subarray(0, needle.length).equals(needle) || env.includes(Buffer.concat([Buffer.from([0]), needle])))) continue;
    const s = statOf(pid);
    if (live(s)) out.push({ pid, start: s.start, name: s.name });
  }
  return out;
}

/** Still the same live process (same pid and start time)? */
export function stillThere(p: ProcRef): boolean {
  const s = statOf(p.pid);
  return live(s) && s.start === p.start;
}

function signal(p: ProcRef, sig: NodeJS.Signals): void {
  if (!stillThere(p)) return;
  try {
    process.kill(p.pid, sig);
  } catch {
    /* gone meanwhile, or not ours */
  }
}

/**
 * Ends what is left of a launch after its group was stopped: the marked processes and the snapshot's descendants
 * still alive, TERM first, KILL after `graceMs`. Returns them, one `pid name` each (empty when nothing was left).
 */
export async function sweepLeftovers(id: string | undefined, snapshot: readonly ProcRef[], graceMs: number): Promise<string[]> {
  const found = new Map<number, ProcRef>();
  for (const p of snapshot) if (stillThere(p)) found.set(p.pid, p);
  if (id) for (const p of markedProcesses(id)) found.set(p.pid, p);
  if (found.size === 0) return [];
  const list = [...found.values()];
  for (const p of list) signal(p, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  while (list.some(stillThere) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const stubborn = list.filter(stillThere);
  for (const p of stubborn) signal(p, 'SIGKILL');
  const killDeadline = Date.now() + 5000;
  while (stubborn.some(stillThere) && Date.now() < killDeadline) await new Promise((r) => setTimeout(r, 50));
  return list.map((p) => `${p.pid} ${p.name}${stubborn.includes(p) ? ' (KILL)' : ''}${stillThere(p) ? ' (still alive)' : ''}`);
}
