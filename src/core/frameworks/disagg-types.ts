// The shapes a framework's P/D profile is made of (disagg.ts holds the profiles): a worker's slot and what it adds for its
// role, the router's inputs, the files a unit writes, and the profile itself.
import type { PyMap, PyValue } from '../py/value';

export type UnitRole = 'prefill' | 'decode';

/** One worker as the unit lays it out: where it listens and which side-channel ports it owns on its host. */
export interface WorkerSlot {
  role: UnitRole;
  /** Index within its role. */
  index: number;
  port: number;
  /** The transfer backend's own port for this worker (SGLang's prefill bootstrap port, vLLM's NIXL side channel or Mooncake bootstrap base). */
  sidePort?: number;
}

/** What a worker adds to its flags and environment for its role. */
export interface WorkerAdditions {
  flags: Array<[string, PyValue]>;
  env: Array<[string, string]>;
}

export interface RouterInputs {
  command: string[];
  host: string;
  port: number;
  policy: string | undefined;
  prefill: WorkerSlot[];
  decode: WorkerSlot[];
  workerHost: string;
  /** The unit's folder for the files it writes (relative to where it is started): its candidate id. */
  dir?: string;
}

/** A file the unit writes before it starts (a role's options, the router's config): path relative to its working folder. */
export interface UnitFile {
  path: string;
  /** The process that reads it (every worker of a role reads its role's file). */
  role: UnitRole | 'router';
  content: string;
}

export interface UnitFileInputs {
  dir: string;
  backend: string;
  transferConfig: PyMap;
  /** Each role's own engine options from the plan (TensorRT-LLM's LLM API options). */
  llmApiOptions: Record<UnitRole, PyMap>;
  router: RouterInputs;
}

export interface DisaggProfile {
  /** Transfer backends the engine accepts, the default first. */
  backends: string[];
  /** Backends whose prefill and decode workers must run the same tensor-parallel size (transfers fail otherwise). */
  equalTpBackends: string[];
  /** The router the unit starts when the plan names none, and the policies it accepts (absent: not checked). */
  routerCommand: string;
  routerPolicies: string[];
  /** Worker flags the unit sets itself: a role may not set them (each would break the unit's layout or its transfers). */
  reserved: Record<string, string>;
  /** First port of the workers' side channels on a host. */
  sidePortBase: number;
  /** Side-channel ports one worker of this parallel shape owns (they must not overlap another worker's on the host). */
  sidePorts(backend: string, tp: number, dp: number): number;
  worker(slot: WorkerSlot, backend: string, transferConfig: PyMap, dir?: string): WorkerAdditions;
  routerArgv(r: RouterInputs): string[];
  /** The router's option for a router.flags key, when the router spells them its own way (absent: `--dashed-key`). */
  routerFlag?: (key: string) => string | undefined;
  /** Router flags the unit sets unless router.flags does. */
  defaultRouterFlags?: Array<[string, PyValue]>;
  /** The files the unit writes before it starts (absent: none). */
  files?: (i: UnitFileInputs) => UnitFile[];
}
