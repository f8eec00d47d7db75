// Which candidates of a framework a config's errors make invalid (an error on a flag it passes, or on its section as a
// whole), and a command wrapped with `\` continuations for reading: the same words, one flag per line.
import type { CheckResult, FrameworkCandidates } from '../config/check';
import { shlexQuote } from '../candidates/shell';
import { pyStr } from '../py/value';

/** Per candidate (in list order), the messages of the errors that make it invalid; empty when none does. */
export function candidateProblems(result: CheckResult, plan: FrameworkCandidates): string[][] {
  const errors = result.findings.filter((f) => f.severity === 'error' && f.path[0] === 'frameworks' && f.path[1] === plan.framework);
  return plan.candidates.map((c) =>
    errors
      .filter((f) => {
        const [, , section, key, index] = f.path;
        // A P/D block with errors builds no units; the aggregated candidates do not depend on it.
        if (section === 'disaggregation') return c.unit !== undefined;
        if (section === 'search_space' && typeof key === 'string') {
          if (c.unit) return false;
          if (!c.overrides.has(key)) return false;
          const values = plan.section.searchSpace.get(key);
          const value = typeof index === 'number' && Array.isArray(values) ? values[index] : undefined;
          const mine = c.overrides.get(key);
          return value === undefined || mine === undefined || pyStr(value) === pyStr(mine);
        }
        if (section === 'base_server_flags' && typeof key === 'string') return c.unit ? c.unit.processes.some((p) => p.flags.has(key)) : c.flags.has(key);
        return true;
      })
      .map((f) => f.message),
  );
}

/**
 * The command (shlexJoin of `argv`) with a `\` continuation before each option: the program and its positionals first
 * (after `prefix`, a process's environment assignments), then one option (and its values) per line.
 */
export function wrapArgv(argv: readonly string[], indent = '  ', prefix = ''): string {
  const lines: string[] = prefix ? [prefix] : [];
  for (const w of argv.map(shlexQuote)) {
    if (w.startsWith('--') && lines.length > 0) lines.push(w);
    else if (lines.length === 0) lines.push(w);
    else lines[lines.length - 1] += ` ${w}`;
  }
  return lines.map((l, i) => (i === 0 ? l : `${indent}${l}`)).join(' \\\n');
}
