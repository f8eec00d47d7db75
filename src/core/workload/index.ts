// Public surface of the workload module: datasets, tokenizer seam, chat templates, RNG and statistics.
export type { ChatMessage, Prompt, Workload, WorkloadRow } from './types';
export type { TokenizerLike } from './tokenizer';
export { loadTokenizer } from './tokenizer';
export { applyChatTemplate } from './chat-template';
export { DATASET_DEFAULTS, DATASET_NAMES, type DatasetName, type DatasetOptions } from './options';
export { buildWorkload, isDatasetName, lengthsByScenario, subSeed, type ScenarioLengths } from './build';
export { lengthRange, sampleLength, type RangeRatioConvention } from './lengths';
export { Rng } from './rng';
export { PromptSynth } from './synth';
export { lengthDistribution, percentileSorted, summarize, type LengthDistribution, type Summary } from './stats';
