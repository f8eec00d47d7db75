// Recognises and redacts token-shaped strings (HF tokens, API keys, *_TOKEN=...) before text is saved or shown.

interface SecretPattern {
  name: string;
  re: RegExp;
}

// Shapes, not exact formats: a false positive costs a redacted word, a miss leaks a credential.
const PATTERNS: SecretPattern[] = [
  { name: 'Hugging Face token', re: /\bhf_[A-Za-z0-9]{16,}\b/g },
  { name: 'API key', re: /\bsk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}/g },
  { name: 'GitHub token', re: /\bgh[pousr]_[A-Za-z0-9]{20,}\b/g },
  { name: 'bearer token', re: /\b[Bb]earer\s+[A-Za-z0-9._~+/-]{16,}=*/g },
  {
    name: 'secret assignment',
    re: /\b([A-Z0-9_]*(?:TOKEN|API_KEY|SECRET|PASSWORD)[A-Z0-9_]*)=(?!\s|$)("[^"]*"|'[^']*'|\S+)/g,
  },
];

export interface SecretHit {
  kind: string;
  start: number;
  end: number;
}

/** Where token-shaped strings occur in a text. */
export function findSecrets(text: string): SecretHit[] {
  const hits: SecretHit[] = [];
  for (const p of PATTERNS) {
    p.re.lastIndex = 0;
    for (let m = p.re.exec(text); m; m = p.re.exec(text)) {
      hits.push({ kind: p.name, start: m.index, end: m.index + m[0].length });
    }
  }
  return hits.sort((a, b) => a.start - b.start);
}

export function looksSecret(text: string): SecretHit | undefined {
  return findSecrets(text)[0];
}

/** The text with every token-shaped string replaced; `NAME=value` keeps its name. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const p of PATTERNS) {
    p.re.lastIndex = 0;
    out = out.replace(p.re, (whole: string, name?: string) =>
      p.name === 'secret assignment' && name ? `${name}=<redacted>` : '<redacted>',
    );
  }
  return out;
}
