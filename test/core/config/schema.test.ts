// JSON Schemas and the schema check: real configs pass, mistakes are reported where they are.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { parseYaml } from '../../../src/core/config/yaml-doc';
import { checkSchema, describePath, schemaFor, validateJson, type SchemaKind } from '../../../src/core/config/schema-check';
import type { Finding } from '../../../src/core/config/finding';

const FIXTURES = path.resolve(__dirname, '../../../../shared/fixtures');
const UPSTREAM = path.join(FIXTURES, 'cookbook-upstream');
const UPSTREAM_SGLANG = path.join(FIXTURES, 'cookbook-upstream-sglang');
const PLAN = path.join(FIXTURES, 'plans', 'example-plan.yaml');
const QWEN = readFileSync(path.join(UPSTREAM, 'qwen3-235b-a22b.yaml'), 'utf8');

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.endsWith('.yaml')).sort();
}

function check(kind: 'cookbook' | 'plan', text: string): Finding[] {
  const parsed = parseYaml(text);
  assert.deepEqual(parsed.problems, [], 'test input must parse');
  return checkSchema(kind, parsed.root);
}

/** The text a finding underlines, and its 0-based line. */
function underlined(text: string, f: Finding): { text: string; line: number } {
  return { text: text.slice(f.range[0], f.range[1]), line: text.slice(0, f.range[0]).split('\n').length - 1 };
}

function lineOf(text: string, needle: string): number {
  const at = text.indexOf(needle);
  assert.ok(at >= 0, `fixture must contain ${needle}`);
  return text.slice(0, at).split('\n').length - 1;
}

function edit(text: string, from: string, to: string): string {
  assert.ok(text.includes(from), `fixture must contain ${from}`);
  return text.replace(from, to);
}

describe('real configs', () => {
  test('all 39 upstream cookbook configs have no schema findings', () => {
    const files = yamlFiles(UPSTREAM);
    assert.equal(files.length, 39);
    for (const f of files) {
      assert.deepEqual(check('cookbook', readFileSync(path.join(UPSTREAM, f), 'utf8')), [], f);
    }
  });

  test('configs still using the deprecated max_p99_* SLA keys pass the schema (the rules report them)', () => {
    const files = yamlFiles(UPSTREAM_SGLANG);
    const texts = files.map((f) => readFileSync(path.join(UPSTREAM_SGLANG, f), 'utf8'));
    assert.ok(texts.some((t) => t.includes('max_p99_ttft_ms')), 'the variant set must exercise deprecated keys');
    files.forEach((f, i) => assert.deepEqual(check('cookbook', texts[i] ?? ''), [], f));
  });

  test('the example run plan passes the plan schema but is not a cookbook config', () => {
    const text = readFileSync(PLAN, 'utf8');
    assert.deepEqual(check('plan', text), []);
    const asCookbook = check('cookbook', text);
    assert.ok(asCookbook.some((f) => f.message.includes("'schema_version'")), JSON.stringify(asCookbook));
  });

  test('a cookbook config is accepted as a plan too (shared sections)', () => {
    assert.deepEqual(check('plan', QWEN), []);
  });
});

describe('findings point at the mistake', () => {
  test('a wrong type underlines the value on its own line', () => {
    const text = edit(QWEN, 'gpu_count: 8', 'gpu_count: eight');
    const findings = check('cookbook', text);
    assert.equal(findings.length, 1, JSON.stringify(findings));
    const f = findings[0]!;
    assert.deepEqual(underlined(text, f), { text: 'eight', line: lineOf(text, 'gpu_count: eight') });
    assert.equal(f.severity, 'warning');
    assert.equal(f.code, 'schema');
    assert.deepEqual(f.path, ['hardware', 'gpu_count']);
    assert.equal(f.message, 'hardware.gpu_count: expected an integer, got "eight"');
  });

  test('an unknown framework key is reported at that key, naming the four frameworks', () => {
    const text = edit(QWEN, '  tokenspeed:\n', '  sglan:\n    enabled: false\n  tokenspeed:\n');
    const findings = check('cookbook', text);
    assert.equal(findings.length, 1, JSON.stringify(findings));
    const f = findings[0]!;
    assert.deepEqual(underlined(text, f), { text: 'sglan', line: lineOf(text, '  sglan:') });
    assert.deepEqual(f.path, ['frameworks', 'sglan']);
    for (const fw of ['sglang', 'vllm', 'tensorrt_llm', 'tokenspeed']) assert.ok(f.message.includes(fw), f.message);
  });

  test('an enum violation lists the allowed values', () => {
    const text = edit(QWEN, 'candidate_generation: baseline_first_bounded_product', 'candidate_generation: random_walk');
    const [f, ...rest] = check('cookbook', text);
    assert.equal(rest.length, 0);
    assert.ok(f);
    assert.equal(underlined(text, f).text, 'random_walk');
    assert.match(f.message, /^search\.candidate_generation: expected one of baseline_first_bounded_product, coverage_first; got "random_walk"$/);
  });

  test('a list item is found by its index', () => {
    const text = edit(QWEN, '  - 8000\n  output_len:', '  - lots\n  output_len:');
    const [f] = check('cookbook', text);
    assert.ok(f);
    assert.deepEqual(f.path, ['dataset', 'input_len', 1]);
    assert.deepEqual(underlined(text, f), { text: 'lots', line: lineOf(text, '  - lots') });
  });

  test('a missing required key is reported on the mapping that lacks it', () => {
    const text = edit(QWEN, '  name: Qwen/Qwen3-235B-A22B\n', '');
    const [f, ...rest] = check('cookbook', text);
    assert.equal(rest.length, 0);
    assert.ok(f);
    assert.deepEqual(f.path, ['model']);
    assert.equal(underlined(text, f).text, 'model');
    assert.equal(f.message, "model: missing required key 'name'");
  });

  test('several missing top-level keys make one finding on the first line', () => {
    const text = 'note: hello\n';
    const findings = check('cookbook', text);
    assert.equal(findings.length, 1);
    assert.equal(underlined(text, findings[0]!).line, 0);
    assert.match(findings[0]!.message, /'schema_version', 'source', 'model', 'dataset', 'search', 'frameworks'/);
  });

  test('an unknown SLA key is reported at the key; deprecated ones are not', () => {
    const text = edit(QWEN, '    max_p50_tpot_ms: 30\n', '    max_p50_tpot_ms: 30\n    max_p99_e2e_ms: 9000\n    max_p50_ttf_ms: 10\n');
    const findings = check('cookbook', text);
    assert.equal(findings.length, 1, JSON.stringify(findings));
    assert.equal(underlined(text, findings[0]!).text, 'max_p50_ttf_ms');
    assert.match(findings[0]!.message, /^benchmark\.sla: unknown key 'max_p50_ttf_ms'; allowed keys are max_p50_ttft_ms, /);
  });

  test('request rates accept numbers and inf, and explain anything else', () => {
    const text = edit(QWEN, '  extra_request_body:', '  request_rates: [2, inf, fast, -1]\n  extra_request_body:');
    const messages = check('cookbook', text).map((f) => f.message);
    assert.deepEqual(messages, [
      'benchmark.request_rates[2]: expected a number > 0 or "inf", got "fast"',
      'benchmark.request_rates[3]: must be > 0, got -1',
    ]);
  });

  test('findings come in document order without duplicates', () => {
    let text = edit(QWEN, 'tier: 2', 'tier: 7');
    text = edit(text, 'schema_version: 1', 'schema_version: 2');
    text = edit(text, 'multi_node: false', 'multi_node: maybe');
    const findings = check('cookbook', text);
    assert.deepEqual(
      findings.map((f) => f.path.join('.')),
      ['schema_version', 'hardware.multi_node', 'search.tier'],
    );
    assert.match(findings[0]!.message, /^schema_version: expected 1, got 2$/);
    assert.match(findings[2]!.message, /one of 1, 2, 3/);
  });

  test('no document, no findings (parse problems are reported elsewhere)', () => {
    assert.deepEqual(checkSchema('cookbook', undefined), []);
  });
});

describe('rows', () => {
  const playbookRow = {
    framework: 'sglang',
    framework_version: '0.5.0',
    candidate_id: 'sglang-tp8-flashinfer',
    model: 'meta-llama/Llama-3.1-70B-Instruct',
    status: 'ok',
    failure_reason: '',
    hardware: { gpu_model: 'NVIDIA H100 80GB HBM3', gpu_count: 8, visible_devices: '0,1,2,3,4,5,6,7' },
    workload: { kind: 'custom', scenario: 'chat', num_prompts: 1000, request_rate: 16, max_concurrency: 256, endpoint: '/v1/chat/completions' },
    sla: { max_p99_ttft_ms: 2000, max_p99_tpot_ms: 80, min_success_rate: 0.99, passed: true },
    metrics: { request_throughput: 15.8, output_token_throughput: 12500.0, mean_ttft_ms: 430.0, p50_ttft_ms: 400, p99_ttft_ms: 1550.0, success_rate: 0.995, accept_length: 2.4 },
    server_command: 'python -m sglang.launch_server ...',
    benchmark_command: 'python -m sglang.benchmark.serving ...',
    artifacts: { server_log: '/bench/sglang/server.log', raw_result: '/bench/sglang/results.jsonl' },
    some_other_tool_field: { anything: [1, 2] },
  };

  test('a playbook-style row and a bare row from another tool are valid', () => {
    assert.deepEqual(validateJson('result-row', playbookRow), []);
    assert.deepEqual(validateJson('result-row', { framework: 'trtllm', status: 'skipped', sla: { passed: 'yes' } }), []);
    assert.deepEqual(
      validateJson('result-row', { framework: 'vllm', status: 'ok', simulated: true, run_id: 'r1', trial: { rate: 'inf', concurrency: null, round: 0 }, client: { name: 'autobench', version: '0.1.0' } }),
      [],
    );
  });

  test('a row needs framework and a known status', () => {
    const issues = validateJson('result-row', { status: 'done' });
    assert.deepEqual(issues.map((i) => i.message), [
      "missing required key 'framework'",
      'status: expected one of ok, failed, oom, timeout, skipped, user_excluded, unsupported; got "done"',
    ]);
  });

  test("the playbook's custom workload rows are valid; bad ones say why", () => {
    assert.deepEqual(validateJson('custom-workload-row', { prompt: [{ role: 'user', content: 'Summarize this text.' }], output_len: 256 }), []);
    assert.deepEqual(validateJson('custom-workload-row', { prompt: 'Write a short explanation of CUDA graphs.', output_len: 128 }), []);
    assert.deepEqual(
      validateJson('custom-workload-row', {
        prompt: [{ role: 'user', content: 'Use low temperature.' }],
        output_len: 256,
        extra_request_body: { temperature: 0.0, top_p: 0.95 },
        metadata: { source: 'prod-sample' },
      }),
      [],
    );
    const bad = validateJson('custom-workload-row', { prompt: [{ role: 'human', content: 'x' }], output_len: 0 });
    assert.deepEqual(bad.map((i) => i.path), [['prompt', 0, 'role'], ['output_len']]);
    assert.match(bad[0]!.message, /expected one of system, developer, user, assistant, tool/);
    assert.deepEqual(validateJson('custom-workload-row', { prompt: 7, output_len: 1 }).map((i) => i.message), ['prompt: expected a string or a list, got 7']);
  });
});

describe('schemas as documentation', () => {
  const KINDS: SchemaKind[] = ['cookbook', 'plan', 'result-row', 'custom-workload-row'];

  test('each schema is draft 2020-12 with an $id and a title', () => {
    for (const kind of KINDS) {
      const s = schemaFor(kind);
      assert.equal(s.$schema, 'https://json-schema.org/draft/2020-12/schema', kind);
      assert.match(String(s.$id), /^https:\/\/.+\.schema\.json$/, kind);
      assert.equal(typeof s.title, 'string', kind);
    }
  });

  test('every property in every schema has a description', () => {
    const missing: string[] = [];
    const walk = (node: unknown, where: string): void => {
      if (Array.isArray(node)) return node.forEach((n, i) => walk(n, `${where}/${i}`));
      if (typeof node !== 'object' || node === null) return;
      for (const [key, value] of Object.entries(node as Record<string, unknown>)) {
        if ((key === 'properties' || key === 'patternProperties' || key === '$defs') && typeof value === 'object' && value) {
          for (const [name, sub] of Object.entries(value as Record<string, unknown>)) {
            const d = (sub as { description?: unknown }).description;
            if (typeof d !== 'string' || d.trim().length < 10) missing.push(`${where}/${key}/${name}`);
          }
        }
        if (key === 'enum' || key === 'examples' || key === 'default' || key === 'const') continue;
        walk(value, `${where}/${key}`);
      }
    };
    for (const kind of KINDS) walk(schemaFor(kind), kind);
    assert.deepEqual(missing, []);
  });

  test('enum descriptions, where given, match their enums one to one', () => {
    const walk = (node: unknown): number => {
      if (typeof node !== 'object' || node === null) return 0;
      let n = 0;
      const o = node as Record<string, unknown>;
      if (Array.isArray(o.enumDescriptions)) {
        assert.equal(o.enumDescriptions.length, (o.enum as unknown[]).length, JSON.stringify(o.enum));
        n++;
      }
      for (const v of Object.values(o)) n += walk(v);
      return n;
    };
    assert.ok(KINDS.map((k) => walk(schemaFor(k))).reduce((a, b) => a + b) >= 5);
  });

  test('deprecated SLA keys are marked deprecated and name their replacement', () => {
    const defs = schemaFor('cookbook').$defs as Record<string, { properties: Record<string, Record<string, unknown>> } | undefined>;
    const sla = defs.sla?.properties ?? {};
    assert.ok(Object.keys(sla).length >= 10);
    for (const key of ['max_p99_ttft_ms', 'max_p99_tpot_ms', 'max_p99_e2e_ms', 'max_ttft_ms', 'max_tpot_ms', 'max_e2e_ms']) {
      assert.equal(sla[key]?.deprecated, true, key);
      const metric = key.replace(/^max_(p99_)?/, '');
      assert.ok(String(sla[key]?.description).includes(`max_p50_${metric}`), key);
    }
    for (const key of ['max_p50_ttft_ms', 'max_p50_tpot_ms', 'min_success_rate', 'max_p50_e2e_ms']) assert.equal(sla[key]?.deprecated, undefined, key);
  });

  test('describePath follows $ref, also across files', () => {
    const ttft = describePath('cookbook', ['benchmark', 'sla', 'max_p50_ttft_ms']);
    assert.match(ttft ?? '', /median time to first token/);
    assert.equal(describePath('plan', ['sla', 'max_p50_ttft_ms']), ttft);
    assert.match(describePath('plan', ['version_manifest', 'vllm', 'server_help']) ?? '', /--help/);
    assert.match(describePath('cookbook', ['frameworks', 'tensorrt_llm', 'backend_policy']) ?? '', /fixed_pytorch/);
    assert.match(describePath('cookbook', ['dataset', 'input_len', 0]) ?? '', /Prompt tokens/);
    assert.match(describePath('cookbook', ['frameworks', 'vllm', 'base_server_flags', 'max_model_len']) ?? '', /Flag value/);
    assert.match(describePath('result-row', ['metrics', 'p50_ttft_ms']) ?? '', /time to first token/);
    assert.equal(describePath('cookbook', ['no_such_key']), undefined);
    assert.equal(describePath('cookbook', ['frameworks', 'no_such_framework']), undefined);
  });
});
