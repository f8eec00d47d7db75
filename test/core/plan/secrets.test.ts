// The plan's secrets block, the run's secret decisions (what each server and the client get), literal secrets with their lines, the redactors' value forms and the simulator's SGLang --config file.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import { readRunPlan } from '../../../src/core/plan/build';
import { readPlanSecrets, planSecretNames } from '../../../src/core/plan/secrets';
import { shlexQuote } from '../../../src/core/candidates/shell';
import { makeRedactor } from '../../../src/exec/log-sink';
import { MissingSecretError, runSecrets, serverSecrets, secretsLines, CLIENT_HEADERS_ENV, SERVER_CONFIG_ENV, VLLM_API_KEY_ENV } from '../../../src/runner/run-secrets';
import { redactingStream } from '../../../src/cli/redacting-stream';
import { expandConfigFile } from '../../../src/sim/config-file';
import { planYaml } from '../../support/runner';

const ODD = `a b'c;$(x) "q" \\ end`;

describe('the secrets block', () => {
  test('names only: api_key, server_env, headers; values and bad names are problems naming the key', () => {
    const problems: string[] = [];
    const s = readPlanSecrets({ secrets: { api_key: 'SGLANG_API_KEY', server_env: ['HF_TOKEN', 'HF_TOKEN'], headers: { 'X-Api-Key': 'GATEWAY' } } }, problems);
    assert.deepEqual(problems, []);
    assert.deepEqual(s, { apiKey: 'SGLANG_API_KEY', serverEnv: ['HF_TOKEN'], headers: { 'X-Api-Key': 'GATEWAY' } });
    assert.deepEqual(planSecretNames(s), ['SGLANG_API_KEY', 'HF_TOKEN', 'GATEWAY']);
    const bad: string[] = [];
    readPlanSecrets({ secrets: { api_key: 'hf_abcdefghijklmnop1234', server_env: 'a b', headers: { 'Content-Type': 'X', 'X-Key': 'sk-1 2' } } }, bad);
    assert.equal(bad.length, 4, bad.join('\n'));
    assert.ok(bad.every((p) => !p.includes('hf_abcdefghijklmnop1234') && !p.includes('sk-1 2')), 'never echoes a value');
    assert.match(bad[0] as string, /^secrets\.api_key must name an environment variable/);
    const both: string[] = [];
    readPlanSecrets({ secrets: { api_key: 'K', headers: { Authorization: 'A' } } }, both);
    assert.match(both[0] as string, /not both/);
  });

  test('a literal secret is a FILE:LINE line without its value; the secrets block itself is not one', () => {
    const text = `${planYaml({ frameworks: { vllm: 'base_server_flags:\n  api_key: my plain key\n  hf_token: none\nsearch_space: {}' } })}\nsecrets:\n  api_key: VLLM_KEY\n`;
    const plan = readRunPlan({ text, path: 'p.yaml' });
    const line = text.split('\n').findIndex((l) => l.includes('my plain key')) + 1;
    assert.deepEqual(plan.literalSecrets.length, 1, plan.literalSecrets.join('\n'));
    assert.ok((plan.literalSecrets[0] as string).startsWith(`p.yaml:${line}: frameworks.vllm.base_server_flags.api_key: `));
    assert.ok(!(plan.literalSecrets[0] as string).includes('my plain key'));
    assert.equal(plan.secrets.apiKey, 'VLLM_KEY');
  });
});

describe('the run secrets', () => {
  const env: Record<string, string> = { HF_TOKEN: ODD, KEY: 'k-e-y value', GW: 'gw"v' };
  const source = (n: string): string | undefined => env[n];

  test('each server gets its names; vLLM its key as VLLM_API_KEY, SGLang in a --config file or as --api-key, TensorRT-LLM none', () => {
    const s = runSecrets({ apiKey: 'KEY', serverEnv: ['HF_TOKEN', 'UNSET_ONE'], headers: { 'X-Api-Key': 'GW' } }, ['HF_TOKEN'], source);
    assert.deepEqual(s.serverEnv, ['HF_TOKEN']);
    assert.deepEqual(s.unset, ['UNSET_ONE']);
    assert.deepEqual(s.headers, { 'X-Api-Key': 'gw"v', authorization: 'Bearer k-e-y value' });
    assert.equal(s.source(VLLM_API_KEY_ENV), 'k-e-y value');
    assert.deepEqual(JSON.parse(s.source(CLIENT_HEADERS_ENV) as string), s.headers);
    assert.deepEqual(JSON.parse(s.source(SERVER_CONFIG_ENV) as string), { 'api-key': 'k-e-y value' });
    assert.deepEqual(serverSecrets(s, 'vllm', true), { secretEnv: ['HF_TOKEN', 'VLLM_API_KEY'], extraArgv: [] });
    assert.deepEqual(serverSecrets(s, 'sglang', true), { secretEnv: ['HF_TOKEN'], extraArgv: [], configFlag: '--config' });
    assert.deepEqual(serverSecrets(s, 'sglang', false), { secretEnv: ['HF_TOKEN'], extraArgv: ['--api-key', 'k-e-y value'] });
    assert.deepEqual(serverSecrets(s, 'tensorrt_llm', true), { secretEnv: ['HF_TOKEN'], extraArgv: [] });
    for (const v of [ODD, 'k-e-y value', 'gw"v', 'Bearer k-e-y value']) assert.ok(s.values.includes(v));
    const lines = secretsLines(s, 'ssh:box', [{ framework: 'vllm', readsConfigFile: false }, { framework: 'tokenspeed', readsConfigFile: false }]);
    assert.match(lines[0] as string, /^secrets to ssh:box: HF_TOKEN in every server's environment; KEY as the servers' API key \(vLLM as VLLM_API_KEY; TokenSpeed without a key \(ts serve gives --api-key to its engine, not to the gateway that serves HTTP\)\) and the client's Authorization: Bearer; GW as the client's X-Api-Key header$/);
    assert.match(lines[1] as string, /UNSET_ONE is named for the servers but not set/);
    for (const l of lines) for (const v of Object.values(env)) assert.ok(!l.includes(v));
  });

  test('HF_TOKEN in the environment goes nowhere unless named; a missing key or header variable is an error', () => {
    assert.deepEqual(runSecrets({ serverEnv: [], headers: {} }, [], source).serverEnv, []);
    assert.throws(() => runSecrets({ apiKey: 'NOPE', serverEnv: [], headers: { X: 'ALSO_NOPE' } }, [], source), (e: unknown) => e instanceof MissingSecretError && /\$NOPE, \$ALSO_NOPE are named/.test(e.message));
  });
});

describe('redaction by value', () => {
  test('as written, JSON-escaped and shell-quoted; stderr through redactingStream', () => {
    const r = makeRedactor([ODD]);
    for (const form of [ODD, JSON.stringify(ODD).slice(1, -1), shlexQuote(ODD)]) assert.equal(r(`x ${form} y`), 'x <redacted> y');
    let out = '';
    const sink = new Writable({ write: (c: Buffer, _e, cb) => ((out += c.toString()), cb()) }) as unknown as NodeJS.WriteStream;
    const err = redactingStream(sink, [ODD]);
    err.write(`launch: --hf ${shlexQuote(ODD)}\n`);
    err.write(Buffer.from(`token=${ODD}\n`));
    assert.ok(!out.includes(ODD) && !out.includes(shlexQuote(ODD)), out);
    assert.match(out, /<redacted>/);
  });
});

describe("the simulator's SGLang --config", () => {
  test('the file comes first so the command line wins; other frameworks keep their argv', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'ab-cfg-'));
    const f = path.join(dir, 'c.yaml');
    writeFileSync(f, `${JSON.stringify({ 'api-key': ODD, port: 1, enable_metrics: true, disabled: false })}\n`);
    assert.deepEqual(expandConfigFile('sglang', ['--port', '2', '--config', f]), ['--api-key', ODD, '--port', '1', '--enable-metrics', '--port', '2']);
    assert.deepEqual(expandConfigFile('vllm', ['--config', f]), ['--config', f]);
    assert.throws(() => expandConfigFile('sglang', ['--config', path.join(dir, 'none.yaml')]), /cannot read the config file/);
  });
});
