// Every command id the extension registers, as plain data: package.json's contributes.commands must list exactly these.

export const COMMAND_IDS = {
  validateWorkspace: 'autobench.validateWorkspace',
  showCandidates: 'autobench.showCandidates',
  pickCandidate: 'autobench.pickCandidate',
  openSummary: 'autobench.openSummary',
  runBaseline: 'autobench.runBaseline',
  runCandidate: 'autobench.runCandidate',
  runAll: 'autobench.runAll',
  cancelRun: 'autobench.cancelRun',
  selectTarget: 'autobench.selectTarget',
  setHfToken: 'autobench.setHfToken',
  captureHelp: 'autobench.captureHelp',
  checkTarget: 'autobench.checkTarget',
  refreshRuns: 'autobench.refreshRuns',
  compareRuns: 'autobench.compareRuns',
  openRunRows: 'autobench.openRunRows',
  openRunLog: 'autobench.openRunLog',
  deleteRun: 'autobench.deleteRun',
  rerunRun: 'autobench.rerunRun',
  resumeRun: 'autobench.resumeRun',
  revokeSecretApprovals: 'autobench.revokeSecretApprovals',
} as const;

export type CommandId = (typeof COMMAND_IDS)[keyof typeof COMMAND_IDS];
