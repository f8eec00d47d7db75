// A P/D unit over a scheduler's nodes: which node each of its processes runs on and which of that node's GPUs it
// holds, by the unit's placement (pack: fill each node in start order; by_role: each role starts on a node of its
// own), never splitting a worker over two nodes. The router runs on the first node.
import type { Unit } from './unit';

export interface UnitNodeLayout {
  nodes: number;
  /** GPUs each node of the job must hold: the most any node uses. */
  gpusPerNode: number;
  /** Per process (unit.processes order): its node index and its GPUs on that node (local indexes from 0). */
  at: Array<{ node: number; gpus: number[] }>;
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
    const newRole = unit.placement === 'by_role' && lastRole !== undefined && lastRole !== p.role;
    if (newRole || (used[node] as number) + need > nodeGpus) used[++node] = 0;
    const first = used[node] as number;
    at.push({ node, gpus: Array.from({ length: need }, (_, i) => first + i) });
    used[node] = first + need;
    lastRole = p.role;
  }
  return { nodes: node + 1, gpusPerNode: Math.max(...used), at };
}
