// The Slurm partitions a login host offers (`sinfo` text -> partitions, the default first) and the `slurm:` block of a plan's text, for the editor's target list.
import { parseYaml } from '../config/yaml-doc';
import { toJson } from '../py/value';
import { isObj } from './read-json';
import { readPlanSlurm } from './slurm';

/** One line per partition and node group: name (`name*` for the default), GRES, node count, availability. */
export const SINFO_ARGV: readonly string[] = ['sinfo', '--noheader', '--format=%P|%G|%D|%a'];

export interface SlurmPartition {
  name: string;
  isDefault: boolean;
  /** The most GPUs (of the GRES name asked for) one node of the partition has. */
  gpusPerNode: number;
  nodes: number;
  up: boolean;
}

/** `gpu:2`, `gpu:h100:8(S:0-1)`, `gpu:2,shard:4`: the count of GRES `name` (0 when the node has none). */
export function gresCount(gres: string, name: string): number {
  let n = 0;
  for (const item of gres.split(',')) {
    const parts = item.replace(/\(.*\)$/, '').split(':');
    if (parts[0] !== name) continue;
    const count = Number(parts[parts.length - 1]);
    if (Number.isInteger(count)) n = Math.max(n, count);
  }
  return n;
}

/** `sinfo --format=%P|%G|%D|%a` -> one entry per partition (its node groups merged), the default first, then by name. */
export function parseSinfoPartitions(stdout: string, gresName = 'gpu'): SlurmPartition[] {
  const byName = new Map<string, SlurmPartition>();
  for (const line of stdout.split('\n')) {
    const [part, gres, nodes, avail] = line.trim().split('|');
    if (!part || gres === undefined) continue;
    const isDefault = part.endsWith('*');
    const name = isDefault ? part.slice(0, -1) : part;
    const p = byName.get(name) ?? { name, isDefault: false, gpusPerNode: 0, nodes: 0, up: false };
    p.isDefault ||= isDefault;
    p.gpusPerNode = Math.max(p.gpusPerNode, gresCount(gres, gresName));
    p.nodes += Number(nodes) || 0;
    p.up ||= avail === 'up';
    byName.set(name, p);
  }
  return [...byName.values()].sort((a, b) => Number(b.isDefault) - Number(a.isDefault) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** What the editor's target list needs from a plan's `slurm:` block: its partition and GRES name; nothing when the text has no usable block. */
export function planSlurmOf(text: string): { partition?: string; gres: string } | undefined {
  const parsed = parseYaml(text);
  const root: unknown = parsed.root ? toJson(parsed.root.value) : undefined;
  if (!isObj(root)) return undefined;
  const slurm = readPlanSlurm(root, []);
  if (!slurm) return undefined;
  return { gres: slurm.gres, ...(slurm.partition ? { partition: slurm.partition } : {}) };
}
