// A P/D unit over a scheduler's nodes: which node each of its processes runs on and which of that node's GPUs it
// holds, by the unit's placement (pack: fill each node in start order; by_role and job_per_role: each role starts on a
// node of its own), never splitting a worker over two nodes. The router runs on the first node; with job_per_role each
// role's nodes are a job of their own, the router's with the prefill workers.
import type { Unit, UnitRole } from './unit';

/** One scheduler job of a unit placed job_per_role: its role, the layout's node indexes it holds, GPUs on each. */
export interface UnitRoleJob {
  role: UnitRole;
  nodes: number[];
  gpusPerNode: number;
}

export interface UnitNodeLayout {
  nodes: number;
  /** GPUs each node of the job must hold: the most any node uses. */
  gpusPerNode: number;
  /** Per process (unit.processes order): its node index and its GPUs on that node (local indexes from 0). */
  at: Array<{ node: number; gpus: number[] }>;
  /** job_per_role: the jobs in submit order (prefill with the router, then decode), their nodes consecutive. */
  jobs?: UnitRoleJob[];
}

export function unitNodeLayout(unit: Unit, nodeGpus: number): UnitNodeLayout | string {
  const used: number[] = [0];
  const at: UnitNodeLayout['at'] = [];
  let node = 0;
  let lastRole: string | undefined;
  for (const p of unit.processes) {
    if (p.role === 'router') {
      at.push({ node: 0, gpus: [] });
      continue;
    }
    const need = p.gpus.length;
    if (need > nodeGpus) return `a ${p.role} worker holds ${need} GPUs, more than a node's ${nodeGpus}`;
    const newRole = unit.placement !== 'pack' && lastRole !== undefined && lastRole !== p.role;
    if (newRole || (used[node] as number) + need > nodeGpus) used[++node] = 0;
    const first = used[node] as number;
    at.push({ node, gpus: Array.from({ length: need }, (_, i) => first + i) });
    used[node] = first + need;
    lastRole = p.role;
  }
  const layout: UnitNodeLayout = { nodes: node + 1, gpusPerNode: Math.max(...used), at };
  if (unit.placement === 'job_per_role') layout.jobs = roleJobs(unit, at, used);
  return layout;
}

function roleJobs(unit: Unit, at: UnitNodeLayout['at'], used: number[]): UnitRoleJob[] {
  const jobs: UnitRoleJob[] = [];
  unit.processes.forEach((p, i) => {
    if (p.role === 'router') return;
    const node = (at[i] as { node: number }).node;
    let job = jobs.find((j) => j.role === p.role);
    if (!job) jobs.push((job = { role: p.role, nodes: [], gpusPerNode: 0 }));
    if (!job.nodes.includes(node)) job.nodes.push(node);
    job.gpusPerNode = Math.max(job.gpusPerNode, used[node] as number);
  });
  return jobs;
}
