// "Select Run Target" and "Set Hugging Face Token": where the Run lenses start servers, and the token they may pass them.
import * as vscode from 'vscode';
import { sshConfigHosts } from '../runner';
import { HF_TOKEN_KEY } from './run-inputs';
import { SETTINGS } from './settings-model';
import { readSettings, writeRunTarget } from './settings';

/** Picks sim, local or an ssh host (from the hosts setting and ~/.ssh/config) and stores it as the workspace's run target. */
export async function selectTarget(): Promise<string | undefined> {
  const { hosts, target: current } = readSettings().run;
  const items = [
    { label: 'sim', description: 'the simulated engine (no GPU; numbers are simulated)' },
    { label: 'local', description: 'this machine' },
    ...hosts.map((h) => ({ label: `ssh:${h}`, description: `over ssh (autobench.${SETTINGS.hosts.key})` })),
    ...sshConfigHosts()
      .filter((h) => !hosts.includes(h))
      .map((h) => ({ label: `ssh:${h}`, description: 'over ssh (~/.ssh/config)' })),
  ].map((i) => (i.label === current ? { ...i, detail: 'current target' } : i));
  const picked = await vscode.window.showQuickPick(items, { title: 'Autobench target', placeHolder: `Where runs start servers (now: ${current})` });
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
