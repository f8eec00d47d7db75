// Result rows: the typed shape (the playbook's row plus ours), line-numbered JSONL reading exactly as
// the playbook's compare script reads it, and schema validation with the line each problem is on.
import { validateJson } from '../config/schema-check';
import type { SlaBlock } from '../sla/limits';
import { isPyObject, parsePyJson, pyStrip, toPlainJson, type PyObject } from '../py/json';

export type RowStatus = 'ok' | 'failed' | 'oom' | 'timeout' | 'skipped' | 'user_excluded' | 'unsupported';

/** One normalized result row as plain JSON (schemas/result-row.schema.json). Every field but two is optional. */
export interface ResultRow {
  framework: string;
  status: RowStatus;
  framework_version?: string | null;
  framework_commit?: string | null;
  candidate_id?: string | number;
  candidate_name?: string;
  model?: string;
  failure_reason?: string | null;
  scenario?: string | null;
  hardware?: {
    gpu_model?: string | null;
    /** Where gpu_model comes from: what nvidia-smi saw, or only the plan's claim. */
    gpu_model_source?: 'nvidia-smi' | 'plan';
    gpu_memory_mib?: number | null;
    gpu_count?: number | null;
    visible_devices?: string | Array<string | number> | null;
    multi_node?: boolean;
    driver_version?: string | null;
    cuda_version?: string | null;
    nccl_version?: string | null;
    host?: string | null;
    /** Slurm: every node of the job, the head first. */
    nodes?: string[];
    slurm_job_id?: string;
  };
  workload?: {
    scenario?: string | null;
    scenario_name?: string | null;
    dataset_scenario?: string | null;
    kind?: string | null;
    dataset_name?: string | null;
    dataset_path?: string | null;
    num_prompts?: number | null;
    input_len?: number | null;
    output_len?: number | null;
    input_len_p50?: number | null;
    input_len_p95?: number | null;
    output_len_p50?: number | null;
    output_len_p95?: number | null;
    request_rate?: number | 'inf' | null;
    max_concurrency?: number | null;
    endpoint?: string | null;
    backend?: string | null;
  };
  sla?: SlaBlock;
  metrics?: Partial<Record<MetricKey, number | null>>;
  server_command?: string | null;
  /** A candidate across Slurm nodes: the head's (rank 0) command as it ran, server_command with the node count, rank and head address words. */
  multi_node_command?: string;
  launch_command?: string | null;
  benchmark_command?: string | null;
  server_flags?: Record<string, unknown>;
  validated_cli_flags?: { server?: string[]; benchmark?: string[] };
  accuracy?: Record<string, unknown>;
  artifacts?: Partial<Record<'raw_result' | 'server_log' | 'benchmark_log' | 'summary' | 'server_help' | 'benchmark_help' | 'workload', string | null>>;
  smoke?: boolean;
  simulated?: boolean;
  run_id?: string;
  trial?: { rate?: number | 'inf' | null; concurrency?: number | null; round?: number };
  client?: {
    name?: string;
    version?: string;
    /** Where it ran: on the server's host, here through the ssh port forward, or here beside a local server. */
    placement?: 'host' | 'forward' | 'local';
    base_url?: string;
    node_version?: string;
    fallback_reason?: string;
    /** What the forward added under the trial's load (runner/forward-load.ts ForwardLoad). */
    forward_overhead?: object;
  };
}

type LatencyStat = 'mean' | 'median' | 'p50' | 'p90' | 'p95' | 'p99' | 'std';
export type MetricKey =
  | `${LatencyStat}_${'ttft' | 'tpot' | 'itl' | 'e2e'}_ms`
  | 'request_throughput'
  | 'offered_request_rate'
  | 'completion_request_rate'
  | 'steady_request_throughput'
  | 'prefix_cache_hit_rate'
  | 'request_goodput'
  | 'input_token_throughput'
  | 'output_token_throughput'
  | 'total_token_throughput'
  | 'max_itl_ms'
  | 'success_rate'
  | 'completed'
  | 'failed'
  | 'total_input_tokens'
  | 'total_output_tokens'
  | 'duration_s'
  | 'concurrency'
  | 'max_concurrent_requests'
  | 'max_output_tokens_per_s'
  | 'accept_length'
  | 'pre_scheduler_ms'
  | 'cache_hit_rate'
  | 'memory_residency';

/** A row as read: the Python-typed value (ints vs floats kept) and the line it came from. */
export interface RowRecord {
  line: number;
  data: PyObject;
}

export type ReadRows = { ok: true; rows: RowRecord[] } | { ok: false; message: string; line: number };

/** Python's text-mode line iteration (universal newlines: \r\n, \r and \n all end a line). */
export function splitLines(text: string): string[] {
  return text.split(/\r\n|\r|\n/);
}

/**
 * Reads JSONL as the playbook's script does: blank (whitespace-only) lines skipped, the first bad
 * line stops everything with `<path>:<line>: invalid JSON: ...` or `... expected a JSON object`.
 * NaN/Infinity literals only with `nonFinite` (compare).
 */
export function readRows(text: string, displayPath: string, opts: { nonFinite?: boolean } = {}): ReadRows {
  const rows: RowRecord[] = [];
  const lines = splitLines(text);
  for (let i = 0; i < lines.length; i++) {
    const stripped = pyStrip(lines[i] ?? '');
    if (!stripped) continue;
    const parsed = parsePyJson(stripped, opts);
    if (!parsed.ok) return { ok: false, line: i + 1, message: `${displayPath}:${i + 1}: invalid JSON: ${parsed.message}` };
    if (!isPyObject(parsed.value)) return { ok: false, line: i + 1, message: `${displayPath}:${i + 1}: expected a JSON object` };
    rows.push({ line: i + 1, data: parsed.value });
  }
  return { ok: true, rows };
}

/** One schema problem of one row. */
export interface RowIssue {
  line: number;
  message: string;
}

/** Checks each row against schemas/result-row.schema.json; messages name the field (`metrics.success_rate: ...`). */
export function validateRows(rows: readonly RowRecord[]): RowIssue[] {
  const out: RowIssue[] = [];
  for (const r of rows) {
    for (const issue of validateJson('result-row', toPlainJson(r.data))) out.push({ line: r.line, message: issue.message });
  }
  return out;
}

/** The plain-JSON view of a row, typed. Only meaningful for rows that passed the schema. */
export function toResultRow(r: RowRecord): ResultRow {
  return toPlainJson(r.data) as ResultRow;
}
