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

/**
 * Values named as secrets, whatever their shape: a command-line option whose name has an `api-key`, `token`,
 * `secret`, `password` or `auth` part (`--api-key K`, `--hf-token=K`; not `--tokenizer`, `--max-tokens`), and a
 * header whose name ends in one (`X-Api-Key: K`, `X-Api-Key=K`, `Authorization: Basic K`). A value that says there
 * is none (`none`, `null`, `false`, …) stays: a log's `token=none` is no secret.
 */
/** A name part that says the value is a secret, and the words of a value that says there is none. */
const SECRET_PART = '(?:api[-_]key|token|secret|password|authorization|auth)';
const NONE_WORDS = 'none|null|nil|false|true';
const NOT_NONE = `(?!(?:${NONE_WORDS})\\b|<redacted>)`;

const NAMED: RegExp[] = [
  new RegExp(`(--(?:[A-Za-z0-9]+[-_])*${SECRET_PART}(?:[-_][A-Za-z0-9]+)*)(=|\\s+)(?!--)${NOT_NONE}("[^"]*"|'[^']*'|[^\\s'"]+)`, 'gi'),
  new RegExp(`(\\b(?:[A-Za-z0-9]+-)*${SECRET_PART})(\\s*[:=]\\s*)${NOT_NONE}("[^"]*"|'[^']*'|(?:(?:Basic|Bearer)\\s+)?[^\\s'",}]+)`, 'gi'),
];

/** The text with every token-shaped string, and every value named as a secret, replaced; a name keeps its name. */
export function redactSecrets(text: string): string {
  let out = text;
  for (const re of NAMED) out = out.replace(re, (_whole: string, name: string, sep: string) => `${name}${sep}<redacted>`);
  for (const p of PATTERNS) {
    p.re.lastIndex = 0;
    out = out.replace(p.re, (whole: string, name?: string) =>
      p.name === 'secret assignment' && name ? `${name}=<redacted>` : '<redacted>',
    );
  }
  return out;
}

/** A value that says there is no secret. */
const NONE = new RegExp(`^(?:${NONE_WORDS})$`, 'i');

/** An option or header name that says its value is a secret (`--api-key`, `--hf-token`, `X-Api-Key`, `Authorization`). */
const SECRET_NAME = new RegExp(`^(?:--)?(?:[A-Za-z0-9]+[-_])*${SECRET_PART}(?:[-_][A-Za-z0-9]+)*$`, 'i');

/**
 * An argv with every value named as a secret replaced whole, whatever it holds (spaces and quotes included): the
 * word after `--api-key`, the rest of `--hf-token=…`, `X-Api-Key=…` or `Authorization: …`; then by shape.
 */
export function redactArgv(argv: readonly string[]): string[] {
  return argv.map((a, i) => {
    const prev = argv[i - 1];
    if (prev !== undefined && prev.startsWith('--') && !prev.includes('=') && SECRET_NAME.test(prev) && !a.startsWith('--')) return '<redacted>';
    const m = /^([^=:\s]+)(\s*[=:]\s*)([\s\S]*)$/.exec(a);
    if (m && SECRET_NAME.test(m[1] ?? '') && m[3] && !NONE.test(m[3])) return `${m[1]}${m[2]}<redacted>`;
    return redactSecrets(a);
  });
}

/** A `key: value` whose key says it holds a secret (`api_key`, `hf_token`) and whose value is one (not `none`, not empty). */
export function secretNamedValue(key: string, value: string): boolean {
  return SECRET_NAME.test(key) && value.trim() !== '' && !NONE.test(value.trim());
}

/** An environment variable whose name says it holds a secret (HF_TOKEN, OPENAI_API_KEY, DB_PASSWORD): a child process gets it only by name, never by inheritance. */
const SECRET_VARIABLE = /TOKEN|API_KEY|SECRET|PASSWORD|PASSWD|CREDENTIAL/i;

export function looksLikeSecretName(name: string): boolean {
  return SECRET_VARIABLE.test(name);
}
