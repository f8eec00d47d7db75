// The `custom` dataset: the playbook's JSONL rows (prompt text or chat messages, output_len, extra_request_body, metadata).
import { readDatasetText } from './file-text';
import { validateJson } from '../config/schema-check';
import { applyChatTemplate } from './chat-template';
import { finishText, type BuildContext } from './context';
import type { ChatMessage, WorkloadRow } from './types';

export interface CustomRow {
  prompt: string | ChatMessage[];
  output_len: number;
  extra_request_body?: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

/**
 * Every row is checked against schemas/custom-workload-row.schema.json; bad lines are an error
 * naming the line (deliberate: a silently skipped row would give frameworks different workloads).
 */
export function readCustomRows(path: string): CustomRow[] {
  const text = readDatasetText(path);
  const rows: CustomRow[] = [];
  const problems: string[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = (lines[i] as string).trim();
    if (line === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch (e) {
      problems.push(`${path}:${i + 1}: invalid JSON: ${(e as Error).message}`);
      continue;
    }
    const issues = validateJson('custom-workload-row', value);
    if (issues.length > 0) {
      for (const issue of issues.slice(0, 3)) problems.push(`${path}:${i + 1}: ${issue.path.length ? `${issue.path.join('.')}: ` : ''}${issue.message}`);
      continue;
    }
    rows.push(value as CustomRow);
  }
  if (problems.length > 0) {
    const more = problems.length > 10 ? `\n... and ${problems.length - 10} more` : '';
    throw new Error(`${problems.slice(0, 10).join('\n')}${more}`);
  }
  if (rows.length === 0) throw new Error(`${path}: no rows`);
  return rows;
}

function scenarioOf(row: CustomRow): string {
  const m = row.metadata ?? {};
  for (const key of ['scenario', 'bucket', 'scenario_name']) {
    const v = m[key];
    if (typeof v === 'string' && v !== '') return v;
  }
  return 'custom';
}

function contentText(messages: readonly ChatMessage[]): string {
  return messages
    .map((m) => (typeof m.content === 'string' ? m.content : Array.isArray(m.content) ? m.content.map((p) => (p && typeof p === 'object' && typeof (p as { text?: unknown }).text === 'string' ? (p as { text: string }).text : '')).join('') : ''))
    .join('\n');
}

/**
 * Rows are replayed in file order (the first --num-prompts of them; all when num-prompts <= 0), so
 * every framework sees the same sequence. Message prompts on a text backend are rendered with the chat template.
 */
export function buildCustom(ctx: BuildContext): WorkloadRow[] {
  const { opts, tokenizer } = ctx;
  if (!opts.datasetPath) throw new Error('--dataset-name custom needs --dataset-path (a JSONL file of {"prompt", "output_len"} rows)');
  const all = readCustomRows(opts.datasetPath);
  const take = opts.numPrompts > 0 ? all.slice(0, opts.numPrompts) : all;
  if (opts.numPrompts > all.length) ctx.notes.push(`custom: the file has ${all.length} rows, fewer than --num-prompts ${opts.numPrompts}; all are used once`);
  const rows: WorkloadRow[] = [];
  for (const r of take) {
    let prompt: WorkloadRow['prompt'];
    let promptLen: number;
    if (typeof r.prompt === 'string') {
      prompt = finishText(ctx, r.prompt);
      promptLen = tokenizer.encode(prompt, true).length;
    } else if (opts.chatBackend) {
      prompt = r.prompt;
      // What the server will see: the templated conversation when we know the template, else the text.
      promptLen = tokenizer.chatTemplate
        ? tokenizer.encode(applyChatTemplate(tokenizer, r.prompt), true).length
        : tokenizer.encode(contentText(r.prompt), true).length;
    } else {
      if (!tokenizer.chatTemplate) throw new Error(`custom: a row has chat messages but the backend takes text and tokenizer ${tokenizer.name} has no chat template; use a chat backend or --chat-template`);
      prompt = applyChatTemplate(tokenizer, r.prompt);
      promptLen = tokenizer.encode(prompt, true).length;
    }
    const row: WorkloadRow = { prompt, promptLen, outputLen: r.output_len, scenario: scenarioOf(r) };
    if (r.extra_request_body) row.extraBody = r.extra_request_body;
    if (r.metadata) row.metadata = r.metadata;
    rows.push(row);
  }
  return rows;
}
