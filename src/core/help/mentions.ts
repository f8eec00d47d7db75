// The flags a `--help-dir` folder names anywhere, as the playbook's validator collects them: every `--name` in every
// `*.txt` whose file name holds the framework's words, option line or not (a notes file beside the captures counts).
import { basename } from 'node:path';
import type { FrameworkKey } from '../frameworks/types';
import { listTxtFiles } from './discover';
import { readHelpFile } from './snapshots';

/** The words a file name must all contain (lower-cased) to count for a framework: the validator's HELP_FILE_HINTS. */
const NAME_WORDS: Record<FrameworkKey, readonly string[]> = {
  sglang: ['sglang', 'launch'],
  vllm: ['vllm', 'serve'],
  tensorrt_llm: ['trtllm', 'serve'],
  tokenspeed: ['tokenspeed', 'serve'],
};

const FLAG_RE = /--[A-Za-z0-9][A-Za-z0-9_-]*/g;

/** Per framework, each flag name (no dashes in front) named in its files, with the first file that names it. */
export type FlagMentions = Map<FrameworkKey, Map<string, string>>;

export function flagMentions(dir: string): FlagMentions {
  const out: FlagMentions = new Map();
  for (const path of listTxtFiles(dir)) {
    const name = basename(path).toLowerCase();
    const fws = (Object.keys(NAME_WORDS) as FrameworkKey[]).filter((fw) => NAME_WORDS[fw].every((w) => name.includes(w)));
    if (fws.length === 0) continue;
    let text: string;
    try {
      text = readHelpFile(path);
    } catch {
      continue;
    }
    for (const fw of fws) {
      const names = out.get(fw) ?? new Map<string, string>();
      for (const m of text.matchAll(FLAG_RE)) {
        const flag = m[0].replace(/^-+/, '');
        if (!names.has(flag)) names.set(flag, path);
      }
      if (names.size) out.set(fw, names);
    }
  }
  return out;
}
