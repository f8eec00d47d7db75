// Which secret may go to which target: the user's approvals (target -> secret names, kept in the extension's global
// state), what a run offers, and the decision before it starts. vscode-free: unit tests call it, secret-consent.ts asks.
//
// A value reaches a target only when the user approved that target for that name ("Always for This Host", kept) or
// for this one run ("Send Once", not kept). Nothing else falls back to an environment: what is not approved is not
// sent, and the run worker starts without those variables (withoutSecretVariables).
import { looksLikeSecretName } from '../core/secrets';

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
