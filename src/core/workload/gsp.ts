// The `generated-shared-prefix` dataset: groups of prompts sharing one system prompt, to exercise prefix caching.
import { finishOverhead, finishText, type BuildContext } from './context';
import { sampleLength } from './lengths';
import { Rng } from './rng';
import type { WorkloadRow } from './types';

/** One think time (ms): `mean` exactly at cv 0, else lognormal with that mean and coefficient of variation. */
export function thinkTime(rng: Rng, mean: number, cv: number): number {
  if (cv <= 0) return mean;
  const s2 = Math.log(1 + cv * cv);
  const u1 = Math.max(1e-12, rng.next());
  const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * rng.next());
  return Math.exp(Math.log(mean) - s2 / 2 + Math.sqrt(s2) * z);
}

/**
 * groups x prompts-per-group rows (--num-prompts is ignored, as in SGLang). Prompt = system + "\n\n" +
 * question; with --gsp-num-turns > 1 later questions are sent as further chat turns, each after a think time
 * (--gsp-turn-delay-ms mean, --gsp-turn-delay-cv spread) counted from the previous answer's end. --gsp-range-ratio
 * (SGLang convention) varies question and output lengths; the system prompt keeps its length.
 */
export function buildGsp(ctx: BuildContext): WorkloadRow[] {
  const { opts, tokenizer, rng, synth } = ctx;
  if (opts.gspNumTurns > 1 && !opts.chatBackend) throw new Error('--gsp-num-turns > 1 needs a chat backend (sglang-oai-chat, vllm-chat, openai-chat)');
  const specials = tokenizer.numSpecialTokensToAdd();
  const overhead = finishOverhead(ctx);
  // "\n\n" between the parts can merge with neighbouring pieces; measure what the join costs once.
  const a = synth.text(8);
  const b = synth.text(8);
  const joinCost = tokenizer.encode(`${a}\n\n${b}`, false).length - 16;
  const hex = (): string => rng.nextU32().toString(16).padStart(8, '0');
  const runKey = hex();
  // Think times from a stream of their own: the prompts of a seed stay the same with or without them.
  const think = new Rng(opts.seed ^ 0x7417c);
  const rows: WorkloadRow[] = [];
  for (let g = 0; g < opts.gspNumGroups; g++) {
    const system = synth.text(opts.gspSystemPromptLen);
    for (let p = 0; p < opts.gspPromptsPerGroup; p++) {
      const qLen = sampleLength(opts.gspQuestionLen, opts.gspRangeRatio, 'sglang', rng);
      const outLen = sampleLength(opts.gspOutputLen, opts.gspRangeRatio, 'sglang', rng);
      const question = synth.text(qLen);
      const row: WorkloadRow = {
        prompt: finishText(ctx, `${system}\n\n${question}`),
        promptLen: specials + opts.gspSystemPromptLen + joinCost + qLen + overhead,
        outputLen: outLen,
        scenario: 'generated-shared-prefix',
        metadata: { group: g },
      };
      if (opts.gspNumTurns > 1) {
        row.turns = [];
        row.turnLens = [];
        for (let t = 1; t < opts.gspNumTurns; t++) {
          const len = sampleLength(opts.gspQuestionLen, opts.gspRangeRatio, 'sglang', rng);
          row.turns.push(synth.text(len));
          row.turnLens.push(len);
        }
        if (opts.gspTurnDelayMs > 0) row.thinkMs = row.turns.map(() => thinkTime(think, opts.gspTurnDelayMs, opts.gspTurnDelayCv));
      }
      if (opts.gspSendRoutingKey) row.headers = { 'X-SMG-Routing-Key': `${runKey}_${g}` };
      rows.push(row);
    }
  }
  if (!opts.gspOrdered) rng.shuffle(rows);
  ctx.notes.push(
    `generated-shared-prefix: ${opts.gspNumGroups} groups x ${opts.gspPromptsPerGroup} prompts (--num-prompts ignored), system prompt ${opts.gspSystemPromptLen} tokens, question ~${opts.gspQuestionLen}, output ~${opts.gspOutputLen}${opts.gspNumTurns > 1 && opts.gspTurnDelayMs > 0 ? `, ${opts.gspNumTurns} turns with ${opts.gspTurnDelayMs} ms mean think time (cv ${opts.gspTurnDelayCv})` : ''}`,
  );
  return rows;
}
