// Finds the config files a validate run covers: files as given, folders searched for *.yaml / *.yml; spelled and sorted as pathlib does.
import { readdirSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface CollectedFiles {
  files: string[];
  /** Paths that could not be used, with the reason. */
  problems: Array<{ path: string; message: string }>;
}

const isYaml = (name: string) => /\.ya?ml$/i.test(name);

function walk(dir: string, out: string[], depth: number): void {
  if (depth > 64) return;
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    return;
  }
  for (const name of names) {
    if (name === 'node_modules' || name === '.git') continue;
    const p = join(dir, name);
    let st;
    try {
      st = statSync(p);
    } catch {
      continue;
    }
    if (st.isDirectory()) walk(p, out, depth + 1);
    else if (st.isFile() && isYaml(name)) out.push(p);
  }
}

/** A path as Python's pathlib prints it: no empty or `.` parts, no trailing slash (`..` is kept). */
export function pathlibSpelling(p: string): string {
  const abs = p.startsWith('/');
  const parts = p.split('/').filter((x) => x !== '' && x !== '.');
  const body = parts.join('/');
  if (abs) return `/${body}`;
  return body === '' ? '.' : body;
}

/** pathlib's order: part by part, so `a/b.yaml` sorts before `a-c.yaml`. */
function comparePaths(a: string, b: string): number {
  const pa = a.startsWith('/') ? ['/', ...a.split('/').slice(1)] : a.split('/');
  const pb = b.startsWith('/') ? ['/', ...b.split('/').slice(1)] : b.split('/');
  for (let i = 0; i < Math.min(pa.length, pb.length); i++) {
    const x = pa[i] ?? '';
    const y = pb[i] ?? '';
    if (x !== y) return x < y ? -1 : 1;
  }
  return pa.length - pb.length;
}

/** Expands paths; each file appears once (by its real path), spelled and sorted as the reference's `sorted(Path...)`. */
export function collectConfigFiles(paths: string[]): CollectedFiles {
  const files: string[] = [];
  const problems: CollectedFiles['problems'] = [];
  const seen = new Set<string>();
  const add = (p: string) => {
    let real = p;
    try {
      real = realpathSync(p);
    } catch {
      /* keep the given spelling */
    }
    if (seen.has(real)) return;
    seen.add(real);
    files.push(pathlibSpelling(p));
  };
  for (const p of paths) {
    let st;
    try {
      st = statSync(p);
    } catch {
      problems.push({ path: p, message: 'no such file or directory' });
      continue;
    }
    if (st.isDirectory()) {
      const found: string[] = [];
      walk(p, found, 0);
      if (found.length === 0) problems.push({ path: p, message: 'no .yaml or .yml files found in this folder' });
      found.forEach(add);
    } else add(p);
  }
  return { files: files.sort(comparePaths), problems };
}
