// What a config says once the rules have read it: its kind, scenarios, framework sections and their rendered candidates.
import type { Candidate } from '../candidates/candidate';
import type { FrameworkKey } from '../frameworks/types';
import type { PyMap, PyValue } from '../py/value';
import type { KnownFlags } from './known-flags';
import type { YamlPath } from './yaml-doc';
import type { DisaggSection } from '../candidates/unit';

export type { DisaggRoleSection, DisaggSection } from '../candidates/unit';

export type ConfigKind = 'cookbook' | 'plan';

export interface Scenario {
  name: string;
  inputLen: number;
  outputLen: number;
}

/** One framework section as the rules understood it. */
export interface FrameworkSection {
  framework: FrameworkKey;
  enabled: boolean;
  /** Left out by the caller (`benchmark.framework_set`, `enabled: false`, or no `enabled` in a cookbook config). */
  userExcluded: boolean;
  /** Why it is left out, when it is: a cookbook config without `enabled` is disabled, as in the playbook's validator. */
  excludedBy?: 'enabled-false' | 'enabled-missing' | 'framework-set';
  /** The section could be read well enough to build candidates. */
  usable: boolean;
  serverCommand: string;
  base: PyMap;
  searchSpace: PyMap;
  known: KnownFlags;
  /** The `disaggregation:` block as read (absent: none, or one too broken to build units from). */
  disagg?: DisaggSection;
}

export interface PlaybookModel {
  kind: ConfigKind;
  modelName: string | undefined;
  tokenizer: string | undefined;
  scenarios: Scenario[];
  /** max(input_len + output_len) over scenarios, when the dataset is valid. */
  requiredLength: number | undefined;
  maxCandidates: number;
  strategy: 'baseline_first_bounded_product' | 'coverage_first';
  frameworks: FrameworkSection[];
  slaPath: YamlPath | undefined;
}

export interface FrameworkCandidates {
  framework: FrameworkKey;
  section: FrameworkSection;
  candidates: Candidate[];
  totalCombinations: number;
  untried: Array<{ key: string; value: PyValue }>;
  truncated: boolean;
}
