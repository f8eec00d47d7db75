// "Select Run Target" and "Set Hugging Face Token": where the Run lenses start servers (sim, local, ssh hosts, Slurm partitions), and the token they may pass them.
import * as vscode from 'vscode';
import { sshConfigHosts } from '../runner';
import type { AutobenchContext } from './context';
import { HF_TOKEN_KEY, type SecretConsent } from './secrets';
import { SETTINGS } from './settings-model';
import { readSettings, writeRunTarget } from './settings';
import { slurmTargets } from './slurm-targets';

/** The consent flow's stores and questions (secrets.ts) on VS Code: the extension's secret storage and global state, modal dialogs. */
export function consentOf(ctx: AutobenchContext): SecretConsent {
  return {
    secrets: ctx.extension.secrets,
    state: ctx.extension.globalState,
    log: ctx.log,
    ui: {
      askModal: (question, detail, buttons) => vscode.window.showWarningMessage(question, { modal: true, detail }, ...buttons),
      pickMany: (items, opts) => vscode.window.showQuickPick(items, { ...opts, canPickMany: true }),
      info: (message) => void vscode.window.showInformationMessage(message),
    },
  };
}

/** The open editor's text when it is YAML (its `slurm:` block may name a partition), else undefined. */
function openPlanText(): string | undefined {
  const doc = vscode.window.activeTextEditor?.document;
  return doc?.languageId === 'yaml' ? doc.getText() : undefined;
}

/** sim, local, the ssh hosts (from the hosts setting and ~/.ssh/config) and this host's Slurm partitions, the current one marked. */
async function targetItems(log: vscode.LogOutputChannel, current: string): Promise<vscode.QuickPickItem[]> {
  const { hosts } = readSettings().run;
  const slurm = await slurmTargets(openPlanText());
  if (slurm.note) log.info(`Select Run Target: no Slurm partitions (${slurm.note})`);
  const items: vscode.QuickPickItem[] = [
    { label: 'sim', description: 'the simulated engine (no GPU; numbers are simulated)' },
    { label: 'local', description: 'this machine' },
    ...hosts.map((h) => ({ label: `ssh:${h}`, description: `over ssh (autobench.${SETTINGS.hosts.key})` })),
    ...sshConfigHosts()
      .filter((h) => !hosts.includes(h))
      .map((h) => ({ label: `ssh:${h}`, description: 'over ssh (~/.ssh/config)' })),
    ...(slurm.items.length ? [{ label: 'Slurm (one batch job per candidate)', kind: vscode.QuickPickItemKind.Separator }, ...slurm.items] : []),
  ];
  return items.map((i) => (i.label === current ? { ...i, detail: 'current target' } : i));
}

/** Picks a target and stores it as the workspace's run target; the list fills in once sinfo answered (a few seconds at most). */
export async function selectTarget(log: vscode.LogOutputChannel): Promise<string | undefined> {
  // The list probes this host (sinfo) and the choice is a restricted setting: trusted workspaces only (commands.ts).
  const current = readSettings().run.target;
  const picked = await vscode.window.showQuickPick(targetItems(log, current), { title: 'Autobench target', placeHolder: `Where runs start servers (now: ${current})` });
  if (!picked) return undefined;
  await writeRunTarget(picked.label);
  return picked.label;
}

/** Stores (or, given an empty value, clears) the token in SecretStorage; runs pass it to servers as HF_TOKEN. */
export async function setHfToken(secrets: vscode.SecretStorage): Promise<boolean> {
  const value = await vscode.window.showInputBox({
    title: 'Hugging Face token',
    prompt: 'Stored in VS Code SecretStorage; runs pass it to servers as HF_TOKEN (never in a command, a file or a log). Empty clears it.',
    password: true,
    ignoreFocusOut: true,
  });
  if (value === undefined) return false;
  if (value.trim()) await secrets.store(HF_TOKEN_KEY, value.trim());
  else await secrets.delete(HF_TOKEN_KEY);
  void vscode.window.showInformationMessage(value.trim() ? 'Autobench: Hugging Face token stored.' : 'Autobench: Hugging Face token cleared.');
  return true;
}
