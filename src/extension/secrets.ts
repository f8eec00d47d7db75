// Which secret may go to which target, in one module: the user's approvals (target -> secret names, kept in the
// extension's global state), what a run offers, the decision before it starts, the question ("Send HF_TOKEN to
// ssh:gpu-box-1?", "Always for This Host" kept), and "Revoke Secret Approvals".
//
// A value reaches a target only when the user approved that target for that name ("Always for This Host", kept) or
// for this one run ("Send Once", not kept). Nothing else falls back to an environment: what is not approved is not
// sent, and the run worker starts without those variables (withoutSecretVariables).
//
// VS Code is reached only through the SecretUi and the stores handed in (types only here), so node's tests run the
// whole flow: the rules, the questions asked and what is stored.
import type * as vscode from 'vscode';
import { looksLikeSecretName } from '../core/secrets';
import { secretNamesOfText } from '../core/plan/secrets';
import { DEFAULT_SECRET_NAMES } from '../runner/target';

/** Where "Autobench: Set Hugging Face Token" keeps the token (VS Code's secret storage). */
export const HF_TOKEN_KEY = 'autobench.hfToken';

/** The secrets kept in SecretStorage, by the variable name servers get them as: HF_TOKEN (offered to a run's target only with the user's approval). */
export async function storedSecrets(secrets: Pick<vscode.SecretStorage, 'get'>): Promise<Record<string, string>> {
  const token = await secrets.get(HF_TOKEN_KEY);
  return token ? { HF_TOKEN: token } : {};
}

/** The global-state key: target -> approved secret names. */
export const APPROVALS_KEY = 'autobench.secretApprovals';

export type Approvals = Readonly<Record<string, readonly string[]>>;

/** The modal's answers: this run only, this target from now on, or not at all. */
export type Answer = 'once' | 'always' | 'no';

/** A secret a run would send, with the value it has and where the value was read (for the question). */
export interface SecretOffer {
  name: string;
  value: string;
  from: 'secret storage' | 'environment';
}


/** The global state's value read defensively: anything but target -> string[] is dropped. */
export function approvalsOf(raw: unknown): Approvals {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return {};
  const out: Record<string, string[]> = {};
  for (const [target, names] of Object.entries(raw as Record<string, unknown>)) {
    if (!Array.isArray(names)) continue;
    const ok = [...new Set(names.filter((n): n is string => typeof n === 'string' && n.length > 0))].sort();
    if (ok.length) out[target] = ok;
  }
  return out;
}

export function isApproved(a: Approvals, target: string, name: string): boolean {
  return Object.prototype.hasOwnProperty.call(a, target) && (a[target] ?? []).includes(name);
}

export function withApproval(a: Approvals, target: string, name: string): Approvals {
  if (isApproved(a, target, name)) return a;
  return { ...a, [target]: [...(a[target] ?? []), name].sort() };
}

export interface ApprovalPair {
  target: string;
  name: string;
}

/** Every approval, target by target, names sorted: what "Revoke Secret Approvals" lists. */
export function approvalPairs(a: Approvals): ApprovalPair[] {
  return Object.keys(a)
    .sort()
    .flatMap((target) => (a[target] ?? []).map((name) => ({ target, name })));
}

/** The approvals without the given pairs (`'all'`: none left). */
export function withoutApprovals(a: Approvals, pairs: readonly ApprovalPair[] | 'all'): Approvals {
  if (pairs === 'all') return {};
  const out: Record<string, string[]> = {};
  for (const [target, names] of Object.entries(a)) {
    const kept = names.filter((n) => !pairs.some((p) => p.target === target && p.name === n));
    if (kept.length) out[target] = [...kept];
  }
  return out;
}

/**
 * The secret names a run on `target` would send: the Hugging Face token names (`hfNames`, the runner's defaults) and
 * the names the plan asks for. The simulated engine downloads nothing, so `sim` never gets the Hugging Face names;
 * a name the plan asks for is offered on every target, `sim` included (the plan's server_command runs there too).
 */
export function secretNamesFor(target: string, hfNames: readonly string[], planNames: readonly string[]): string[] {
  return [...new Set([...(target === 'sim' ? [] : hfNames), ...planNames])];
}

/** What each name would send: SecretStorage first (the Hugging Face token), else the environment; names without a value offer nothing. */
export function offersOf(names: readonly string[], stored: Readonly<Record<string, string>>, env: Readonly<Record<string, string | undefined>>): SecretOffer[] {
  const out: SecretOffer[] = [];
  for (const name of names) {
    const own = Object.prototype.hasOwnProperty.call(stored, name) ? stored[name] : undefined;
    if (own) out.push({ name, value: own, from: 'secret storage' });
    else if (env[name]) out.push({ name, value: env[name], from: 'environment' });
  }
  return out;
}

export interface SecretDecision {
  /** Name -> value: what the run worker gets, and all it gets. */
  send: Record<string, string>;
  /** Names that had a value but were not approved: not sent. */
  withheld: string[];
  /** The approvals after the answers ("Always for This Host" added). */
  approvals: Approvals;
  /** Whether `approvals` differs from the one given (store it). */
  changed: boolean;
}

/** Asks (in order) about every offer the target is not approved for; an unanswered question counts as "no". */
export async function decideSecrets(target: string, offers: readonly SecretOffer[], approvals: Approvals, ask: (offer: SecretOffer) => Promise<Answer | undefined>): Promise<SecretDecision> {
  const send: Record<string, string> = {};
  const withheld: string[] = [];
  let next = approvals;
  for (const offer of offers) {
    let answer: Answer | undefined = isApproved(next, target, offer.name) ? 'once' : undefined;
    answer ??= (await ask(offer)) ?? 'no';
    if (answer === 'no') {
      withheld.push(offer.name);
      continue;
    }
    if (answer === 'always') next = withApproval(next, target, offer.name);
    send[offer.name] = offer.value;
  }
  return { send, withheld, approvals: next, changed: next !== approvals };
}

/**
 * The environment a run worker (or anything the editor starts for a run) gets: without the names a run may send and
 * without any variable named like a secret, so a server on `local` or `sim` cannot inherit a value nobody approved.
 */
export function withoutSecretVariables(env: NodeJS.ProcessEnv, names: readonly string[] = []): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !names.includes(k) && !looksLikeSecretName(k)) out[k] = v;
  return out;
}

/** What the questions are asked through: VS Code's modal warning, multi-select quick pick and information message. */
export interface SecretUi {
  askModal(question: string, detail: string, buttons: readonly string[]): PromiseLike<string | undefined>;
  pickMany<T extends { label: string; description?: string }>(items: T[], opts: { title: string; placeHolder: string }): PromiseLike<readonly T[] | undefined>;
  info(message: string): void;
}

/** The stores and the UI the consent flow reads and writes (the extension's context, its log). */
export interface SecretConsent {
  secrets: Pick<vscode.SecretStorage, 'get'>;
  state: Pick<vscode.Memento, 'get' | 'update'>;
  log: Pick<vscode.LogOutputChannel, 'info' | 'warn'>;
  ui: SecretUi;
  /** The environment offers are read from (process.env when not given). */
  env?: Readonly<Record<string, string | undefined>>;
}

export const SEND_ONCE = 'Send Once';
export const SEND_ALWAYS = 'Always for This Host';
export const DONT_SEND = "Don't Send";

/** What a run gets: the names it may send (its secretEnv) and the approved values, all the worker receives; and, by name only, what was asked, sent and withheld. */
export interface ApprovedSecrets {
  names: string[];
  /**
   * The run's secretEnv: the approved Hugging Face token names. The plan's own names need no listing (the runner reads
   * its secrets: block: server_env goes to every server, the API key and the headers only where they are used).
   */
  serverEnv: string[];
  send: Record<string, string>;
  asked: string[];
  withheld: string[];
}

export function question(name: string, target: string): string {
  return `Send ${name} to ${target}?`;
}

function whereFrom(offer: SecretOffer): string {
  return offer.from === 'secret storage' ? "VS Code's secret storage (Autobench: Set Hugging Face Token)" : "the environment VS Code was started with";
}

async function ask(ui: SecretUi, target: string, offer: SecretOffer): Promise<Answer | undefined> {
  const place = target === 'local' ? 'this machine (local)' : target;
  const pick = await ui.askModal(
    question(offer.name, target),
    `The run's servers on ${place} would get ${offer.name} (from ${whereFrom(offer)}) in their environment; whoever controls that host, or the plan's server_command, can read it. Declined: the run goes on without it.`,
    [SEND_ONCE, SEND_ALWAYS, DONT_SEND],
  );
  return pick === SEND_ONCE ? 'once' : pick === SEND_ALWAYS ? 'always' : pick === DONT_SEND ? 'no' : undefined;
}

function approvals(state: Pick<vscode.Memento, 'get'>): Approvals {
  return approvalsOf(state.get(APPROVALS_KEY));
}

/**
 * Asks about each secret of the run the target is not approved for; declined ones are left out (and said so in the
 * log). `testAnswer`: the answer a test gives instead of the modal (VS Code's test host refuses modal dialogs); the
 * caller passes it only when the extension runs in ExtensionMode.Test, so no command argument can skip the question.
 */
export async function secretsForRun(c: SecretConsent, target: string, planText: string, testAnswer?: Answer): Promise<ApprovedSecrets> {
  const names = secretNamesFor(target, DEFAULT_SECRET_NAMES, secretNamesOfText(planText));
  const offers = offersOf(names, await storedSecrets(c.secrets), c.env ?? process.env);
  const asked: string[] = [];
  const decision = await decideSecrets(target, offers, approvals(c.state), (offer) => {
    asked.push(question(offer.name, target));
    // A dialog that cannot be shown is a "no".
    return testAnswer ? Promise.resolve(testAnswer) : ask(c.ui, target, offer).catch(() => undefined);
  });
  if (decision.changed) await c.state.update(APPROVALS_KEY, decision.approvals);
  for (const name of Object.keys(decision.send)) c.log.info(`secret ${name} is sent to ${target} (approved)`);
  for (const name of decision.withheld) c.log.warn(`secret ${name} is NOT sent to ${target}: not approved for it; the run goes on without it`);
  return { names, serverEnv: DEFAULT_SECRET_NAMES.filter((n) => n in decision.send), send: decision.send, asked, withheld: decision.withheld };
}

/** The pairs a caller named (`'all'`, or [{target, name}]), else those the user picks. Revoking only takes rights away, so any caller may. */
async function chosenPairs(ui: SecretUi, pairs: readonly ApprovalPair[], given: unknown): Promise<readonly ApprovalPair[] | 'all' | undefined> {
  if (given === 'all') return 'all';
  if (Array.isArray(given)) return pairs.filter((p) => given.some((g: unknown) => typeof g === 'object' && g !== null && (g as ApprovalPair).target === p.target && (g as ApprovalPair).name === p.name));
  const all = { label: '$(trash) Revoke all', description: `${pairs.length} approval${pairs.length === 1 ? '' : 's'}`, pair: undefined };
  const picked = await ui.pickMany([all, ...pairs.map((p) => ({ label: `${p.name} → ${p.target}`, description: 'sent without asking', pair: p }))], {
    title: 'Revoke Secret Approvals',
    placeHolder: 'Approvals to revoke: the next run to that target asks again',
  });
  if (!picked?.length) return undefined;
  return picked.some((p) => !p.pair) ? 'all' : picked.flatMap((p) => (p.pair ? [p.pair] : []));
}

/** "Autobench: Revoke Secret Approvals": a quick pick of target -> name pairs, and "Revoke all". Resolves with what is left. */
export async function revokeApprovals(c: SecretConsent, given?: unknown): Promise<Approvals> {
  const current = approvals(c.state);
  const pairs = approvalPairs(current);
  if (!pairs.length) {
    c.ui.info('Autobench: no secret is approved for any target.');
    return current;
  }
  const chosen = await chosenPairs(c.ui, pairs, given);
  if (!chosen || (chosen !== 'all' && !chosen.length)) return current;
  const left = withoutApprovals(current, chosen);
  await c.state.update(APPROVALS_KEY, left);
  const revoked = chosen === 'all' ? pairs : chosen;
  c.log.info(`secret approvals revoked: ${revoked.map((p) => `${p.name} → ${p.target}`).join(', ')}`);
  c.ui.info(`Autobench: ${revoked.length} secret approval${revoked.length === 1 ? '' : 's'} revoked.`);
  return left;
}
