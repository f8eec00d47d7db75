// Facts read from an option's help text: printed default, click tags, deprecation, "on by default".

export interface DescriptionFacts {
  description: string;
  default?: string;
  tags?: string[];
  deprecated: boolean;
}

const TAG = /:tag:`([^`]*)`\s*/;

/** The `(default: X)` argparse/vLLM suffix or click's `[default: X]`; X may itself hold brackets. */
function printedDefault(text: string): string | undefined {
  const trimmed = text.trimEnd();
  for (const [open, close] of [['(default: ', ')'], ['[default: ', ']']] as const) {
    if (!trimmed.endsWith(close)) continue;
    const at = trimmed.lastIndexOf(open);
    if (at >= 0) return trimmed.slice(at + open.length, trimmed.length - close.length).trim();
  }
  return undefined;
}

/**
 * Says deprecated only when the text says so about this option itself: a leading `[DEPRECATED]`,
 * `(Deprecated)`, `Deprecated:`, or "this option/<own name> is deprecated". Mentions of other
 * deprecated things ("Enable deprecated Prometheus metrics") do not count.
 */
function isDeprecated(text: string, names: string[]): boolean {
  if (/^[[(]?deprecated\b/i.test(text)) return true;
  if (/\bthis (option|parameter|argument|arg|flag|config|setting) is (now )?deprecated\b/i.test(text)) return true;
  for (const m of text.matchAll(/(?<![-\w.])(--?\w[-\w.]*)['`]? is (?:now )?deprecated\b/gi)) {
    if (m[1] !== undefined && names.includes(m[1])) return true;
  }
  return false;
}

export function readDescription(raw: string, names: string[]): DescriptionFacts {
  const collapsed = raw.replace(/\s+/g, ' ').trim();
  const tags: string[] = [];
  // Tags only lead the text; a sticky regex walks them without re-slicing the string each time.
  const tag = new RegExp(TAG.source, 'y');
  let at = 0;
  for (let m = tag.exec(collapsed); m; m = tag.exec(collapsed)) {
    if (m[1]) tags.push(m[1]);
    at = tag.lastIndex;
  }
  const text = collapsed.slice(at);
  const facts: DescriptionFacts = { description: text, deprecated: isDeprecated(text, names) };
  const dflt = printedDefault(text);
  if (dflt !== undefined) facts.default = dflt;
  if (tags.length) facts.tags = tags;
  return facts;
}

/** True when the help text plainly says the feature is on unless turned off. */
export function saysOnByDefault(text: string): boolean {
  return /\b(enabled|on) by default\b/i.test(text) || /\bdefault(s)?( is|:| to| =)? (true|on|enabled)\b/i.test(text);
}
