// Which CLI behaviours a simulated engine release has (vLLM's --help modes and multi-node flags, TokenSpeed's
// gateway split, positional model, follower ranks and --headless), each decided from `--sim-version` with the
// upstream commit that changed it.
import { versionAtLeast } from './engine-version';

/** How `vllm serve --help[=X]` behaves in a release. */
export type VllmHelpMode =
  /** < 0.9.2: `-h` takes no value (`--help=all` is an argparse error); `--help` is the full list. */
  | 'plain'
  /** 0.9.2 - 0.10.2: `--help=<kw>` is a keyword search (`--help=all` too); `--help` is the full list. */
  | 'search'
  /** >= 0.11: `--help` is the grouped summary, `--help=all` the full list, `--help=<kw>` a search. */
  | 'grouped';

/**
 * From the project's help fixtures, generated from vLLM's own CLI (vllm-project/vllm tags, fixtures/help/vllm/<v>/SOURCE.md):
 * v0.8.5 `ignored explicit argument 'all'`; v0.9.2, v0.10.1.1, v0.10.2 `Parameters matching 'all':`; v0.11.0 the grouped
 * summary. Current upstream special-cases 'all' (`vllm/utils/argparse_utils.py` @00da11e3).
 */
export function vllmHelpMode(version: string): VllmHelpMode {
  if (!versionAtLeast(version, '0.9.2')) return 'plain';
  return versionAtLeast(version, '0.11.0') ? 'grouped' : 'search';
}

/**
 * vLLM flags of the built-in table a release does not have: the mp multi-node flags first appear in v0.11.2's
 * `vllm serve --help=all` (fixtures/help/vllm/v0.11.2 vs v0.11.0), `--headless` in v0.9.2's `--help`.
 */
export function vllmMissingFlags(version: string): string[] {
  const missing: string[] = [];
  if (!versionAtLeast(version, '0.11.2')) missing.push('nnodes', 'node_rank', 'master_addr', 'master_port');
  if (!versionAtLeast(version, '0.9.2')) missing.push('headless');
  return missing;
}

// TokenSpeed's `version.py` says 0.1.0 at every commit, so a release is named by its commit or date
// (`main-2026-08-22-f4d8ec6e`, `2026-05-12`, `initial-release-205c53c4`). Commit times (UTC) read in
// lightseekorg/tokenspeed's history.
const TOKENSPEED_COMMITS: Record<string, string> = {
  '205c53c4': '2026-05-06T13:27', // Initial Release
  '5a1c46a7': '2026-05-12T18:13', // last commit before the gateway split
  '188cbb54': '2026-05-12T18:56', // #97 ts serve: smg gateway + gRPC engine
  '1e9340c2': '2026-05-13T17:39', // merge whose _argsplit.py still rejects a positional model
  f55fd2a6: '2026-05-13T19:22', // #128 accept positional model arg
  e8cf8a23: '2026-07-24T09:22', // tag v0.1.0
  '1e6deeb0': '2026-08-01T05:57', // #873 non-zero ranks exec the engine, no gateway
  '57b49061': '2026-08-03T17:19', // #897 `serve --headless`
  f4d8ec6e: '2026-08-22T15:03', // newest read
};

/** The moment (UTC, `YYYY-MM-DDTHH:MM`) of the TokenSpeed source a version string names; plain numbers: the newest read. */
export function tokenspeedMoment(version: string): string {
  const v = version.toLowerCase();
  for (const [sha, at] of Object.entries(TOKENSPEED_COMMITS)) if (v.includes(sha)) return at;
  if (v.startsWith('initial-release')) return TOKENSPEED_COMMITS['205c53c4'] as string;
  const date = /(\d{4}-\d{2}-\d{2})/.exec(v);
  if (date) return `${date[1]}T23:59`;
  return TOKENSPEED_COMMITS.f4d8ec6e as string;
}

const since = (version: string, sha: string): boolean => tokenspeedMoment(version) >= (TOKENSPEED_COMMITS[sha] as string);

export interface TokenspeedCli {
  /** `serve` is the smg orchestrator (188cbb54, #97): its --help lists no engine flag. */
  gatewaySplit: boolean;
  /** A leading positional model: 'flag' (ServerArgs positional, before the split), 'reject' (`_argsplit._normalize`), 'rewrite' (f55fd2a6, #128). */
  positional: 'flag' | 'reject' | 'rewrite';
  /** `serve --headless` exists (57b49061, #897). */
  headless: boolean;
  /** A node rank > 0 execs the engine without a gateway (1e6deeb0, #873); before, every rank ran the orchestrator. */
  followerExec: boolean;
}

export function tokenspeedCli(version: string): TokenspeedCli {
  const gatewaySplit = since(version, '188cbb54');
  return {
    gatewaySplit,
    positional: !gatewaySplit ? 'flag' : since(version, 'f55fd2a6') ? 'rewrite' : 'reject',
    headless: since(version, '57b49061'),
    followerExec: since(version, '1e6deeb0'),
  };
}

/** What `tokenspeed version` prints: `TokenSpeed v` + version.py's `__version__` (0.1.0 at every commit read). */
export function tokenspeedVersionLine(version: string): string {
  const numeric = /^v?(\d+(?:\.\d+)+\S*)$/.exec(version.trim());
  return `TokenSpeed v${numeric ? numeric[1] : '0.1.0'}`;
}
