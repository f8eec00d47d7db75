// Public entry of the simulated serving engine: start one in-process, or run a framework CLI shim.
export { startSimServer, SimStartError, parseFrameworkArgs } from './serve';
export type { SimServer, StartSimOptions } from './serve';
export { runShim, simTargetFor, SHIM_NAMES } from './shim';
export type { SimTarget } from './shim';
export { serveFromCli, helpRequest } from './cli-serve';
export { fullHelp, vllmSummaryHelp, programHelp } from './help';
export { DEFAULT_SIM_OPTIONS, SIM_OPTIONS_ENV, SIM_OPTIONS_HELP } from './options';
export type { SimOptions } from './options';
export { SIM_HEADER } from './http/io';
export { GPUS, MODELS, gpuProfile, modelProfile } from './profiles';
export type { GpuProfile, ModelProfile } from './profiles';
export { countTokens, tokenize } from './tokens';
export { resolveSim } from './config';
export type { ResolvedSim } from './config';
