// Whether a captured server help text is a flag list the runner can check commands against, and why not when it is not (a keyword search, a grouped summary, a front end that lists almost no options).
import type { FrameworkKey } from '../frameworks/types';
import { parseHelp } from './parse';
import type { FlagCatalog } from './types';

/**
 * Fewer distinct `--long` options than this is no engine's flag list: `tokenspeed serve --help` lists only `--headless`
 * (lightseekorg/tokenspeed python/tokenspeed/cli/__main__.py @11165293: the engine's ServerArgs are not registered on
 * that parser). Every engine parser read lists well over a hundred.
 */
export const MIN_FLAG_LIST_OPTIONS = 8;

/** vLLM 0.9.2–0.10.2 `--help=<x>` is a keyword search (it exits 0): `--help=all` prints `Parameters matching 'all':`. */
const KEYWORD_SEARCH = /^(Parameters matching|Arguments matching|No group or (parameters?|arguments?) matching)\b/m;

export interface FlagListVerdict {
  catalog: FlagCatalog;
  /** Why the text cannot serve as the CLI's flag list; undefined when it can. */
  problem?: string;
}

/** Parses a capture and says whether it lists the CLI's flags. */
export function judgeFlagList(text: string, framework: FrameworkKey): FlagListVerdict {
  const catalog = parseHelp(text, { framework, role: 'server' });
  if (KEYWORD_SEARCH.test(text)) return { catalog, problem: `a keyword search, not a flag list (${(KEYWORD_SEARCH.exec(text)?.[0] ?? '').trim()} …)` };
  if (catalog.groupedSummaryOnly) return { catalog, problem: 'a grouped summary (config groups, not options), not a flag list' };
  const n = catalog.optionStrings.length;
  if (n < MIN_FLAG_LIST_OPTIONS) {
    const names = catalog.optionStrings.join(', ') || 'none';
    return { catalog, problem: `lists only ${n} option${n === 1 ? '' : 's'} (${names}): no flag list` };
  }
  return { catalog };
}
