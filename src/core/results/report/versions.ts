// Framework versions: per framework (measured, planned or named in the manifest's version_manifest)
// its package version, commit, image, captured help files and the load clients that measured it.
import type { RunFacts } from '../run-facts';
import type { VersionEntry } from '../report-model';
import { clientOf, distinct, frameworkCompare, manifestThenRows } from './values';
import type { Work } from './work';

export function versionEntries(work: readonly Work[], runFacts: RunFacts | undefined, frameworks: readonly string[]): VersionEntry[] {
  const versions: VersionEntry[] = [];
  for (const fw of distinct([...frameworks, ...Object.keys(runFacts?.versions ?? {})]).sort(frameworkCompare)) {
    const mine = work.filter((w) => w.framework === fw);
    const mv = runFacts?.versions[fw];
    versions.push({
      framework: fw,
      version: manifestThenRows(mv?.packageVersion, mine, 'framework_version').join(', '),
      commit: manifestThenRows(mv?.gitCommit, mine, 'framework_commit').join(', '),
      image: mv?.containerImage ?? '',
      serverHelp: manifestThenRows(mv?.serverHelp, mine, 'artifacts.server_help').join(', '),
      benchmarkHelp: manifestThenRows(mv?.benchmarkHelp, mine, 'artifacts.benchmark_help').join(', '),
      clients: distinct(mine.map((w) => clientOf(w.row))).join(', '),
    });
  }
  return versions;
}
