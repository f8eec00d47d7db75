// P/D units: the disaggregation block read and checked as the engines would, each unit's processes rendered exactly
// (GPU slots, ports, bootstrap and side-channel ports, transfer config, router), and what a plan and the listing make of them.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { checkConfigText, type CheckResult } from '../../../src/core/config/check';
import { unitNodeLayout } from '../../../src/core/candidates/unit-nodes';
import type { Unit } from '../../../src/core/candidates/unit';
import { launchGpuTotal } from '../../../src/core/candidates/gpus';
import type { Candidate } from '../../../src/core/candidates/candidate';
import { commandsListing } from '../../../src/core/editor/outline';
import { readRunPlan } from '../../../src/core/plan/build';
import { schemaKeysAt } from '../../../src/core/config/schema-check';
import { completeAt } from '../../../src/core/editor/completion';
import { hoverAt } from '../../../src/core/editor/hover';

const REPO = resolve(__dirname, '../../..');
const EXAMPLE = join(REPO, 'configs/examples/disagg.plan.yaml');
const exampleText = readFileSync(EXAMPLE, 'utf8');

/** A small plan with one framework enabled and the given disaggregation block (YAML, indented under the framework). */
function plan(fw: 'sglang' | 'vllm' | 'tensorrt_llm' | 'tokenspeed', block: string, base = ''): string {
  const section = (name: string) =>
    name === fw
      ? `  ${name}:\n    enabled: true\n    base_server_flags: {${base}}\n    disaggregation:\n${block.replace(/^/gm, '      ')}\n`
      : `  ${name}:\n    enabled: false\n`;
  return [
    'model: {name: Qwen/Qwen3-32B}',
    'dataset: {kind: random, num_prompts: 8, scenario_names: [a], input_len: [1000], output_len: [100]}',
    'sla: {max_p50_ttft_ms: 1000}',
    'search: {max_candidates_per_framework: 8}',
    'frameworks:',
    ...['sglang', 'vllm', 'tensorrt_llm', 'tokenspeed'].map(section),
  ].join('\n');
}

const check = (text: string): CheckResult => checkConfigText(text, { kind: 'plan' });
const units = (r: CheckResult, fw: string): Candidate[] => r.candidateLists.find((p) => p.framework === fw)?.candidates.filter((c) => c.unit) ?? [];
const errorsOf = (r: CheckResult) => r.findings.filter((f) => f.severity === 'error').map((f) => `${f.code}: ${f.message}`);
const lines = (c: Candidate) => c.unit?.processes.map((p) => p.command) ?? [];

describe('P/D units: the example plan', () => {
  const r = check(exampleText);

  test('checks clean and lists the aggregated candidates, then one unit per layout', () => {
    assert.deepEqual(errorsOf(r), []);
    assert.deepEqual(r.findings.filter((f) => f.code.startsWith('pd-')), []);
    const sg = r.candidateLists.find((p) => p.framework === 'sglang')?.candidates ?? [];
    assert.deepEqual(sg.map((c) => c.id), ['baseline', 'c1', 'c2', 'pd1', 'pd2', 'pd3', 'pd4']);
    assert.deepEqual(sg.map((c) => c.index), [0, 1, 2, 3, 4, 5, 6]);
    assert.deepEqual(
      units(r, 'sglang').map((c) => c.name),
      ['1P1D prefill TP1, decode TP1', '2P1D prefill TP1, decode TP1', '1P2D prefill TP1, decode TP1', '1P1D prefill TP1, decode TP2'],
    );
  });

  test("SGLang 1P1D: each worker's exact command, its GPU slot and ports; the router last, told each prefill's bootstrap port", () => {
    const [pd1] = units(r, 'sglang');
    assert.ok(pd1?.unit);
    assert.equal(pd1.unit.gpus, 2);
    assert.deepEqual(lines(pd1), [
      'CUDA_VISIBLE_DEVICES=0 python -m sglang.launch_server --model-path Qwen/Qwen3-32B --tp-size 1 --mem-fraction-static 0.85 --context-length 8192 --enable-metrics --host 127.0.0.1 --disaggregation-mode prefill --disaggregation-transfer-backend mooncake --port 30000 --disaggregation-bootstrap-port 8998',
      'CUDA_VISIBLE_DEVICES=1 python -m sglang.launch_server --model-path Qwen/Qwen3-32B --tp-size 1 --mem-fraction-static 0.85 --context-length 8192 --max-running-requests 128 --enable-metrics --host 127.0.0.1 --disaggregation-mode decode --disaggregation-transfer-backend mooncake --port 30001',
      'python -m sglang_router.launch_router --pd-disaggregation --prefill http://127.0.0.1:30000 8998 --decode http://127.0.0.1:30001 --host 127.0.0.1 --port 8000 --policy round_robin',
    ]);
    assert.equal(pd1.command, lines(pd1).join('\n'));
    assert.deepEqual(pd1.argv, pd1.unit.processes[2]?.argv);
  });

  test('2P1D: two prefill workers on one host get their own ports and bootstrap ports; 1P1D with decode TP2 holds 3 GPUs', () => {
    const [, pd2, , pd4] = units(r, 'sglang');
    const p = pd2?.unit?.processes ?? [];
    assert.deepEqual(p.map((x) => [x.role, x.index, x.port, x.gpus.join(',')]), [
      ['prefill', 0, 30000, '0'],
      ['prefill', 1, 30001, '1'],
      ['decode', 0, 30002, '2'],
      ['router', 0, 8000, ''],
    ]);
    assert.match(p[1]?.command ?? '', /--disaggregation-bootstrap-port 8999$/);
    assert.match(p[3]?.command ?? '', /--prefill http:\/\/127\.0\.0\.1:30000 8998 --prefill http:\/\/127\.0\.0\.1:30001 8999 --decode http:\/\/127\.0\.0\.1:30002 /);
    assert.equal(pd4?.unit?.gpus, 3);
    assert.match(pd4?.unit?.processes[1]?.command ?? '', /^CUDA_VISIBLE_DEVICES=1,2 .* --tp-size 2 /);
    assert.equal(launchGpuTotal({ gpuCount: 1 }, pd4), 3, 'a unit holds every worker GPU whatever gpu_count says of one server');
  });

  test('vLLM NIXL: kv_transfer_config from the backend and role, failures fail, one side-channel port per worker', () => {
    const [pd1] = units(r, 'vllm');
    const [p, d, router] = pd1?.unit?.processes ?? [];
    assert.deepEqual(p?.env, [['CUDA_VISIBLE_DEVICES', '0'], ['VLLM_NIXL_SIDE_CHANNEL_PORT', '5600']]);
    assert.deepEqual(d?.env, [['CUDA_VISIBLE_DEVICES', '1'], ['VLLM_NIXL_SIDE_CHANNEL_PORT', '5601']]);
    const json = p?.argv[p.argv.indexOf('--kv-transfer-config') + 1] ?? '';
    assert.deepEqual(JSON.parse(json), { kv_connector: 'NixlConnector', kv_role: 'kv_both', kv_load_failure_policy: 'fail' });
    assert.match(p?.command ?? '', / --kv-transfer-config '\{"kv_connector":"NixlConnector",/, 'the JSON is shell-quoted');
    assert.equal(router?.command, 'vllm-router --vllm-pd-disaggregation --prefill http://127.0.0.1:30000 --decode http://127.0.0.1:30001 --host 127.0.0.1 --port 8000 --policy round_robin');
  });
});

describe('P/D units: layouts', () => {
  test('vLLM side-channel ports step by the data-parallel ranks a worker owns (NIXL: base + dp_rank)', () => {
    const r = check(plan('vllm', 'prefill: {workers: 2, flags: {data_parallel_size: 2}}\ndecode: {}', 'max_model_len: 4096'));
    const env = units(r, 'vllm')[0]?.unit?.processes.map((p) => p.env.find(([k]) => k === 'VLLM_NIXL_SIDE_CHANNEL_PORT')?.[1]);
    assert.deepEqual(env, ['5600', '5602', '5604', undefined]);
  });

  test('vLLM Mooncake: producer and consumer roles, bootstrap ports stepping by tp x dp, extra transfer config merged', () => {
    const block = 'transfer_backend: mooncake\ntransfer_config: {kv_connector_extra_config: {mooncake_protocol: rdma}}\nprefill: {flags: {tensor_parallel_size: 2}}\ndecode: {flags: {tensor_parallel_size: 2}}';
    const r = check(plan('vllm', block, 'max_model_len: 4096'));
    assert.deepEqual(errorsOf(r), []);
    const [p, d] = units(r, 'vllm')[0]?.unit?.processes ?? [];
    const cfg = (x: typeof p) => JSON.parse(x?.argv[x.argv.indexOf('--kv-transfer-config') + 1] ?? '{}') as Record<string, unknown>;
    assert.deepEqual(cfg(p), { kv_connector: 'MooncakeConnector', kv_role: 'kv_producer', kv_load_failure_policy: 'fail', kv_connector_extra_config: { mooncake_protocol: 'rdma' } });
    assert.equal(cfg(d).kv_role, 'kv_consumer');
    assert.deepEqual(p?.env.slice(1), [['VLLM_MOONCAKE_BOOTSTRAP_PORT', '5600']]);
    assert.deepEqual(d?.env.slice(1), [['VLLM_MOONCAKE_BOOTSTRAP_PORT', '5602']]);
  });

  test('a role env and router flags reach the commands, quoted', () => {
    const r = check(plan('sglang', "router: {flags: {worker_startup_timeout_secs: 900}}\nprefill: {env: {MC_TE_METRIC: 'a b'}}\ndecode: {}", 'model_path: Qwen/Qwen3-32B'));
    const [p, , router] = units(r, 'sglang')[0]?.unit?.processes ?? [];
    assert.match(p?.command ?? '', /^CUDA_VISIBLE_DEVICES=0 MC_TE_METRIC='a b' python -m sglang\.launch_server /);
    assert.match(router?.command ?? '', / --worker-startup-timeout-secs 900$/);
  });
});

describe('P/D units: rules', () => {
  const sg = (block: string) => errorsOf(check(plan('sglang', block, 'model_path: Qwen/Qwen3-32B')));
  const vl = (block: string) => check(plan('vllm', block, 'max_model_len: 4096'));

  test('each mistake gets its own error, naming the framework and the fix', () => {
    assert.deepEqual(sg('transfer_backend: rdma\nprefill: {}\ndecode: {}'), ["pd-transfer-backend: sglang: transfer_backend 'rdma' is not one it has: mooncake, nixl, mooncake_tcp, mori, ascend"]);
    assert.deepEqual(sg('prefill: {workers: 0}\ndecode: {}'), ['pd-workers: sglang: workers must be a whole number >= 1, got 0']);
    assert.deepEqual(sg('prefill: {flags: {port: 1234}}\ndecode: {}'), ['pd-reserved-flag: sglang: a P/D unit sets port on each worker itself (each worker gets its own port from disaggregation.port_base); remove it here']);
    assert.deepEqual(sg('prefill: {flags: {disaggregation_bootstrap_port: 9000}}\ndecode: {}').length, 1);
    assert.deepEqual(sg('prefill: {flags: {tp_sise: 2}}\ndecode: {}'), ["unknown-flag: sglang: unknown or unsupported server flag 'tp_sise'"]);
    assert.deepEqual(sg('prefill: {}\ndecode: {}\nrouter: {policy: fastest}'), ["pd-router-policy: sglang: router policy 'fastest' is not one the router accepts: random, round_robin, cache_aware, power_of_two, manual"]);
    assert.deepEqual(sg('prefill: {}\ndecode: {}\nrouter: {port: 70000}'), ['pd-port: sglang: 70000 is not a port: give a whole number 1-65535']);
    assert.deepEqual(sg('prefill: {}\ndecode: {}\nsearch_space: {workers: [1, 2]}'), ["pd-search: sglang: 'workers': say which role it varies (prefill.workers or decode.workers)"]);
    assert.deepEqual(sg('prefill: {}\ndecode: {}\nsearch_space: {decode.workers: [1, 0]}'), ['pd-workers: sglang: decode.workers: worker counts must be whole numbers >= 1']);
    assert.deepEqual(sg('prefill: {}'), ['pd-role: sglang: decode must be a mapping with workers, flags and env (each optional)']);
    assert.deepEqual(sg('prefill: {}\ndecode: {}\ntransfer_config: {a: 1}'), ["pd-transfer-config: sglang: transfer_config is for vLLM's kv_transfer_config; sglang takes its transfer settings as worker flags"]);
    assert.deepEqual(sg('prefill: {}\ndecode: {}\nrouters: {}'), ["pd-key: sglang: disaggregation has no key 'routers': it takes transfer_backend, transfer_config, port_base, placement, router, prefill, decode, search_space"]);
  });

  test('a credential in a role env is refused: the env is printed in the commands', () => {
    assert.deepEqual(sg('prefill: {env: {HF_TOKEN: hf_abc}}\ndecode: {}').filter((e) => e.startsWith('pd-')), [
      "pd-env-secret: sglang: HF_TOKEN looks like a credential: a unit's env is printed in its commands; name it in the secrets: block instead",
    ]);
  });

  test("vLLM: the unit writes kv_transfer_config; kv_role is the role's; recompute on failure is warned about", () => {
    assert.deepEqual(errorsOf(vl('prefill: {flags: {kv_transfer_config: "{}"}}\ndecode: {}')), [
      'pd-reserved-flag: vllm: a P/D unit sets kv_transfer_config on each worker itself (set disaggregation.transfer_backend and disaggregation.transfer_config); remove it here',
    ]);
    assert.deepEqual(errorsOf(vl('transfer_config: {kv_role: kv_both}\nprefill: {}\ndecode: {}')), ["pd-transfer-config: vllm: kv_role follows from transfer_backend and each worker's role: remove it"]);
    const w = vl('transfer_config: {kv_load_failure_policy: recompute}\nprefill: {}\ndecode: {}').findings.filter((f) => f.code === 'pd-failure-policy');
    assert.equal(w.length, 1);
    assert.equal(w[0]?.severity, 'warning');
  });

  test('vLLM Mooncake needs equal TP on both roles (its connector moves nothing otherwise); NIXL does not', () => {
    const block = (backend: string) => `transfer_backend: ${backend}\nprefill: {}\ndecode: {}\nsearch_space: {decode.tensor_parallel_size: [1, 2]}`;
    assert.deepEqual(errorsOf(vl(block('mooncake'))), ['pd-equal-tp: vllm: the mooncake transfer backend needs the same TP on prefill and decode workers: pd3 (prefill TP1, decode TP2); use nixl, or equal TP']);
    assert.deepEqual(errorsOf(vl(block('nixl'))), []);
  });

  test('no two processes of a unit on one port', () => {
    assert.deepEqual(sg('prefill: {}\ndecode: {}\nrouter: {port: 30001}'), ['pd-port-clash: sglang: pd1: the router and decode worker 0 both use port 30001; move router.port or port_base']);
  });

  test('frameworks without a P/D profile say why', () => {
    const r = check(plan('tokenspeed', 'prefill: {}\ndecode: {}'));
    const e = errorsOf(r).filter((x) => x.startsWith('pd-'));
    assert.deepEqual(e, ["pd-unsupported: tokenspeed: P/D units are not available for this framework: TokenSpeed's captured --help has no P/D mode"]);
  });
});

describe('P/D units in a plan, the listing and the schema', () => {
  test('a plan runs the units next to the aggregated candidates; a unit error found once they are built skips the units only', () => {
    const p = readRunPlan({ text: exampleText, path: EXAMPLE });
    const sg = p.frameworks.find((f) => f.framework === 'sglang');
    assert.equal(sg?.status, 'run');
    assert.deepEqual(sg?.candidates.map((c) => c.skip?.reason ?? 'run'), ['run', 'run', 'run', 'run', 'run', 'run', 'run']);
    const clash = readRunPlan({ text: exampleText.replace('        port: 8000', '        port: 30001'), path: EXAMPLE });
    const skips = clash.frameworks.find((f) => f.framework === 'sglang')?.candidates.map((c) => (c.skip ? c.skip.reason.slice(0, 30) : 'run'));
    assert.deepEqual(skips, ['run', 'run', 'run', 'the P/D block has errors: sgla', 'the P/D block has errors: sgla', 'the P/D block has errors: sgla', 'the P/D block has errors: sgla']);
  });

  test('an error in the P/D block skips only the units, and says so', () => {
    const text = exampleText.replace('transfer_backend: mooncake', 'transfer_backend: rdma');
    const p = readRunPlan({ text, path: EXAMPLE });
    const sg = p.frameworks.find((f) => f.framework === 'sglang');
    assert.equal(sg?.status, 'run');
    assert.deepEqual(sg?.candidates.map((c) => c.id), ['baseline', 'c1', 'c2'], 'no units are built from a block with errors');
    assert.ok(p.warnings.some((w) => w.includes("transfer_backend 'rdma'") && w.endsWith('(no P/D units are run)')), p.warnings.join('\n'));
    assert.deepEqual(p.problems, []);
  });

  test('Show commands lists every process of every unit, in start order, with the same words', () => {
    const r = check(exampleText);
    const listing = commandsListing(EXAMPLE, r).replace(/ \\\n {2}/g, ' ');
    for (const c of [...units(r, 'sglang'), ...units(r, 'vllm')]) {
      for (const line of lines(c)) assert.ok(listing.includes(`\n${line}\n`), line);
      assert.ok(listing.includes(`# ${c.id}: P/D unit ${c.name}, `));
    }
    assert.match(listing, /# {3}pd1 router \(the load client talks to it\), port 8000\n/);
  });

  test('the schema describes the block for completion and hover', () => {
    const keys = schemaKeysAt('plan', ['frameworks', 'sglang', 'disaggregation']).map((k) => k.name);
    assert.deepEqual(keys.sort(), ['decode', 'placement', 'port_base', 'prefill', 'router', 'search_space', 'transfer_backend', 'transfer_config']);
    assert.deepEqual(schemaKeysAt('plan', ['frameworks', 'vllm', 'disaggregation', 'prefill']).map((k) => k.name).sort(), ['env', 'flags', 'llm_api_options', 'workers']);
  });
});

describe('P/D units in the editor: completion and hover', () => {
  const at = (text: string, marker: string): [string, number] => [text.replace(marker, ''), text.indexOf(marker)];

  test("a role's flags offer the framework's flags, without the ones the unit sets itself", () => {
    const [text, off] = at(exampleText.replace('          max_running_requests: 128', '          max_running_requests: 128\n          §'), '§');
    const labels = completeAt(text, off, 'plan', undefined).map((e) => e.label);
    assert.ok(labels.includes('chunked_prefill_size'), labels.slice(0, 20).join(','));
    assert.ok(!labels.includes('port') && !labels.includes('disaggregation_mode') && !labels.includes('host'), 'reserved flags are not offered');
    assert.ok(!labels.includes('max_running_requests'), 'a flag already set is not offered again');
  });

  test('the unit search space offers <role>.workers and <role>.<flag>, with values for a choice flag', () => {
    const [text, off] = at(exampleText.replace('        decode.tp_size: [1, 2]', '        decode.tp_size: [1, 2]\n        §'), '§');
    const labels = completeAt(text, off, 'plan', undefined).map((e) => e.label);
    for (const l of ['prefill.tp_size', 'decode.chunked_prefill_size']) assert.ok(labels.includes(l), l);
    assert.ok(!labels.includes('prefill.workers') && !labels.includes('decode.tp_size'), 'keys already there are not offered');
    assert.ok(!labels.includes('decode.port'));
    const [text2, off2] = at(exampleText.replace('        decode.tp_size: [1, 2]', '        decode.tp_size: [1, 2]\n        decode.schedule_policy: [§]'), '§');
    assert.ok(completeAt(text2, off2, 'plan', undefined).some((e) => e.label === 'lpm'));
  });

  test('hover on a role flag or a unit search key describes the flag', () => {
    const r = check(exampleText);
    const role = exampleText.indexOf('max_running_requests: 128') + 2;
    assert.match(hoverAt(r, role, undefined)?.markdown ?? '', /--max-running-requests/);
    const search = exampleText.indexOf('decode.tp_size') + 9;
    assert.match(hoverAt(r, search, undefined)?.markdown ?? '', /--tp-size/);
    const block = exampleText.indexOf('transfer_backend: mooncake') + 2;
    assert.match(hoverAt(r, block, undefined)?.markdown ?? '', /How KV moves from prefill to decode workers/);
  });
});

describe('P/D units over a scheduler\'s nodes', () => {
  const block = (placement: string) => `transfer_backend: mooncake\n${placement}prefill: {workers: 2}\ndecode: {workers: 1, flags: {tp_size: 2}}`;

  test('pack fills each node in start order, never splitting a worker; by_role starts each role on a node of its own; the router on the first', () => {
    const [pack] = units(check(plan('sglang', block(''))), 'sglang');
    assert.equal(pack?.unit?.placement, 'pack');
    // 2 single-GPU prefill workers fill node 0 (2 GPUs); the TP2 decode worker goes to node 1.
    assert.deepEqual(unitNodeLayout(pack?.unit, 2), { nodes: 2, gpusPerNode: 2, at: [{ node: 0, gpus: [0] }, { node: 0, gpus: [1] }, { node: 1, gpus: [0, 1] }, { node: 0, gpus: [] }] });
    // On 4-GPU nodes the unit packs onto one.
    assert.deepEqual(unitNodeLayout(pack?.unit, 4), { nodes: 1, gpusPerNode: 4, at: [{ node: 0, gpus: [0] }, { node: 0, gpus: [1] }, { node: 0, gpus: [2, 3] }, { node: 0, gpus: [] }] });
    const [byRole] = units(check(plan('sglang', block('placement: by_role\n'))), 'sglang');
    assert.deepEqual(unitNodeLayout(byRole?.unit as Unit, 4)?.valueOf(), { nodes: 2, gpusPerNode: 2, at: [{ node: 0, gpus: [0] }, { node: 0, gpus: [1] }, { node: 1, gpus: [0, 1] }, { node: 0, gpus: [] }] });
    assert.equal(unitNodeLayout(pack?.unit, 1), 'a decode worker holds 2 GPUs, more than a node\'s 1');
    // job_per_role: by_role's nodes, split into a prefill job (with the router) and a decode job.
    const [perJob] = units(check(plan('sglang', block('placement: job_per_role\n'))), 'sglang');
    assert.deepEqual(unitNodeLayout(perJob?.unit as Unit, 4), {
      nodes: 2,
      gpusPerNode: 2,
      at: [{ node: 0, gpus: [0] }, { node: 0, gpus: [1] }, { node: 1, gpus: [0, 1] }, { node: 0, gpus: [] }],
      jobs: [{ role: 'prefill', nodes: [0], gpusPerNode: 2 }, { role: 'decode', nodes: [1], gpusPerNode: 2 }],
    });
  });

  test('a placement the runner does not know is an error naming the choices', () => {
    const r = check(plan('sglang', block('placement: spread\n')));
    assert.ok(errorsOf(r).some((e) => e.startsWith('pd-placement: sglang: placement must be pack, by_role or job_per_role')), errorsOf(r).join('\n'));
  });
});

describe('P/D units: TensorRT-LLM', () => {
  const trt = (block: string) => check(plan('tensorrt_llm', block, 'backend: pytorch, max_seq_len: 4096'));
  const pd = (r: CheckResult) => r.findings.filter((f) => f.code.startsWith('pd-')).map((f) => `${f.severity} ${f.code}: ${f.message}`);

  test('1P1D: workers read their role file, the front end its config; the files and commands exactly, files first in the script', () => {
    const r = trt("transfer_backend: UCX\ntransfer_config: {max_tokens_in_buffer: 2048}\nprefill: {llm_api_options: {kv_cache_config: {free_gpu_memory_fraction: 0.8}}}\ndecode: {llm_api_options: {max_batch_size: 64}}");
    assert.deepEqual(pd(r), []);
    const [pd1] = units(r, 'tensorrt_llm');
    assert.ok(pd1?.unit);
    assert.deepEqual(lines(pd1), [
      'CUDA_VISIBLE_DEVICES=0 trtllm-serve serve Qwen/Qwen3-32B --backend pytorch --max_seq_len 4096 --host 127.0.0.1 --port 30000 --extra_llm_api_options pd1/prefill.yaml',
      'CUDA_VISIBLE_DEVICES=1 trtllm-serve serve Qwen/Qwen3-32B --backend pytorch --max_seq_len 4096 --host 127.0.0.1 --port 30001 --extra_llm_api_options pd1/decode.yaml',
      'trtllm-serve disaggregated --config_file pd1/disagg.yaml --request_timeout 3600',
    ]);
    assert.deepEqual(pd1.unit.files, [
      { path: 'pd1/prefill.yaml', role: 'prefill', content: 'kv_cache_config:\n  free_gpu_memory_fraction: 0.8\ndisable_overlap_scheduler: true\ncache_transceiver_config:\n  backend: UCX\n  max_tokens_in_buffer: 2048\n' },
      { path: 'pd1/decode.yaml', role: 'decode', content: 'max_batch_size: 64\ncache_transceiver_config:\n  backend: UCX\n  max_tokens_in_buffer: 2048\n' },
      { path: 'pd1/disagg.yaml', role: 'router', content: 'hostname: 127.0.0.1\nport: 8000\ncontext_servers:\n  num_instances: 1\n  urls:\n    - 127.0.0.1:30000\ngeneration_servers:\n  num_instances: 1\n  urls:\n    - 127.0.0.1:30001\n' },
    ]);
    assert.equal(pd1.command, ["mkdir -p pd1", "cat > pd1/prefill.yaml <<'EOF'", ...(pd1.unit.files[0]?.content.trimEnd().split('\n') ?? []), 'EOF', "cat > pd1/decode.yaml <<'EOF'", ...(pd1.unit.files[1]?.content.trimEnd().split('\n') ?? []), 'EOF', "cat > pd1/disagg.yaml <<'EOF'", ...(pd1.unit.files[2]?.content.trimEnd().split('\n') ?? []), 'EOF', ...lines(pd1)].join('\n'));
  });

  test('2P1D with a router policy and TP2 decode (TP may differ between roles): every worker URL, the router type on both sections', () => {
    const r = trt('router: {policy: round_robin, flags: {request_timeout: 600, server_start_timeout: 900}}\nprefill: {workers: 2}\ndecode: {flags: {tp_size: 2}}');
    assert.deepEqual(pd(r), []);
    const [pd1] = units(r, 'tensorrt_llm');
    assert.equal(pd1?.unit?.gpus, 4);
    assert.deepEqual(lines(pd1 ?? ({} as Candidate)), [
      'CUDA_VISIBLE_DEVICES=0 trtllm-serve serve Qwen/Qwen3-32B --backend pytorch --max_seq_len 4096 --host 127.0.0.1 --port 30000 --extra_llm_api_options pd1/prefill.yaml',
      'CUDA_VISIBLE_DEVICES=1 trtllm-serve serve Qwen/Qwen3-32B --backend pytorch --max_seq_len 4096 --host 127.0.0.1 --port 30001 --extra_llm_api_options pd1/prefill.yaml',
      'CUDA_VISIBLE_DEVICES=2,3 trtllm-serve serve Qwen/Qwen3-32B --backend pytorch --max_seq_len 4096 --tp_size 2 --host 127.0.0.1 --port 30002 --extra_llm_api_options pd1/decode.yaml',
      'trtllm-serve disaggregated --config_file pd1/disagg.yaml --request_timeout 600 --server_start_timeout 900',
    ]);
    assert.deepEqual(pd1?.unit?.files.map((f) => f.content), [
      'disable_overlap_scheduler: true\ncache_transceiver_config:\n  backend: DEFAULT\n',
      'cache_transceiver_config:\n  backend: DEFAULT\n',
      'hostname: 127.0.0.1\nport: 8000\ncontext_servers:\n  num_instances: 2\n  urls:\n    - 127.0.0.1:30000\n    - 127.0.0.1:30001\n  router:\n    type: round_robin\ngeneration_servers:\n  num_instances: 1\n  urls:\n    - 127.0.0.1:30002\n  router:\n    type: round_robin\n',
    ]);
  });

  test('Show commands prints the files with their contents before the processes', () => {
    const r = trt('prefill: {}\ndecode: {}');
    const listing = commandsListing('x.plan.yaml', r, 'tensorrt_llm');
    assert.match(listing, /# {3}pd1 files it writes before starting, paths relative to its working folder \(pd1\/prefill\.yaml: each prefill worker; pd1\/decode\.yaml: each decode worker; pd1\/disagg\.yaml: the router\)\nmkdir -p pd1\ncat > pd1\/prefill\.yaml <<'EOF'\ndisable_overlap_scheduler: true\n/);
    assert.match(listing, /\nEOF\n# {3}pd1 prefill worker 0 \(GPU 0\), port 30000\n/);
  });

  test('backends as the engine spells them; MPI is deprecated; transfer_config keys are CacheTransceiverConfig fields', () => {
    assert.deepEqual(pd(trt('transfer_backend: nixl\nprefill: {}\ndecode: {}')), ["error pd-transfer-backend: tensorrt_llm: transfer_backend 'nixl': cache_transceiver_config.backend is spelled NIXL (llm_args.py @0228a712 takes DEFAULT, UCX, NIXL, MOONCAKE, MPI)"]);
    assert.deepEqual(pd(trt('transfer_backend: RDMA\nprefill: {}\ndecode: {}')), ["error pd-transfer-backend: tensorrt_llm: transfer_backend 'RDMA' is not one it has: DEFAULT, UCX, NIXL, MOONCAKE, MPI"]);
    assert.deepEqual(pd(trt('transfer_backend: MPI\nprefill: {}\ndecode: {}')), ['warning pd-backend-deprecated: tensorrt_llm: the MPI KV transfer backend is deprecated in TensorRT-LLM (examples/disaggregated/README.md @c3c3d76e); its docs recommend UCX or NIXL']);
    assert.deepEqual(pd(trt('transfer_config: {backend: UCX, max_token_in_buffer: 1}\nprefill: {}\ndecode: {}')), [
      'error pd-transfer-config: tensorrt_llm: cache_transceiver_config.backend follows from transfer_backend: remove it here',
      "warning pd-transfer-config: tensorrt_llm: 'max_token_in_buffer' is not a CacheTransceiverConfig field in llm_args.py @0228a712 (max_tokens_in_buffer, kv_transfer_timeout_ms, kv_transfer_sender_future_timeout_ms, kv_transfer_poll_interval_ms, transceiver_runtime, kv_cache_bounce_size_mb); check that this TensorRT-LLM version has it",
    ]);
  });

  test('kv_cache_aware needs KV events on the workers (block reuse and an event buffer); other policies are refused by name', () => {
    const warned = pd(trt('router: {policy: kv_cache_aware}\nprefill: {llm_api_options: {kv_cache_config: {enable_block_reuse: true, event_buffer_max_size: 1024}}}\ndecode: {}'));
    assert.equal(warned.length, 1);
    assert.match(warned[0] ?? '', /^warning pd-kv-events: tensorrt_llm: the kv_cache_aware router routes by the workers' KV events: set decode\.llm_api_options\.kv_cache_config \{enable_block_reuse: true, event_buffer_max_size: 1024\} \(as the engine's disagg_config_conditional\.yaml @7373ab81\)/);
    const events = '{llm_api_options: {kv_cache_config: {event_buffer_max_size: 1024}}}';
    assert.deepEqual(pd(trt(`router: {policy: kv_cache_aware}\nprefill: ${events}\ndecode: ${events}`)), []);
    assert.deepEqual(pd(trt('router: {policy: cache_aware}\nprefill: {}\ndecode: {}')), ["error pd-router-policy: tensorrt_llm: router policy 'cache_aware' is not one the router accepts: round_robin, load_balancing, kv_cache_aware"]);
  });

  test('flags the unit sets, front end options it does not have, and llm_api_options keys the unit writes are errors', () => {
    assert.deepEqual(pd(trt('prefill: {flags: {extra_llm_api_options: a.yaml, port: 1}}\ndecode: {flags: {config: b.yaml}}')), [
      "error pd-reserved-flag: tensorrt_llm: a P/D unit sets extra_llm_api_options on each worker itself (the unit writes each role's options file: put its keys in the role's llm_api_options); remove it here",
      'error pd-reserved-flag: tensorrt_llm: a P/D unit sets port on each worker itself (each worker gets its own port from disaggregation.port_base); remove it here',
      "error pd-reserved-flag: tensorrt_llm: a P/D unit sets config on each worker itself (the unit writes each role's options file: put its keys in the role's llm_api_options); remove it here",
    ]);
    assert.deepEqual(pd(trt('router: {flags: {config_file: x.yaml, host: 0.0.0.0}}\nprefill: {}\ndecode: {}')), [
      'error pd-reserved-flag: tensorrt_llm: the unit writes the front end config and passes it as --config_file: remove it here',
      "error pd-router-flag: tensorrt_llm: trtllm-serve disaggregated has no option 'host': it takes server_start_timeout, request_timeout, log_level, metrics_log_interval",
    ]);
    assert.deepEqual(pd(trt('prefill: {llm_api_options: {cache_transceiver_config: {backend: UCX}, disable_overlap_scheduler: false}}\ndecode: {llm_api_options: [1]}')), [
      'error pd-llm-api-options: tensorrt_llm: the unit writes cache_transceiver_config from disaggregation.transfer_backend and transfer_config: remove it here',
      'error pd-overlap: tensorrt_llm: a context (prefill) worker needs disable_overlap_scheduler: true, else "Context only requests are not supported in pytorch backend when overlap is enabled." (base_worker.py @7b437aaa); the unit sets it: remove it here',
      'error pd-llm-api-options: tensorrt_llm: llm_api_options must map LLM API option names to values (what an extra_llm_api_options YAML holds)',
    ]);
    assert.deepEqual(pd(trt('prefill: {}\ndecode: {llm_api_options: {disable_overlap_scheduler: false}}')), [], 'a generation worker may keep overlap on');
    assert.deepEqual(errorsOf(check(plan('sglang', 'prefill: {llm_api_options: {a: 1}}\ndecode: {}', 'model_path: Qwen/Qwen3-32B'))), ["pd-llm-api-options: sglang: llm_api_options is TensorRT-LLM's extra_llm_api_options file; sglang takes its settings as the role's flags"]);
  });
});
