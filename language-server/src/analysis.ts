// One analysis per (uri, version): the parse, findings, candidates and snapshots that every feature reads; a new
// version re-parses only the sections it changed and re-generates candidates only for changed framework sections.
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkParsedConfig, type CheckResult } from '../../src/core/config/check';
import { looksLikeConfig } from '../../src/core/config/detect';
import { matchesAny } from '../../src/core/config/glob';
import { knownFlagsFor, type SnapshotFlags } from '../../src/core/config/known-flags';
import { configFlagSourcesLabel, sourceLabel } from '../../src/core/editor/snapshot-label';
import { snapshotSourceFor } from '../../src/core/config/snapshot-source';
import { FRAMEWORKS } from '../../src/core/frameworks/types';
import type { ServerSettings } from '../../src/shared/protocol';
import { CandidateCache } from './candidate-cache';
import { IncrementalParser } from './incremental-parse';
import { fileExists, type SnapshotCache } from './snapshot-cache';

export interface Analysis {
  uri: string;
  version: number;
  text: string;
  result: CheckResult;
  snapshots: SnapshotFlags | undefined;
  /** Per framework: where its flags come from ("vLLM 0.20.1", "SGLang built-in table (main 2026-07-18)"). */
  sources: string[];
  /** The status bar's text: the sources of the frameworks the config runs, with versions. */
  sourcesLabel: string;
  builtinOnly: boolean;
  snapshotProblem?: string;
  ms: number;
  at: Date;
}

/** File paths of `file:` uris, remembered: every analysis asks (a few dozen open documents at most). */
const paths = new Map<string, string | undefined>();

export function uriToPath(uri: string): string | undefined {
  if (paths.has(uri)) return paths.get(uri);
  const path = fileUriToPath(uri);
  if (paths.size >= 1024) paths.clear();
  paths.set(uri, path);
  return path;
}

function fileUriToPath(uri: string): string | undefined {
  try {
    return uri.startsWith('file:') ? fileURLToPath(uri) : undefined;
  } catch {
    return undefined;
  }
}

export class Analyzer {
  private readonly cache = new Map<string, Analysis>();
  private readonly parsers = new Map<string, IncrementalParser>();
  readonly candidates = new CandidateCache();

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
    const parsed = this.parserFor(uri).parse(text);
    // The snapshot source depends only on the modeline and version_manifest.
    const pre = /^version_manifest\s*:/m.test(text) ? parsed.root?.value : undefined;
    const source = snapshotSourceFor(text, pre, path, this.settings().helpDir, this.roots(), fileExists);
    const entry = this.snapshots.get(source);
    const result = checkParsedConfig(parsed, { kind: 'auto', ...(entry.flags ? { snapshots: entry.flags } : {}), listCandidates: this.candidates.list });
    const sources = FRAMEWORKS.map((fw) => sourceLabel(knownFlagsFor(fw, entry.flags)));
    const a: Analysis = {
      uri,
      version,
      text,
      result,
      snapshots: entry.flags,
      sources,
      sourcesLabel: configFlagSourcesLabel(result.model, entry.flags),
      builtinOnly: FRAMEWORKS.every((fw) => !entry.flags?.[fw]),
      ms: performance.now() - t0,
      at: new Date(),
    };
    if (entry.problem) a.snapshotProblem = entry.problem;
    this.cache.set(uri, a);
    return a;
  }

  /** The document's parser, which keeps the sections of its last version. */
  parserFor(uri: string): IncrementalParser {
    let p = this.parsers.get(uri);
    if (!p) this.parsers.set(uri, (p = new IncrementalParser()));
    return p;
  }

  peek(uri: string): Analysis | undefined {
    return this.cache.get(uri);
  }

  forget(uri: string): void {
    this.cache.delete(uri);
    this.parsers.delete(uri);
  }

  clear(): void {
    this.cache.clear();
  }
}
