// Entry of the integration suite that VS Code loads as extensionTestsPath: registers the tests in order and runs them.
import { runAll } from './harness';
import './diagnostics.suite';
import './quick-fix.suite';
import './code-lens.suite';
import './completion.suite';
import './outline.suite';
import './commands.suite';
import './summary.suite';
import './run.suite';
import './secrets.suite';

export function run(): Promise<void> {
  return runAll();
}
