// Whether two runs of the same plan agree on a scenario's verdict (summary.json's form): the same decided winner, or both undecided with each other's winner among the ties.

export interface VerdictCandidateJson {
  framework: string;
  candidate: string;
}

export interface ScenarioVerdictJson {
  scenario: string;
  decided: boolean;
  winner: VerdictCandidateJson | null;
  ties: VerdictCandidateJson[];
}

export const candidateName = (c: VerdictCandidateJson | null): string => (c ? `${c.framework} ${c.candidate}` : '-');

/** The winner and the candidates tied with it. */
export const tieGroup = (s: ScenarioVerdictJson): string[] => [s.winner, ...s.ties].map(candidateName);

export function agree(a: ScenarioVerdictJson, b: ScenarioVerdictJson): boolean {
  if (a.decided && b.decided) return candidateName(a.winner) === candidateName(b.winner);
  if (!a.decided && !b.decided) return tieGroup(b).includes(candidateName(a.winner)) && tieGroup(a).includes(candidateName(b.winner));
  return false;
}

/** Per scenario, the pairs of runs that disagree (run indexes and both verdicts in words). */
export function disagreements(runs: ReadonlyArray<readonly ScenarioVerdictJson[]>): string[] {
  const out: string[] = [];
  const say = (s: ScenarioVerdictJson) => (s.decided ? `winner ${candidateName(s.winner)}` : `tie [${tieGroup(s).join(', ')}]`);
  for (const sc of runs[0]?.map((s) => s.scenario) ?? []) {
    for (let i = 0; i < runs.length; i++)
      for (let j = i + 1; j < runs.length; j++) {
        const x = runs[i]?.find((s) => s.scenario === sc);
        const y = runs[j]?.find((s) => s.scenario === sc);
        if (x && y && !agree(x, y)) out.push(`${sc}: run ${i + 1} ${say(x)} vs run ${j + 1} ${say(y)}`);
      }
  }
  return out;
}
