// Each input row prepared once for every section: framework, scenario, the SLA verdict recomputed
// from its metrics, whether it ran with smoke settings, and the playbook's rank key.
import { frameworkSpec, isFrameworkKey } from '../../frameworks';
import type { PyJson, PyObject } from '../../py/json';
import { pyGet, pyStrCompare } from '../../py/ops';
import type { RunFacts } from '../run-facts';
import { frameworkOf, rankKey, scenarioOf, serverCommandOf, type RankKey } from '../rank';
import type { RowRecord } from '../rows';
import { evaluateSla, type SlaVerdict } from '../sla';
import { distinct, frameworkCompare } from './values';

export interface Work {
  rec: RowRecord;
  row: PyObject;
  framework: string;
  scenario: string;
  verdict: SlaVerdict;
  smoke: boolean;
  /** SLA-passing and not smoke: may be chosen as best. */
  eligible: boolean;
  key: RankKey;
}

/** Smoke settings: the row says so, or its flags turn CUDA graphs off / force eager mode. */
function isSmoke(row: PyObject, framework: string): boolean {
  if (pyGet(row, 'smoke') === true) return true;
  if (!isFrameworkKey(framework)) return false;
  const keys = frameworkSpec(framework).smokeOnlyFlags;
  const flags = pyGet(row, 'server_flags');
  const offValue = (v: PyJson | undefined) => v === true || (typeof v === 'string' && /^(disabled|none|off|eager)$/i.test(v));
  if (flags instanceof Map) {
    for (const k of keys) if (offValue(flags.get(k))) return true;
  }
  const cmd = serverCommandOf(row);
  if (!cmd) return false;
  for (const k of keys) {
    const opt = `--${k.replace(/_/g, '-')}`;
    const re = k.startsWith('cuda_graph_backend') ? new RegExp(`${opt}(?:=|\\s+)disabled\\b`) : new RegExp(`${opt}(?:=true)?(?=\\s|$)`);
    if (re.test(cmd)) return true;
  }
  return false;
}

/** The manifest's SLA, when it has one, judges every row; otherwise each row's own sla block. */
export function prepareWork(records: readonly RowRecord[], runFacts: RunFacts | undefined): Work[] {
  return records.map((rec) => {
    const row = rec.data;
    const framework = frameworkOf(row);
    const verdict = evaluateSla(row, runFacts?.sla);
    const smoke = isSmoke(row, framework);
    const eligible = verdict.passed && !smoke;
    const k = rankKey(row);
    // The playbook's key, with the recomputed verdict in place of the row's own `sla.passed`.
    const key: RankKey = [k[0], verdict.passed ? 1 : 0, k[2], k[3], k[4], k[5], k[6]];
    return { rec, row, framework, scenario: scenarioOf(row), verdict, smoke, eligible, key };
  });
}

/** Scenario names in Python's string order. */
export function scenarioNames(work: readonly Work[]): string[] {
  return distinct(work.map((w) => w.scenario)).sort(pyStrCompare);
}

/**
 * Frameworks in the run, in display order: those with rows, plus the ones the run facts enables and the caller kept.
 * A framework whose only rows say it was left out (user_excluded) is not in the run: the outcome lists it as such.
 */
export function frameworkNames(work: readonly Work[], runFacts: RunFacts | undefined): string[] {
  // A framework with rows is in the run by its rows (the caller may have left out one the plan enables: --frameworks, a lens).
  const withRows = new Set(work.map((w) => w.framework));
  const planned = runFacts?.frameworks.filter((f) => f.enabled && !f.userExcluded && !withRows.has(f.framework)).map((f) => f.framework) ?? [];
  const inRun = work.filter((w) => pyGet(w.row, 'status') !== 'user_excluded').map((w) => w.framework);
  return distinct([...inRun, ...planned]).sort(frameworkCompare);
}

const TRIAL_MODES = new Set(['fixed', 'search', 'repeat']);

/** A row measured load against a started server (a trial), as opposed to a skip, a launch failure or a placeholder. */
export function isTrial(w: Work): boolean {
  const mode = pyGet(w.row, 'trial.mode');
  if (typeof mode === 'string') return TRIAL_MODES.has(mode);
  // Rows from before trial.mode: anything with a rate and metrics that is not a skip.
  const status = pyGet(w.row, 'status');
  return (status === 'ok' || status === 'failed') && pyGet(w.row, 'metrics') !== undefined;
}
