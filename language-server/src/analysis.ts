// One analysis per (uri, version): the parse, findings, candidates and snapshots that every feature reads.
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkConfigText, type CheckResult } from '../../src/core/config/check';
import { looksLikeConfig } from '../../src/core/config/detect';
import { matchesAny } from '../../src/core/config/glob';
import { knownFlagsFor, type SnapshotFlags } from '../../src/core/config/known-flags';
import { parseYaml } from '../../src/core/config/yaml-doc';
import { sourceLabel } from '../../src/core/editor/snapshot-label';
import { snapshotSourceFor } from '../../src/core/config/snapshot-source';
import { FRAMEWORKS } from '../../src/core/frameworks/types';
import type { ServerSettings } from '../../src/shared/protocol';
import { fileExists, type SnapshotCache } from './snapshot-cache';

export interface Analysis {
  uri: string;
  version: number;
  text: string;
  result: CheckResult;
  snapshots: SnapshotFlags | undefined;
  /** Per framework: where its flags come from ("vLLM 0.20.1", "SGLang built-in table"). */
  sources: string[];
  builtinOnly: boolean;
  snapshotProblem?: string;
  ms: number;
  at: Date;
}

export function uriToPath(uri: string): string | undefined {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

export class Analyzer {
  private readonly cache = new Map<string, Analysis>();

  constructor(
    private readonly snapshots: SnapshotCache,
    private settings: () => ServerSettings,
    private roots: () => string[],
  ) {}

  /** Whether a document is an autobench config: by its shape, a modeline, or the include globs. */
  isConfig(uri: string, text: string): boolean {
    if (looksLikeConfig(text)) return true;
    const path = uriToPath(uri);
    if (!path) return false;
    return this.roots().some((root) => {
      const rel = relative(root, path).split('\\').join('/');
      return !rel.startsWith('..') && matchesAny(rel, this.settings().include);
    });
  }

  analyze(uri: string, version: number, text: string): Analysis {
    const hit = this.cache.get(uri);
    if (hit && hit.version === version && hit.text === text) return hit;
    const t0 = performance.now();
    const path = uriToPath(uri);
    // The snapshot source depends only on the modeline and version_manifest: a cheap pre-parse decides it.
    const pre = /^version_manifest\s*:/m.test(text) ? parseYaml(text).root?.value : undefined;
    const source = snapshotSourceFor(text, pre, path, this.settings().helpDir, this.roots(), fileExists);
    const entry = this.snapshots.get(source);
    const result = checkConfigText(text, { kind: 'auto', ...(entry.flags ? { snapshots: entry.flags } : {}) });
    const sources = FRAMEWORKS.map((fw) => sourceLabel(knownFlagsFor(fw, entry.flags)));
    const a: Analysis = {
      uri,
      version,
      text,
      result,
      snapshots: entry.flags,
      sources,
      builtinOnly: FRAMEWORKS.every((fw) => !entry.flags?.[fw]),
      ms: performance.now() - t0,
      at: new Date(),
    };
    if (entry.problem) a.snapshotProblem = entry.problem;
    this.cache.set(uri, a);
    return a;
  }

  peek(uri: string): Analysis | undefined {
    return this.cache.get(uri);
  }

  forget(uri: string): void {
    this.cache.delete(uri);
  }

  clear(): void {
    this.cache.clear();
  }
}
