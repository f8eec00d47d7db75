// What the editor needs from where servers run: the ssh hosts one can pick, and the secret and host-key types a run takes.
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import * as path from 'node:path';
import { splitConfigLine } from '../exec/ssh-config';

export { processEnvSecrets } from '../exec';
export type { HostKeyPrompt, SecretSource } from '../exec';

export interface SshConfigHostsOptions {
  /** Config text instead of ~/.ssh/config (tests). */
  text?: string;
  /** Default the user's home. */
  home?: string;
}

/** The concrete `Host` names of ~/.ssh/config (patterns with wildcards or negation are not hosts one can pick), each once. */
export function sshConfigHosts(opts: SshConfigHostsOptions = {}): string[] {
  let text = opts.text;
  if (text === undefined) {
    try {
      text = readFileSync(path.join(opts.home ?? homedir(), '.ssh', 'config'), 'utf8');
    } catch {
      return [];
    }
  }
  const out: string[] = [];
  for (const raw of text.split('\n')) {
    const line = splitConfigLine(raw);
    if (line?.key === 'host') out.push(...line.args.filter((h) => !/[*?!]/.test(h)));
  }
  return [...new Set(out)];
}
