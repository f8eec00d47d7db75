// Which secret goes to which target: approvals kept per target and name, asked once per target, revocable; nothing
// unapproved is sent, and the run worker's environment holds no secret to fall back to (src/extension/secrets.ts, with
// its UI and stores faked).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  approvalPairs,
  approvalsOf,
  decideSecrets,
  isApproved,
  offersOf,
  secretNamesFor,
  withApproval,
  withoutApprovals,
  withoutSecretVariables,
  APPROVALS_KEY,
  HF_TOKEN_KEY,
  revokeApprovals,
  secretsForRun,
  SEND_ALWAYS,
  type Answer,
  type SecretConsent,
  type SecretOffer,
} from '../../src/extension/secrets';
import { secretNamesOfText as planSecretNames } from '../../src/core/plan/secrets';

const HF = ['HF_TOKEN', 'HUGGING_FACE_HUB_TOKEN'];
// Not hf_-shaped, with spaces and shell metacharacters: the value is passed as is, never parsed.
const TOKEN = `a b'c;$(x)`;

/** An ask() that answers from a script and records each question. */
function asker(answers: Array<Answer | undefined>): { ask: (o: SecretOffer) => Promise<Answer | undefined>; asked: string[] } {
  const asked: string[] = [];
  return {
    asked,
    ask: (o) => {
      asked.push(o.name);
      return Promise.resolve(answers.shift());
    },
  };
}

test('the global state is read defensively: only target -> non-empty string names, each once, sorted', () => {
  assert.deepEqual(approvalsOf(undefined), {});
  assert.deepEqual(approvalsOf(['ssh:a']), {});
  assert.deepEqual(approvalsOf({ 'ssh:a': ['HF_TOKEN', 'A_KEY', 'HF_TOKEN', 3, ''], local: 'HF_TOKEN', 'ssh:b': [] }), { 'ssh:a': ['A_KEY', 'HF_TOKEN'] });
});

test('an approval is per target and per name', () => {
  const a = withApproval({}, 'ssh:gpu-box-1', 'HF_TOKEN');
  assert.equal(isApproved(a, 'ssh:gpu-box-1', 'HF_TOKEN'), true);
  assert.equal(isApproved(a, 'ssh:gpu-box-2', 'HF_TOKEN'), false);
  assert.equal(isApproved(a, 'ssh:gpu-box-1', 'SGLANG_API_KEY'), false);
  assert.equal(isApproved(a, 'toString', 'HF_TOKEN'), false, 'an inherited property is no target');
  assert.equal(withApproval(a, 'ssh:gpu-box-1', 'HF_TOKEN'), a, 'approving twice changes nothing');
});

test('declined: the run gets nothing of that secret; "Send Once" sends it without remembering; "Always" remembers, and the next run does not ask', async () => {
  const offers = offersOf(HF, { HF_TOKEN: TOKEN }, {});
  const no = asker(['no']);
  const declined = await decideSecrets('ssh:evil-host', offers, {}, no.ask);
  assert.deepEqual(no.asked, ['HF_TOKEN']);
  assert.deepEqual(declined.send, {});
  assert.deepEqual(declined.withheld, ['HF_TOKEN']);
  assert.equal(declined.changed, false);

  const dismissed = await decideSecrets('ssh:evil-host', offers, {}, asker([undefined]).ask);
  assert.deepEqual(dismissed.send, {}, 'closing the modal is not a yes');

  const once = await decideSecrets('ssh:gpu', offers, {}, asker(['once']).ask);
  assert.deepEqual(once.send, { HF_TOKEN: TOKEN });
  assert.equal(once.changed, false);
  assert.deepEqual(once.approvals, {});

  const always = await decideSecrets('ssh:gpu', offers, {}, asker(['always']).ask);
  assert.deepEqual(always.send, { HF_TOKEN: TOKEN });
  assert.deepEqual(always.approvals, { 'ssh:gpu': ['HF_TOKEN'] });
  assert.equal(always.changed, true);

  const again = asker([]);
  const next = await decideSecrets('ssh:gpu', offers, always.approvals, again.ask);
  assert.deepEqual(again.asked, [], 'an approved target is not asked again');
  assert.deepEqual(next.send, { HF_TOKEN: TOKEN });
  // The approval is for that host only.
  const other = asker(['no']);
  assert.deepEqual((await decideSecrets('ssh:other', offers, always.approvals, other.ask)).send, {});
  assert.deepEqual(other.asked, ['HF_TOKEN']);
});

test('each secret is asked about on its own', async () => {
  const offers = offersOf(['HF_TOKEN', 'SGLANG_API_KEY'], { HF_TOKEN: 'hf-value' }, { SGLANG_API_KEY: 'key value', HF_TOKEN: 'env-value' });
  assert.deepEqual(offers.map((o) => `${o.name}=${o.value} (${o.from})`), ['HF_TOKEN=hf-value (secret storage)', 'SGLANG_API_KEY=key value (environment)']);
  const a = asker(['no', 'always']);
  const d = await decideSecrets('local', offers, {}, a.ask);
  assert.deepEqual(a.asked, ['HF_TOKEN', 'SGLANG_API_KEY']);
  assert.deepEqual(d.send, { SGLANG_API_KEY: 'key value' });
  assert.deepEqual(d.withheld, ['HF_TOKEN']);
  assert.deepEqual(d.approvals, { local: ['SGLANG_API_KEY'] });
});

test('names without a value offer nothing (nothing to ask about)', () => {
  assert.deepEqual(offersOf(HF, {}, { HF_TOKEN: '' }), []);
});

test('the simulated engine never gets the Hugging Face token names; a name the plan asks for is offered on every target', () => {
  assert.deepEqual(secretNamesFor('sim', HF, []), []);
  assert.deepEqual(secretNamesFor('sim', HF, ['SGLANG_API_KEY']), ['SGLANG_API_KEY']);
  assert.deepEqual(secretNamesFor('ssh:h', HF, ['SGLANG_API_KEY', 'HF_TOKEN']), [...HF, 'SGLANG_API_KEY']);
  assert.deepEqual(secretNamesFor('local', HF, []), HF);
});

test('the names a plan\'s secrets: block asks for are offered too (read by the core reader); none without the block', () => {
  const plan = 'model:\n  name: m\nsecrets:\n  api_key: SGLANG_API_KEY\n  server_env: [HF_TOKEN, EXTRA_VAR]\n  headers:\n    X-Api-Key: GATEWAY_KEY\n';
  assert.deepEqual(planSecretNames(plan).sort(), ['EXTRA_VAR', 'GATEWAY_KEY', 'HF_TOKEN', 'SGLANG_API_KEY']);
  assert.deepEqual(planSecretNames('model:\n  name: m\n'), []);
  assert.deepEqual(planSecretNames(': not yaml: ['), []);
});

test('revoking: listed target by target; some pairs, or all', () => {
  let a = withApproval(withApproval(withApproval({}, 'ssh:b', 'HF_TOKEN'), 'ssh:a', 'HF_TOKEN'), 'ssh:a', 'A_KEY');
  assert.deepEqual(approvalPairs(a), [
    { target: 'ssh:a', name: 'A_KEY' },
    { target: 'ssh:a', name: 'HF_TOKEN' },
    { target: 'ssh:b', name: 'HF_TOKEN' },
  ]);
  a = withoutApprovals(a, [{ target: 'ssh:a', name: 'HF_TOKEN' }]);
  assert.deepEqual(a, { 'ssh:a': ['A_KEY'], 'ssh:b': ['HF_TOKEN'] });
  a = withoutApprovals(a, [{ target: 'ssh:b', name: 'HF_TOKEN' }]);
  assert.deepEqual(a, { 'ssh:a': ['A_KEY'] }, 'a target with no name left is gone');
  assert.deepEqual(withoutApprovals(a, 'all'), {});
});

test('the worker environment: no secret-named variable, none of the run\'s secret names, everything else kept', () => {
  const env = { PATH: '/bin', HOME: '/h', HF_TOKEN: TOKEN, HUGGING_FACE_HUB_TOKEN: 'x', OPENAI_API_KEY: 'k', DB_PASSWORD: 'p', MY_PLAN_KEY: 'v', UNSET: undefined };
  assert.deepEqual(withoutSecretVariables(env, ['MY_PLAN_KEY']), { PATH: '/bin', HOME: '/h' });
});

/** The consent flow's stores and UI as plain objects: what was asked, stored, logged and said. */
function fakeConsent(opts: { token?: string; modal?: Array<string | undefined>; picks?: Array<readonly { label: string }[] | undefined>; state?: Record<string, unknown> }) {
  const state = new Map<string, unknown>(Object.entries(opts.state ?? {}));
  const seen = { modal: [] as string[], info: [] as string[], log: [] as string[] };
  const c: SecretConsent = {
    secrets: { get: (key: string) => Promise.resolve(key === HF_TOKEN_KEY ? opts.token : undefined) },
    state: {
      get: ((key: string) => state.get(key)),
      update: (key: string, value: unknown) => Promise.resolve(void state.set(key, value)),
    },
    log: { info: (m: string) => void seen.log.push(m), warn: (m: string) => void seen.log.push(m) },
    ui: {
      askModal: (q) => (seen.modal.push(q), Promise.resolve(opts.modal?.shift())),
      pickMany: <T extends { label: string }>(items: T[]) => {
        const labels = opts.picks?.shift()?.map((p) => p.label);
        return Promise.resolve(labels ? items.filter((i) => labels.includes(i.label)) : undefined);
      },
      info: (m) => void seen.info.push(m),
    },
    env: {},
  };
  return { c, state, seen };
}

test('a run asks through the UI, stores "Always for This Host", and the next run to that host does not ask', async () => {
  const f = fakeConsent({ token: TOKEN, modal: [SEND_ALWAYS] });
  const first = await secretsForRun(f.c, 'ssh:gpu-box-1', 'schema_version: 1\n');
  assert.deepEqual(f.seen.modal, ['Send HF_TOKEN to ssh:gpu-box-1?']);
  assert.deepEqual([first.send, first.serverEnv, first.withheld], [{ HF_TOKEN: TOKEN }, ['HF_TOKEN'], []]);
  assert.deepEqual(approvalsOf(f.state.get(APPROVALS_KEY)), { 'ssh:gpu-box-1': ['HF_TOKEN'] });
  const again = await secretsForRun(f.c, 'ssh:gpu-box-1', 'schema_version: 1\n');
  assert.deepEqual([f.seen.modal.length, again.asked, again.send], [1, [], { HF_TOKEN: TOKEN }]);
  // Another host is asked; a dismissed dialog is a "no", logged by name only.
  const other = await secretsForRun(f.c, 'ssh:gpu-box-2', 'schema_version: 1\n');
  assert.deepEqual([other.send, other.withheld], [{}, ['HF_TOKEN']]);
  assert.ok(f.seen.log.some((l) => l.includes('HF_TOKEN is NOT sent to ssh:gpu-box-2')));
  assert.ok(!f.seen.log.some((l) => l.includes(TOKEN)), 'the value never reaches the log');
});

test('revoking through the UI: nothing approved says so; picked pairs go; "Revoke all" empties the store', async () => {
  assert.deepEqual(await revokeApprovals(fakeConsent({}).c), {});
  const empty = fakeConsent({});
  await revokeApprovals(empty.c);
  assert.deepEqual(empty.seen.info, ['Autobench: no secret is approved for any target.']);
  const stored = { [APPROVALS_KEY]: { 'ssh:a': ['HF_TOKEN'], 'ssh:b': ['HF_TOKEN'] } };
  const some = fakeConsent({ state: stored, picks: [[{ label: 'HF_TOKEN → ssh:a' }]] });
  assert.deepEqual(await revokeApprovals(some.c), { 'ssh:b': ['HF_TOKEN'] });
  assert.deepEqual(some.seen.info, ['Autobench: 1 secret approval revoked.']);
  const all = fakeConsent({ state: stored, picks: [[{ label: '$(trash) Revoke all' }]] });
  assert.deepEqual(await revokeApprovals(all.c), {});
  const cancelled = fakeConsent({ state: stored, picks: [undefined] });
  assert.deepEqual(await revokeApprovals(cancelled.c), stored[APPROVALS_KEY]);
});
