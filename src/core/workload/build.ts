// Builds a Workload from dataset options: picks the dataset, checks prompt lengths by re-encoding within a budget, and summarises lengths per scenario.
import { buildBuiltinText } from './builtin-text';
import { buildCustom } from './custom';
import type { BuildContext } from './context';
import { buildGsp } from './gsp';
import { checkRangeRatio } from './lengths';
import { buildMooncake } from './mooncake';
import { buildTraceCsv } from './trace-csv';
import { DATASET_DEFAULTS, DATASET_NAMES, type DatasetName, type DatasetOptions } from './options';
import { buildRandom, buildRandomIds } from './random';
import { Rng } from './rng';
import { buildShareGpt } from './sharegpt';
import { lengthDistribution, type LengthDistribution } from './stats';
import { PromptSynth } from './synth';
import type { TokenizerLike } from './tokenizer';
import type { Workload, WorkloadRow } from './types';

export function isDatasetName(s: string): s is DatasetName {
  return (DATASET_NAMES as readonly string[]).includes(s);
}

/** Seeds derived from --seed for independent streams: the dataset's draws never shift the arrival times. */
export function subSeed(seed: number, stream: 'dataset' | 'arrivals'): number {
  return (Math.trunc(seed) * 2654435761 + (stream === 'dataset' ? 0x1234567 : 0x7654321)) >>> 0;
}

export function buildWorkload(partial: Partial<DatasetOptions> & { datasetName: DatasetName }, tokenizer: TokenizerLike): Workload {
  const opts: DatasetOptions = { ...DATASET_DEFAULTS, ...partial };
  if (opts.datasetName === 'random' || opts.datasetName === 'random-ids' || opts.datasetName === 'builtin-text') {
    const bad = checkRangeRatio(opts.randomRangeRatio, opts.rangeRatioConvention);
    if (bad) throw new Error(bad);
  }
  const rng = new Rng(subSeed(opts.seed, 'dataset'));
  const ctx: BuildContext = { opts, tokenizer, rng, synth: new PromptSynth(tokenizer, rng), notes: [] };
  let rows: WorkloadRow[];
  let check: Workload['promptLenCheck'] = 'exact';
  switch (opts.datasetName) {
    case 'random':
      rows = buildRandom(ctx);
      check = 'constructed';
      break;
    case 'random-ids':
      rows = buildRandomIds(ctx);
      check = 'target';
      break;
    case 'builtin-text':
      rows = buildBuiltinText(ctx);
      check = 'constructed';
      break;
    case 'sharegpt':
      rows = buildShareGpt(ctx);
      break;
    case 'custom':
      rows = buildCustom(ctx);
      break;
    case 'generated-shared-prefix':
      rows = buildGsp(ctx);
      check = 'constructed';
      break;
    case 'mooncake':
      rows = buildMooncake(ctx);
      check = opts.mooncakeNumRounds > 1 ? 'target' : 'constructed';
      break;
    case 'trace-csv':
      rows = buildTraceCsv(ctx);
      check = 'constructed';
      break;
  }
  if (rows.length === 0) throw new Error(`${opts.datasetName}: the dataset produced no requests`);
  if (check !== 'exact') verifySample(ctx, rows, check === 'target');
  return { name: opts.datasetName, rows, notes: ctx.notes, promptLenCheck: check, timed: rows.some((r) => r.arrivalMs !== undefined) };
}

/**
 * Re-encodes text prompts in order until the token budget is spent. A constructed prompt whose
 * count differs is corrected and reported; for target-length datasets (random-ids) the deviation is reported only.
 */
function verifySample(ctx: BuildContext, rows: WorkloadRow[], reportOnly: boolean): void {
  let budget = ctx.opts.verifyBudgetTokens;
  let checked = 0;
  let off = 0;
  let absDev = 0;
  for (const row of rows) {
    if (typeof row.prompt !== 'string' || row.turns) continue;
    if (budget < row.promptLen) break;
    budget -= row.promptLen;
    const n = ctx.tokenizer.encode(row.prompt, true).length;
    checked++;
    if (n !== row.promptLen) {
      off++;
      absDev += Math.abs(n - row.promptLen);
      if (!reportOnly) row.promptLen = n;
    }
  }
  if (checked === 0) {
    ctx.notes.push('prompt lengths: not re-encoded (over the check budget)');
    return;
  }
  const what = `${checked} of ${rows.length} prompts re-encoded`;
  if (off === 0) ctx.notes.push(`prompt lengths: ${what}, all exact`);
  else if (reportOnly) ctx.notes.push(`prompt lengths: ${what}; ${off} differ from the target by ${(absDev / off).toFixed(1)} tokens on average (recorded lengths are the targets, as SGLang does)`);
  else ctx.notes.push(`prompt lengths: ${what}; ${off} were off by ${(absDev / off).toFixed(1)} tokens on average and were corrected; unchecked prompts may be off too`);
}

export interface ScenarioLengths {
  scenario: string;
  count: number;
  input: LengthDistribution;
  output: LengthDistribution;
}

/** p50/p95/max of input and output lengths per scenario (the playbook's handoff quotes these buckets). */
export function lengthsByScenario(rows: readonly { scenario: string; promptLen: number; outputLen: number }[]): ScenarioLengths[] {
  const by = new Map<string, { inp: number[]; out: number[] }>();
  for (const r of rows) {
    let b = by.get(r.scenario);
    if (!b) {
      b = { inp: [], out: [] };
      by.set(r.scenario, b);
    }
    b.inp.push(r.promptLen);
    b.out.push(r.outputLen);
  }
  return [...by.entries()].map(([scenario, b]) => ({
    scenario,
    count: b.inp.length,
    input: lengthDistribution(b.inp) as LengthDistribution,
    output: lengthDistribution(b.out) as LengthDistribution,
  }));
}
