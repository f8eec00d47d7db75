// Diagnostics end to end: the packaged extension activates on a cookbook config and the squiggle lands on the right line.
import assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { test, waitFor } from './harness';
import { describe, extension, open, ourDiagnostics, plantUnderVllmBaseFlags, shippedConfigText, writeConfig } from './workspace';

test('an unknown vLLM flag in a shipped config is reported on its line', async () => {
  const planted = plantUnderVllmBaseFlags(shippedConfigText(), '      long_prefill_token_thresholdd: 1');
  const uri = writeConfig('planted-unknown-flag.yaml', planted.text);
  await open(uri);
  await waitFor('the extension to activate on a YAML file', () => extension().isActive);
  const message = "vllm: unknown or unsupported server flag 'long_prefill_token_thresholdd'";
  const diag = await waitFor(`diagnostic "${message}"`, () => ourDiagnostics(uri).find((d) => d.message === message));
  assert.equal(diag.range.start.line, planted.line, describe(diag));
  assert.equal(diag.severity, vscode.DiagnosticSeverity.Error);
  // The unplanted config has no such error: the diagnostic comes from the planted line, not from elsewhere.
  assert.equal(ourDiagnostics(uri).filter((d) => d.message.includes('unknown or unsupported')).length, 1);
});
