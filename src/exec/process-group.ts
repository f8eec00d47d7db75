// Local process groups: is anything of a group still alive, signal it, wait for it to be gone.
import { readdirSync, readFileSync } from 'node:fs';

/** pid -> { pgid, state } from /proc; undefined where /proc is not there (non-Linux). */
export function procTable(): Map<number, { pgid: number; state: string }> | undefined {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return undefined;
  }
  const table = new Map<number, { pgid: number; state: string }>();
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'latin1');
    } catch {
      continue; // exited meanwhile
    }
    // comm may hold spaces and parentheses: the fields start after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    table.set(Number(name), { state: fields[0] ?? '?', pgid: Number(fields[2]) });
  }
  return table;
}

/** Live (non-zombie) members of a group. A zombie holds no resources but keeps kill(-pgid, 0) succeeding. */
export function groupMembers(pgid: number): number[] | undefined {
  const table = procTable();
  if (!table) return undefined;
  const out: number[] = [];
  for (const [pid, p] of table) if (p.pgid === pgid && p.state !== 'Z' && p.state !== 'X') out.push(pid);
  return out;
}

export function groupAlive(pgid: number): boolean {
  const members = groupMembers(pgid);
  if (members) return members.length > 0;
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false; // ESRCH: nothing left
  }
}

/** Polls until the group is empty or the time is up; true when it is empty. */
export async function waitGroupGone(pgid: number, timeoutMs: number, pollMs = 25): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (!groupAlive(pgid)) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

/** TERM the group, KILL what is left after the grace; true when nothing is left at the end. */
export async function terminateGroup(pgid: number, graceMs: number): Promise<boolean> {
  if (!signalGroup(pgid, 'SIGTERM')) return true;
  if (await waitGroupGone(pgid, graceMs)) return true;
  signalGroup(pgid, 'SIGKILL');
  return waitGroupGone(pgid, 5000);
}
