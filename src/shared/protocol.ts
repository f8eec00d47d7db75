// Names, settings and message shapes shared by the extension client and the language server (both compile this module).

export const LANGUAGE_SERVER_ID = 'autobench';
export const DIAGNOSTIC_SOURCE = 'autobench';
export const COMMANDS_SCHEME = 'autobench-commands';

/** Settings the client resolves and pushes to the server; the server reads no globals. */
export interface ServerSettings {
  /** Folder of captured --help texts to check flags against (empty: built-in table). */
  helpDir: string;
  /** Globs (workspace-relative) of YAML files always treated as configs. */
  include: string[];
  /** Quiet time after an edit before diagnostics are computed, in ms. */
  debounceMs: number;
}

export const DEFAULT_SETTINGS: ServerSettings = {
  helpDir: '',
  include: ['**/cookbook-llm/*.yaml', '**/*.autobench.yaml'],
  debounceMs: 30,
};

/** client -> server notification: the settings changed. */
export const SETTINGS_NOTIFICATION = 'autobench/settings';

/** client -> server request: the "Show commands" listing of one document. */
export const CANDIDATES_REQUEST = 'autobench/candidates';
export interface CandidatesParams {
  uri: string;
  framework?: string;
}
export interface CandidatesResult {
  /** The listing text: every candidate's exact command, per framework. */
  content: string;
  /** Per framework, the commands (the same strings as `autobench validate --json`). */
  candidates: Record<string, string[]>;
}

/** client -> server request: each enabled framework's candidates (ids, overrides, commands) for "Run candidate…". */
export const PLAN_REQUEST = 'autobench/plan';
export interface PlanParams {
  uri: string;
}
export interface PlanCandidate {
  id: string;
  /** `key=value ...` against the base flags; empty for the baseline. */
  overrides: string;
  command: string;
  /** The errors that make it invalid (absent when none does). */
  problems?: string[];
}
/** An error a run of a framework meets (its own section's, or one outside every framework's), where it is. */
export interface PlanFinding {
  message: string;
  line: number;
  character: number;
}
export interface PlanResult {
  frameworks: Record<string, PlanCandidate[]>;
  /** Per enabled framework, the errors a run of it meets (what its Run lenses count); empty lists left out. */
  errors?: Record<string, PlanFinding[]>;
}

/** client -> server request: validate files on disk and publish their diagnostics. */
export const VALIDATE_FILES_REQUEST = 'autobench/validateFiles';
export interface ValidateFilesParams {
  uris: string[];
}
export interface ValidateFilesResult {
  configs: number;
  errors: number;
  warnings: number;
  skipped: number;
}

/** server -> client notification: what the last validation of a document used and found. */
export const STATUS_NOTIFICATION = 'autobench/status';
export interface StatusParams {
  uri: string;
  /** e.g. ["vLLM 0.20.1", "SGLang main 2026-07-18", "TensorRT-LLM built-in table (main @ 00209af1)"] */
  sources: string[];
  /** The status bar's text: the flag sources of the frameworks the config runs, with versions ("flags: vLLM 0.20.1 · …"). */
  label: string;
  /** True when no snapshot applies to any framework. */
  builtinOnly: boolean;
  validatedAt: string;
  ms: number;
  errors: number;
  warnings: number;
}
