// Turns a parsed help catalog into the FlagSpec table the validator and renderer use, and looks flags up in it.
import type { FlagSpec, FrameworkKey } from '../frameworks/types';
import { saysOnByDefault } from './description';
import type { FlagCatalog, HelpOption } from './types';

/** `--tp-size` -> `tp_size` (sglang, vllm, tokenspeed); TensorRT-LLM click names stay as printed. */
export function optionToKey(option: string, framework: FrameworkKey): string {
  const bare = option.replace(/^--/, '');
  return framework === 'tensorrt_llm' ? bare : bare.replace(/-/g, '_');
}

function normalise(key: string): string {
  return key.replace(/^--/, '').replace(/-/g, '_');
}

function firstSentence(text: string): string {
  const cut = text.lastIndexOf('(default: ');
  const body = (cut >= 0 && text.endsWith(')') ? text.slice(0, cut) : text).slice(0, 1000);
  const m = /[.!?](\s|$)/.exec(body);
  const s = (m ? body.slice(0, m.index + 1) : body).trim();
  return s.length > 240 ? `${s.slice(0, 237)}...` : s;
}

/** `--enable-x` / `--x` partner of `--disable-x`, when the catalog lists one. */
function positiveNames(disable: string): string[] {
  const base = disable.slice('--disable-'.length);
  return [`--enable-${base}`, `--${base}`];
}

/**
 * Default-on facts, only when the text makes them plain:
 * - a `--x, --no-x` pair whose printed default is True, or None (the engine decides, and for
 *   vLLM that is usually "on", e.g. prefix caching), or whose help says it is on by default;
 * - an `--enable-x`/`--x` option with a separate `--disable-x`, when its help says on by default.
 * A pair always gets its `--no-x` as disableForm, since that is the exact "off" spelling.
 */
function disableFacts(o: HelpOption, disableOptions: Map<string, string>): Pick<FlagSpec, 'defaultOn' | 'disableForm'> {
  const text = o.description;
  const neg = o.negations[0];
  if (neg !== undefined) {
    const on = o.default === 'True' || o.default === 'None' || (o.default !== 'False' && saysOnByDefault(text));
    return on ? { defaultOn: true, disableForm: neg } : { disableForm: neg };
  }
  if (o.takesValue) return {};
  const disable = o.names.map((n) => disableOptions.get(n)).find((d) => d !== undefined);
  if (disable !== undefined && (o.default === 'True' || saysOnByDefault(text))) return { defaultOn: true, disableForm: disable };
  return {};
}

export function catalogToFlagSpecs(catalog: FlagCatalog, framework: FrameworkKey): FlagSpec[] {
  const disableOptions = new Map<string, string>();
  for (const o of catalog.options) {
    for (const n of o.names) {
      if (!n.startsWith('--disable-') || o.takesValue) continue;
      for (const p of positiveNames(n)) disableOptions.set(p, n);
    }
  }
  const specs: FlagSpec[] = [];
  const seen = new Set<string>();
  for (const o of catalog.options) {
    const long = o.names.filter((n) => n.startsWith('--'));
    const first = long[0];
    if (first === undefined) continue;
    const key = optionToKey(first, framework);
    if (seen.has(key)) continue;
    seen.add(key);
    const spec: FlagSpec = { key, kind: o.valueKind };
    const aliases = [...new Set(long.slice(1).map((n) => optionToKey(n, framework)))].filter((a) => a !== key);
    if (aliases.length) spec.aliases = aliases;
    if (o.choices) spec.choices = [...o.choices];
    if (o.default !== undefined) spec.default = o.default;
    if (o.description) spec.help = firstSentence(o.description);
    if (o.deprecated) spec.deprecated = true;
    Object.assign(spec, disableFacts(o, disableOptions));
    specs.push(spec);
  }
  return specs;
}

/**
 * The spec a config key means: exact key first, then aliases, then either `_`/`-` spelling
 * (accepted for every framework, TensorRT-LLM included). A leading `--` is ignored.
 */
export function lookupFlag(specs: FlagSpec[], key: string, framework: FrameworkKey): FlagSpec | undefined {
  const bare = key.replace(/^--/, '');
  const exact = optionToKey(`--${bare}`, framework);
  const hit =
    specs.find((s) => s.key === exact) ??
    specs.find((s) => s.aliases?.includes(exact));
  if (hit) return hit;
  const n = normalise(bare);
  return specs.find((s) => normalise(s.key) === n || (s.aliases ?? []).some((a) => normalise(a) === n));
}
