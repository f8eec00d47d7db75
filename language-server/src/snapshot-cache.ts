// Loads --help snapshots for documents and keeps them until a file they came from changes.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import type { SnapshotFlags } from '../../src/core/config/known-flags';
import { loadSnapshotSource, type SnapshotSource } from '../../src/core/config/snapshot-source';

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
    const loaded = loadSnapshotSource(src);
    e = { flags: loaded.flags, watched: loaded.watched, ...(loaded.problem ? { problem: loaded.problem } : {}) };
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
