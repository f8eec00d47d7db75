// The `random` and `random-ids` datasets: synthetic prompts with sampled input/output lengths.
import { readShareGptPairs } from './sharegpt';
import { finishOverhead, finishText, type BuildContext } from './context';
import { lengthRange, sampleLength } from './lengths';
import type { WorkloadRow } from './types';

function describeRange(ctx: BuildContext, label: string, L: number): string {
  const [lo, hi] = lengthRange(L, ctx.opts.randomRangeRatio, ctx.opts.rangeRatioConvention);
  return `${label} lengths uniform over [${lo}, ${hi}] tokens (--random-range-ratio ${ctx.opts.randomRangeRatio}, ${ctx.opts.rangeRatioConvention} convention)`;
}

/**
 * `random`: prompts of exactly the sampled length. Text comes from the tokenizer's single-token word
 * pool, or, with --dataset-path, from ShareGPT turns recycled to length and fixed up by re-encoding.
 */
export function buildRandom(ctx: BuildContext): WorkloadRow[] {
  const { opts, tokenizer, rng, synth } = ctx;
  const specials = tokenizer.numSpecialTokensToAdd();
  const overhead = finishOverhead(ctx);
  const scenario = `random-${opts.randomInputLen}-${opts.randomOutputLen}`;
  ctx.notes.push(describeRange(ctx, 'input', opts.randomInputLen), describeRange(ctx, 'output', opts.randomOutputLen));
  let recycled: number[] | undefined;
  if (opts.datasetPath) {
    const pairs = rng.shuffle(readShareGptPairs(opts.datasetPath));
    recycled = [];
    for (const p of pairs) {
      recycled.push(...tokenizer.encode(p.prompt, false));
      if (recycled.length > 200_000) break;
    }
    if (recycled.length === 0) throw new Error(`${opts.datasetPath}: no usable ShareGPT text to recycle`);
    ctx.notes.push(`prompt text recycled from ${opts.datasetPath}, fixed to length by re-encoding`);
  } else {
    ctx.notes.push(`prompt text: random tokenizer words (${synth.strategy()})`);
  }
  const rows: WorkloadRow[] = [];
  let cursor = 0;
  for (let i = 0; i < opts.numPrompts; i++) {
    const inLen = Math.max(sampleLength(opts.randomInputLen, opts.randomRangeRatio, opts.rangeRatioConvention, rng), specials + 1);
    const outLen = sampleLength(opts.randomOutputLen, opts.randomRangeRatio, opts.rangeRatioConvention, rng);
    const content = inLen - specials;
    let text: string;
    if (recycled) {
      const ids: number[] = [];
      while (ids.length < content) {
        const take = Math.min(content - ids.length, recycled.length - cursor);
        for (let k = 0; k < take; k++) ids.push(recycled[cursor + k] as number);
        cursor = (cursor + take) % recycled.length;
      }
      text = synth.fixUp(ids, content).text;
    } else {
      text = synth.text(content);
    }
    rows.push({ prompt: finishText(ctx, text), promptLen: inLen + overhead, outputLen: outLen, scenario });
  }
  return rows;
}

/**
 * `random-ids`: consecutive non-special vocabulary ids from a random offset, decoded (SGLang's
 * construction, without special ids). promptLen is the target; decoded ids do not always re-encode to
 * the same count, which the sampled check reports. With --tokenize-prompt the ids themselves are sent.
 */
export function buildRandomIds(ctx: BuildContext): WorkloadRow[] {
  const { opts, tokenizer, rng, synth } = ctx;
  const specials = tokenizer.numSpecialTokensToAdd();
  const allowed = synth.allowedIds();
  const scenario = `random-ids-${opts.randomInputLen}-${opts.randomOutputLen}`;
  ctx.notes.push(describeRange(ctx, 'input', opts.randomInputLen), describeRange(ctx, 'output', opts.randomOutputLen));
  // input_ids skip the server's own special-token step, so they carry the BOS the text would get.
  const specialPrefix = tokenizer.encode('', true);
  const rows: WorkloadRow[] = [];
  for (let i = 0; i < opts.numPrompts; i++) {
    const inLen = Math.max(sampleLength(opts.randomInputLen, opts.randomRangeRatio, opts.rangeRatioConvention, rng), specials + 1);
    const outLen = sampleLength(opts.randomOutputLen, opts.randomRangeRatio, opts.rangeRatioConvention, rng);
    const offset = rng.int(0, allowed.length - 1);
    const ids: number[] = [];
    for (let j = 0; j < inLen - specials; j++) ids.push(allowed[(offset + i + j) % allowed.length] as number);
    rows.push({ prompt: finishText(ctx, tokenizer.decode(ids, true)), promptIds: [...specialPrefix, ...ids], promptLen: inLen, outputLen: outLen, scenario });
  }
  return rows;
}
