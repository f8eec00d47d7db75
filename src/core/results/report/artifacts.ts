// The artifacts section: where the rows and run facts came from, the output directory and run id,
// and each winner's recorded artifact files.
import type { PyJson } from '../../py/json';
import { artifactSummary } from '../compare';
import type { RunFacts } from '../run-facts';
import type { Fact, WinnerCommands } from '../report-model';
import { manifestThenRows } from './values';
import type { Work } from './work';

export function artifactFacts(work: readonly Work[], winners: readonly WinnerCommands[], runFacts: RunFacts | undefined, rowsFile: string, manifestFile: string | undefined): Fact[] {
  const artifacts: Fact[] = [{ label: 'Rows', value: rowsFile }];
  if (manifestFile) artifacts.push({ label: 'Manifest', value: manifestFile });
  if (runFacts?.outputDir) artifacts.push({ label: 'Output directory', value: runFacts.outputDir });
  const runIds = manifestThenRows(runFacts?.runId, work, 'run_id');
  if (runIds.length) artifacts.push({ label: 'Run id', value: runIds.join(', ') });
  for (const w of winners) {
    const summary = artifactSummary(work[w.row]?.row ?? new Map<string, PyJson>());
    if (summary) artifacts.push({ label: `${w.framework} / ${w.scenario}`, value: summary.replace(/<br>/g, '; ') });
  }
  return artifacts;
}
