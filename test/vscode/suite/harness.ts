// A minimal test harness for the VS Code extension host (mocha is not a dependency): sequential async tests,
// a per-test deadline, a `N passed, M failed` line the host runner reads, and polling helpers without fixed sleeps.

import { existsSync, rmSync, statSync } from 'node:fs';
import * as path from 'node:path';

type TestFn = () => Promise<void>;
const tests: Array<{ name: string; fn: TestFn; timeoutMs: number }> = [];

/** Registers a test; tests run in registration order. */
export function test(name: string, fn: TestFn, timeoutMs = 60_000): void {
  tests.push({ name, fn, timeoutMs });
}

function withDeadline<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no result after ${ms} ms`)), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

/** Runs every registered test; resolves when all passed, rejects (failing the VS Code run) otherwise. */
export async function runAll(): Promise<void> {
  let passed = 0;
  let failed = 0;
  for (const t of tests) {
    const t0 = Date.now();
    try {
      await withDeadline(t.fn(), t.timeoutMs, t.name);
      passed++;
      console.log(`  ok   ${t.name} (${Date.now() - t0} ms)`);
    } catch (e) {
      failed++;
      const err = e instanceof Error ? (e.stack ?? e.message) : String(e);
      console.log(`  FAIL ${t.name} (${Date.now() - t0} ms)\n${err.replace(/^/gm, '       ')}`);
    }
  }
  console.log(`${passed} passed, ${failed} failed`);
  if (failed > 0) throw new Error(`${failed} of ${tests.length} tests failed`);
}

/**
 * Asks the test host for a screenshot of the workbench (tools/vscode-host) and waits until it is written to
 * test-artifacts/vscode/NAME.png (`npm run docs:images` copies the README's pictures from there).
 */
export async function screenshot(name: string): Promise<string> {
  const file = path.resolve(__dirname, '..', '..', 'test-artifacts', 'vscode', `${name}.png`);
  rmSync(file, { force: true });
  console.log(`autobench-screenshot ${name}`);
  await waitFor(`the screenshot ${name}.png`, () => existsSync(file) && statSync(file).size > 10_000, 20_000);
  return file;
}

/**
 * Polls `probe` every `everyMs` until it returns a value other than undefined/null/false; throws after `timeoutMs`
 * with `what` and the last probe error, so a failure says what never happened.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  timeoutMs = 30_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const v = await probe();
      if (v !== undefined && v !== null && v !== false) return v;
    } catch (e) {
      lastError = e;
    }
    if (Date.now() >= deadline) {
      const why = lastError instanceof Error ? `; last error: ${lastError.message}` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${why}`);
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
