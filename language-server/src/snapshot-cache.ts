// Loads --help snapshots for documents and keeps them until a file they came from changes.
import { existsSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import type { SnapshotFlags } from '../../src/core/config/known-flags';
import { loadSnapshotFiles, loadSnapshotFlags } from '../../src/core/config/snapshot-flags';
import type { SnapshotSource } from '../../src/core/editor/snapshot-source';

interface Entry {
  flags: SnapshotFlags | undefined;
  /** Files and folders whose change invalidates this entry. */
  watched: string[];
  problem?: string;
}

export class SnapshotCache {
  private readonly entries = new Map<string, Entry>();

  private keyOf(src: SnapshotSource): string {
    if (src.kind === 'dir') return `dir:${resolve(src.dir)}`;
    if (src.kind === 'files') return `files:${JSON.stringify(src.files)}`;
    return 'builtin';
  }

  get(src: SnapshotSource): Entry {
    const key = this.keyOf(src);
    let e = this.entries.get(key);
    if (e) return e;
    if (src.kind === 'builtin') e = { flags: undefined, watched: [] };
    else if (src.kind === 'dir') {
      let isDir = false;
      try {
        isDir = statSync(src.dir).isDirectory();
      } catch {
        /* reported below */
      }
      if (!isDir) e = { flags: undefined, watched: [resolve(src.dir)], problem: `help folder ${src.dir} does not exist; using the built-in flag table` };
      else {
        const loaded = loadSnapshotFlags(src.dir);
        e = { flags: loaded.flags, watched: [resolve(src.dir)] };
      }
    } else {
      const loaded = loadSnapshotFiles(src.files);
      const files = Object.values(src.files).flat();
      e = { flags: loaded.flags, watched: files.map((f) => resolve(f)) };
      if (loaded.unreadable.length) e.problem = `cannot read ${loaded.unreadable.join(', ')}`;
    }
    this.entries.set(key, e);
    return e;
  }

  /** Drops entries that depend on a changed path; true when any was dropped. */
  invalidate(changed: string[]): boolean {
    let dropped = false;
    const paths = changed.map((p) => resolve(p));
    for (const [key, e] of this.entries) {
      if (e.watched.some((w) => paths.some((p) => p === w || p.startsWith(`${w}/`)))) {
        this.entries.delete(key);
        dropped = true;
      }
    }
    return dropped;
  }
}

export const fileExists = (p: string): boolean => existsSync(p);
