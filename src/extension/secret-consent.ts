// Before a run starts: which of its secrets the user lets go to its target ("Send HF_TOKEN to ssh:gpu-box-1?"),
// "Always for This Host" kept in the extension's global state, and "Revoke Secret Approvals". The rules are
// secret-approvals.ts's; this module only asks, stores and logs.
import * as vscode from 'vscode';
import { DEFAULT_SECRET_NAMES } from '../runner/target';
import { storedSecrets } from './run-inputs';
import { secretNamesOfText } from '../core/plan/secrets';
import { approvalPairs, approvalsOf, APPROVALS_KEY, decideSecrets, offersOf, secretNamesFor, withoutApprovals, type Answer, type ApprovalPair, type Approvals, type SecretOffer } from './secret-approvals';

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

async function ask(target: string, offer: SecretOffer): Promise<Answer | undefined> {
  const place = target === 'local' ? 'this machine (local)' : target;
  const pick = await vscode.window.showWarningMessage(
    question(offer.name, target),
    {
      modal: true,
      detail: `The run's servers on ${place} would get ${offer.name} (from ${whereFrom(offer)}) in their environment; whoever controls that host, or the plan's server_command, can read it. Declined: the run goes on without it.`,
    },
    SEND_ONCE,
    SEND_ALWAYS,
    DONT_SEND,
  );
  return pick === SEND_ONCE ? 'once' : pick === SEND_ALWAYS ? 'always' : pick === DONT_SEND ? 'no' : undefined;
}

function approvals(state: vscode.Memento): Approvals {
  return approvalsOf(state.get(APPROVALS_KEY));
}

/**
 * Asks about each secret of the run the target is not approved for; declined ones are left out (and said so in the
 * log). `testAnswer`: the answer a test gives instead of the modal (VS Code's test host refuses modal dialogs); the
 * caller passes it only when the extension runs in ExtensionMode.Test, so no command argument can skip the question.
 */
export async function secretsForRun(extension: vscode.ExtensionContext, log: vscode.LogOutputChannel, target: string, planText: string, testAnswer?: Answer): Promise<ApprovedSecrets> {
  const names = secretNamesFor(target, DEFAULT_SECRET_NAMES, secretNamesOfText(planText));
  const offers = offersOf(names, await storedSecrets(extension.secrets), process.env);
  const asked: string[] = [];
  const decision = await decideSecrets(target, offers, approvals(extension.globalState), (offer) => {
    asked.push(question(offer.name, target));
    // A dialog that cannot be shown is a "no".
    return testAnswer ? Promise.resolve(testAnswer) : ask(target, offer).catch(() => undefined);
  });
  if (decision.changed) await extension.globalState.update(APPROVALS_KEY, decision.approvals);
  for (const name of Object.keys(decision.send)) log.info(`secret ${name} is sent to ${target} (approved)`);
  for (const name of decision.withheld) log.warn(`secret ${name} is NOT sent to ${target}: not approved for it; the run goes on without it`);
  return { names, serverEnv: DEFAULT_SECRET_NAMES.filter((n) => n in decision.send), send: decision.send, asked, withheld: decision.withheld };
}

/** The pairs a caller named (`'all'`, or [{target, name}]), else those the user picks. Revoking only takes rights away, so any caller may. */
async function chosenPairs(pairs: readonly ApprovalPair[], given: unknown): Promise<readonly ApprovalPair[] | 'all' | undefined> {
  if (given === 'all') return 'all';
  if (Array.isArray(given)) return pairs.filter((p) => given.some((g: unknown) => typeof g === 'object' && g !== null && (g as ApprovalPair).target === p.target && (g as ApprovalPair).name === p.name));
  const all = { label: '$(trash) Revoke all', description: `${pairs.length} approval${pairs.length === 1 ? '' : 's'}`, pair: undefined };
  const picked = await vscode.window.showQuickPick([all, ...pairs.map((p) => ({ label: `${p.name} → ${p.target}`, description: 'sent without asking', pair: p }))], {
    title: 'Revoke Secret Approvals',
    placeHolder: 'Approvals to revoke: the next run to that target asks again',
    canPickMany: true,
  });
  if (!picked?.length) return undefined;
  return picked.some((p) => !p.pair) ? 'all' : picked.flatMap((p) => (p.pair ? [p.pair] : []));
}

/** "Autobench: Revoke Secret Approvals": a quick pick of target -> name pairs, and "Revoke all". Resolves with what is left. */
export async function revokeApprovals(extension: vscode.ExtensionContext, log: vscode.LogOutputChannel, given?: unknown): Promise<Approvals> {
  const current = approvals(extension.globalState);
  const pairs = approvalPairs(current);
  if (!pairs.length) {
    void vscode.window.showInformationMessage('Autobench: no secret is approved for any target.');
    return current;
  }
  const chosen = await chosenPairs(pairs, given);
  if (!chosen || (chosen !== 'all' && !chosen.length)) return current;
  const left = withoutApprovals(current, chosen);
  await extension.globalState.update(APPROVALS_KEY, left);
  const revoked = chosen === 'all' ? pairs : chosen;
  log.info(`secret approvals revoked: ${revoked.map((p) => `${p.name} → ${p.target}`).join(', ')}`);
  void vscode.window.showInformationMessage(`Autobench: ${revoked.length} secret approval${revoked.length === 1 ? '' : 's'} revoked.`);
  return left;
}
