// The playbook validator's per-framework rules: enabled, section shape, unknown flags, TensorRT-LLM's backend, then sequence limits.
import { FRAMEWORKS, type FrameworkKey } from '../frameworks/types';
import { builtinFlag, frameworkSpec } from '../frameworks';
import { shlexSplit, ShellSyntaxError } from '../candidates/shell';
import type { FindingSink } from './context';
import { findFlag, knownFlagsFor, mentionOf, suggestFlags, type SnapshotFlags } from './known-flags';
import type { ConfigKind, FrameworkSection, PlaybookModel } from './model';
import { isPyMap, pyRepr, type PyMap, type PyValue } from '../py/value';
import type { YamlPath } from './yaml-doc';
import { appendEntryEdit, removeEntryEdit } from './edits';
import { checkSequenceLimits, type LimitSection } from './sequence-rules';
import { checkDisaggregation } from './disagg-rules';

function frameworkSet(root: PyMap): Set<string> | undefined {
  const bench = root.get('benchmark');
  const set = isPyMap(bench) ? bench.get('framework_set') : undefined;
  return Array.isArray(set) ? new Set(set.filter((x): x is string => typeof x === 'string')) : undefined;
}

/**
 * `enabled` as the section says it, or undefined after reporting why it cannot be read. The
 * reference reads a missing `enabled` as false (the framework is neither checked nor run); a
 * runtime plan, which picks frameworks with `benchmark.framework_set`, reads it as true.
 */
function readEnabled(sink: FindingSink, fw: FrameworkKey, section: PyMap, kind: ConfigKind, text: string): boolean | undefined {
  const at: YamlPath = ['frameworks', fw];
  if (!section.has('enabled')) {
    if (kind === 'plan') return true;
    const edit = appendEntryEdit(sink, at, 'enabled: true', text);
    sink.warn('enabled-missing', `${fw}: no 'enabled' key, so this framework is disabled: it is not checked and not run; add enabled: true to run it`, at, {
      onKey: true,
      ...(edit ? { fixes: [{ title: 'Add enabled: true', edits: [edit] }] } : {}),
    });
    return false;
  }
  const raw = section.get('enabled');
  if (typeof raw === 'boolean') return raw;
  sink.error('enabled-bool', `${fw}: enabled must be true or false, got ${pyRepr(raw ?? null)}`, [...at, 'enabled']);
  return undefined;
}

function excludedBy(section: PyMap, enabled: boolean, bySet: boolean): FrameworkSection['excludedBy'] {
  if (!enabled) return section.has('enabled') ? 'enabled-false' : 'enabled-missing';
  return bySet ? 'framework-set' : undefined;
}

function newSection(fw: FrameworkKey, section: PyMap, enabled: boolean, bySet: boolean, snapshots: SnapshotFlags | undefined): FrameworkSection {
  const sec: FrameworkSection = {
    framework: fw,
    enabled: enabled && !bySet,
    userExcluded: !enabled || bySet,
    usable: false,
    serverCommand: frameworkSpec(fw).defaultServerCommand,
    base: new Map(),
    searchSpace: new Map(),
    known: knownFlagsFor(fw, snapshots),
  };
  const why = excludedBy(section, enabled, bySet);
  if (why) sec.excludedBy = why;
  return sec;
}

export function checkFrameworks(sink: FindingSink, root: PyMap, model: PlaybookModel, snapshots: SnapshotFlags | undefined, text: string): void {
  const fws = root.get('frameworks');
  if (!isPyMap(fws)) {
    sink.error('frameworks-mapping', 'frameworks must be a mapping', ['frameworks']);
    return;
  }
  const chosen = frameworkSet(root);
  const checked: LimitSection[] = [];
  for (const fw of FRAMEWORKS) {
    if (!fws.has(fw)) {
      sink.error('missing-framework', `missing frameworks.${fw}`, ['frameworks']);
      continue;
    }
    const section = fws.get(fw);
    if (!isPyMap(section)) {
      sink.error('framework-mapping', `${fw}: section must be a mapping with at least 'enabled: true' or 'enabled: false'`, ['frameworks', fw]);
      continue;
    }
    const enabled = readEnabled(sink, fw, section, model.kind, text);
    if (enabled === undefined) continue;
    const sec = newSection(fw, section, enabled, chosen !== undefined && !chosen.has(fw), snapshots);
    model.frameworks.push(sec);
    if (!sec.enabled) continue;
    checkEnabledFramework(sink, fw, section, sec, model, text);
    checked.push({ framework: fw, section });
  }
  // The reference checks sequence limits in a second loop, after every framework's other checks.
  checkSequenceLimits(sink, checked, model.requiredLength, text);
}

/** The section's shape: its two flag mappings and its command; false when candidates cannot be built. */
function checkShape(sink: FindingSink, fw: FrameworkKey, section: PyMap, sec: FrameworkSection, kind: ConfigKind): boolean {
  const at: YamlPath = ['frameworks', fw];
  let usable = true;
  const base = section.get('base_server_flags');
  if (!isPyMap(base)) {
    sink.error('base-flags-mapping', `${fw}: base_server_flags must be a mapping`, [...at, 'base_server_flags']);
    usable = false;
  } else sec.base = base;
  const space = section.has('search_space') || kind === 'cookbook' ? section.get('search_space') : new Map();
  if (!isPyMap(space)) {
    sink.error('search-space-mapping', `${fw}: search_space must be a mapping`, [...at, 'search_space']);
    usable = false;
  } else sec.searchSpace = space;
  return checkCommand(sink, fw, section.get('server_command'), sec, kind) && usable;
}

function checkCommand(sink: FindingSink, fw: FrameworkKey, cmd: PyValue | undefined, sec: FrameworkSection, kind: ConfigKind): boolean {
  const at: YamlPath = ['frameworks', fw, 'server_command'];
  // Runtime plans may name no command: the framework's usual entry point is used.
  if (kind === 'plan' && cmd === undefined) return true;
  if (typeof cmd !== 'string') {
    sink.error('server-command', `${fw}: server_command must be a string`, at);
    return false;
  }
  try {
    if (shlexSplit(cmd).length === 0) {
      sink.error('server-command-empty', `${fw}: server_command is empty; name the program that starts the server`, at);
      return false;
    }
  } catch (e) {
    const why = e instanceof ShellSyntaxError ? e.message : String(e);
    sink.error('server-command-syntax', `${fw}: server_command cannot be split like a shell command (${why}); check its quotes`, at);
    return false;
  }
  sec.serverCommand = cmd;
  return true;
}

function reportUnknownFlag(sink: FindingSink, fw: FrameworkKey, known: FrameworkSection['known'], path: YamlPath, key: string, text: string): void {
  const edit = removeEntryEdit(sink, path, text);
  const builtin = builtinFlag(fw, key);
  const sameFlag = builtin ? [builtin.key, ...(builtin.aliases ?? [])] : [];
  const keyRange = sink.rangeOf(path, true);
  const fixes = suggestFlags(known, key, sameFlag).map((s) => ({ title: `Replace with '${s}'`, edits: [{ range: keyRange, newText: s }] }));
  if (edit) fixes.push({ title: `Remove '${key}'`, edits: [edit] });
  sink.error('unknown-flag', `${fw}: unknown or unsupported server flag ${pyRepr(key)}`, path, { onKey: true, fixes });
}

/**
 * A key on no option line of the captures, but named elsewhere in a file the playbook's validator reads (a notes file,
 * prose): accepted as that validator accepts it, with a warning to check the flag exists in this CLI version.
 */
function reportMentionOnly(sink: FindingSink, fw: FrameworkKey, path: YamlPath, key: string, file: string): void {
  sink.warn('flag-mentioned-only', `${fw}: ${key} is on no option line of the captured --help; ${file.split(/[\\/]/).pop() ?? file} names it, so it is accepted (as the playbook's validator does): check that this CLI version has the flag`, path, { onKey: true });
}

/** Unknown flags: every distinct key of base then search, in document order; false when a key is not a string. */
function checkFlagNames(sink: FindingSink, fw: FrameworkKey, sec: FrameworkSection, text: string): boolean {
  const at: YamlPath = ['frameworks', fw];
  const known = sec.known;
  let usable = true;
  const seen = new Set<string>();
  if (known.groupedSummaryOnly) {
    sink.error(
      'snapshot-grouped',
      `${fw}: the snapshot ${known.files.join(', ')} is vLLM's grouped help summary and lists no flags; capture \`vllm serve --help=all\``,
      at,
      { onKey: true },
    );
  }
  for (const [where, m] of [['base_server_flags', sec.base], ['search_space', sec.searchSpace]] as const) {
    for (const key of m.keys()) {
      if (typeof key !== 'string') {
        sink.error('flag-key-string', `${fw}: flag name ${pyRepr(key)} in ${where} must be a string`, [...at, where], { onKey: true });
        usable = false;
        continue;
      }
      if (seen.has(key)) continue;
      seen.add(key);
      if (known.groupedSummaryOnly || findFlag(known, key)) continue;
      const mention = mentionOf(known, key);
      if (mention) reportMentionOnly(sink, fw, [...at, where, key], key, mention);
      else reportUnknownFlag(sink, fw, known, [...at, where, key], key, text);
    }
  }
  return usable;
}

/**
 * The playbook's TensorRT-LLM backend rules. In a cookbook config they are errors, as the playbook's validator has
 * them; in a run plan an engine backend is what the runner skips as unsupported (the demo plan shows that skip), so
 * there it is a warning that says so.
 */
function checkTrtBackend(sink: FindingSink, section: PyMap, sec: FrameworkSection, text: string, kind: ConfigKind): void {
  const at: YamlPath = ['frameworks', 'tensorrt_llm'];
  if (section.get('backend_policy') !== 'fixed_pytorch') {
    const edit = section.has('backend_policy')
      ? { range: sink.rangeOf([...at, 'backend_policy']), newText: 'fixed_pytorch' }
      : appendEntryEdit(sink, at, 'backend_policy: fixed_pytorch', text);
    sink.error('trt-backend-policy', 'tensorrt_llm: backend_policy must be fixed_pytorch', [...at, 'backend_policy'], {
      ...(edit ? { fixes: [{ title: 'Set backend_policy to fixed_pytorch', edits: [edit] }] } : {}),
    });
  }
  if (sec.base.has('backend') && sec.base.get('backend') !== 'pytorch') {
    const p: YamlPath = [...at, 'base_server_flags', 'backend'];
    const fixes = [{ title: 'Set the TensorRT-LLM backend to pytorch', edits: [{ range: sink.rangeOf(p), newText: 'pytorch' }] }];
    const given = sec.base.get('backend');
    const which = typeof given === 'string' ? `backend ${given}` : 'this backend';
    if (kind === 'plan') sink.warn('trt-base-backend', `tensorrt_llm: ${which} is not supported (the PyTorch backend only): a run skips TensorRT-LLM as unsupported; set it to pytorch to measure it`, p, { fixes });
    else sink.error('trt-base-backend', 'tensorrt_llm: base backend must be pytorch', p, { fixes });
  }
  if (sec.searchSpace.has('backend')) {
    sink.error('trt-backend-searched', 'tensorrt_llm: backend must not appear in search_space', [...at, 'search_space', 'backend'], { onKey: true });
  }
}

function checkEnabledFramework(sink: FindingSink, fw: FrameworkKey, section: PyMap, sec: FrameworkSection, model: PlaybookModel, text: string): void {
  const shapeOk = checkShape(sink, fw, section, sec, model.kind);
  const namesOk = checkFlagNames(sink, fw, sec, text);
  if (fw === 'tensorrt_llm') checkTrtBackend(sink, section, sec, text, model.kind);
  sec.usable = shapeOk && namesOk;
  checkDisaggregation(sink, fw, section, sec);
}
