// Entry of the Restricted Mode suite: VS Code with Workspace Trust on, the hostile fixture workspace opened untrusted
// (tools/vscode-host/run-tests.js --restricted --workspace test/vscode/fixtures/hostile-workspace).
import { runAll } from '../suite/harness';
import './restricted.suite';

export function run(): Promise<void> {
  return runAll();
}
