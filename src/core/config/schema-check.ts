// JSON Schema checks (schemas/*.json, via ajv) reported as warnings on the offending YAML node,
// plus the schema lookups that hover and completion use.
import Ajv2020 from 'ajv/dist/2020';
import type { ErrorObject, ValidateFunction } from 'ajv';
import cookbookSchema from '../../../schemas/cookbook-config.schema.json';
import planSchema from '../../../schemas/run-plan.schema.json';
import resultRowSchema from '../../../schemas/result-row.schema.json';
import customWorkloadRowSchema from '../../../schemas/custom-workload-row.schema.json';
import { formatPath, type Finding } from './finding';
import { PyFloat, pyFloatRepr, toJson, type PyScalar } from '../py/value';
import { nearestNode, type DocNode, type Range, type YamlPath } from './yaml-doc';

export type ConfigSchemaKind = 'cookbook' | 'plan';
export type SchemaKind = ConfigSchemaKind | 'result-row' | 'custom-workload-row';
export type JsonSchema = Record<string, unknown>;

/** One schema violation in a JSON value, before it is placed in a document. */
export interface SchemaIssue {
  /** Where it is: keys and list indexes. */
  path: YamlPath;
  /** What to underline: the value at `path`, the key that holds it (unknown keys), or the mapping's key (missing keys). */
  target: 'value' | 'key' | 'mapping';
  message: string;
}

const SCHEMAS: Record<SchemaKind, JsonSchema> = {
  cookbook: cookbookSchema,
  plan: planSchema,
  'result-row': resultRowSchema,
  'custom-workload-row': customWorkloadRowSchema,
};
const BY_ID = new Map<string, JsonSchema>(Object.values(SCHEMAS).map((s) => [String(s.$id), s]));

/** Keywords that only editors read (VS Code's JSON/YAML services); ajv must accept them in strict mode. */
const EDITOR_KEYWORDS = ['enumDescriptions', 'markdownEnumDescriptions', 'markdownDescription', 'deprecationMessage', 'defaultSnippets'];

let ajv: Ajv2020 | undefined;
const validators = new Map<SchemaKind, ValidateFunction>();

function validatorFor(kind: SchemaKind): ValidateFunction {
  let v = validators.get(kind);
  if (v) return v;
  if (!ajv) {
    ajv = new Ajv2020({ allErrors: true, verbose: true, strict: true, allowUnionTypes: true });
    ajv.addVocabulary(EDITOR_KEYWORDS);
    for (const s of Object.values(SCHEMAS)) ajv.addSchema(s);
  }
  v = ajv.getSchema(String(SCHEMAS[kind].$id));
  if (!v) throw new Error(`schema ${kind} did not compile`);
  validators.set(kind, v);
  return v;
}

/** The raw schema object (descriptions, enums, defaults) for hover and completion. */
export function schemaFor(kind: SchemaKind): JsonSchema {
  return SCHEMAS[kind];
}

/** Checks a plain JSON value (a result row, a workload row, a converted config). */
export function validateJson(kind: SchemaKind, value: unknown): SchemaIssue[] {
  const validate = validatorFor(kind);
  if (validate(value)) return [];
  return issuesFromErrors(value, validate.errors ?? []);
}

/**
 * Schema findings for a parsed cookbook config or run plan. They are warnings: the playbook's
 * rules decide validity (and exit codes); the schema adds typing help on top.
 */
export function checkSchema(kind: ConfigSchemaKind, root: DocNode | undefined): Finding[] {
  if (!root) return [];
  const issues = validateJson(kind, toJson(root.value));
  const seen = new Set<string>();
  const out: Finding[] = [];
  for (const issue of issues) {
    const { path, range } = place(root, issue);
    const key = `${range[0]}:${range[1]}:${issue.message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ severity: 'warning', code: 'schema', message: issue.message, path, range });
  }
  // Stable sort keeps ajv's order for findings that start at the same place.
  return out.sort((a, b) => a.range[0] - b.range[0]);
}

/** The schema's description of the value at a YAML path (for hover), if the schema knows it. */
export function describePath(kind: SchemaKind, path: YamlPath): string | undefined {
  let loc: Loc | undefined = { schema: SCHEMAS[kind], base: String(SCHEMAS[kind].$id) };
  for (const seg of path) {
    loc = child(loc, seg);
    if (!loc) return undefined;
  }
  for (const l of refChain(loc)) if (typeof l.schema.description === 'string') return l.schema.description;
  return undefined;
}

export interface SchemaKey {
  name: string;
  description?: string;
  deprecated?: boolean;
  /** Closed set of values, when the schema has one. */
  values?: unknown[];
  /** The JSON types the value may take. */
  types: string[];
}

function locAt(kind: SchemaKind, path: YamlPath): Loc | undefined {
  let loc: Loc | undefined = { schema: SCHEMAS[kind], base: String(SCHEMAS[kind].$id) };
  for (const seg of path) {
    loc = child(loc, seg);
    if (!loc) return undefined;
  }
  return loc;
}

function keyInfo(name: string, loc: Loc): SchemaKey {
  const out: SchemaKey = { name, types: [] };
  for (const { schema } of refChain(loc)) {
    if (out.description === undefined && typeof schema.description === 'string') out.description = schema.description;
    if (schema.deprecated === true) out.deprecated = true;
    if (out.values === undefined && Array.isArray(schema.enum)) out.values = schema.enum as unknown[];
    if (out.values === undefined && 'const' in schema) out.values = [schema.const];
    if (schema.type !== undefined) out.types.push(...asTypes(schema.type));
    for (const alt of [schema.anyOf, schema.oneOf]) {
      if (!Array.isArray(alt)) continue;
      for (const b of alt) {
        if (!isSchema(b)) continue;
        for (const { schema: bs } of refChain({ schema: b, base: loc.base })) if (bs.type !== undefined) out.types.push(...asTypes(bs.type));
      }
    }
  }
  out.types = [...new Set(out.types)];
  return out;
}

/** The keys the schema names for the mapping at a YAML path (for completion), in schema order. */
export function schemaKeysAt(kind: SchemaKind, path: YamlPath): SchemaKey[] {
  const loc = locAt(kind, path);
  if (!loc) return [];
  const out = new Map<string, SchemaKey>();
  for (const l of applicable(loc)) {
    const props = l.schema.properties;
    if (!isSchema(props)) continue;
    for (const [name, sub] of Object.entries(props)) {
      if (!out.has(name) && isSchema(sub)) out.set(name, keyInfo(name, { schema: sub, base: l.base }));
    }
  }
  return [...out.values()];
}

/** What the schema says of the value at a YAML path (description, enum, types), if it knows it. */
export function schemaValueAt(kind: SchemaKind, path: YamlPath): SchemaKey | undefined {
  const loc = locAt(kind, path);
  const last = path[path.length - 1];
  return loc ? keyInfo(typeof last === 'string' ? last : '', loc) : undefined;
}

// ---- turning ajv errors into readable issues ----

function issuesFromErrors(data: unknown, errors: ErrorObject[]): SchemaIssue[] {
  const dropped = new Set<ErrorObject>();
  // anyOf reports every branch's failure; keep the one branch whose shape fits the value, or summarise.
  for (const e of errors) {
    if (e.keyword !== 'anyOf' && e.keyword !== 'oneOf') continue;
    const branches = Array.isArray(e.schema) ? (e.schema as unknown[]) : [];
    const base = baseOf(e.parentSchema ?? {});
    const fits = branches.map((b, i) => (isSchema(b) && shapeFits({ schema: b, base }, e.data) ? i : -1)).filter((i) => i >= 0);
    for (const other of errors) {
      if (other === e || !other.schemaPath.startsWith(`${e.schemaPath}/`) || !within(other.instancePath, e.instancePath)) continue;
      const branch = Number(other.schemaPath.slice(e.schemaPath.length + 1).split('/')[0]);
      if (fits.length !== 1 || branch !== fits[0]) dropped.add(other);
    }
    if (fits.length === 1) dropped.add(e);
  }
  const issues: SchemaIssue[] = [];
  const missing = new Map<string, SchemaIssue>();
  for (const e of errors) {
    if (dropped.has(e) || e.keyword === 'propertyNames') continue;
    const issue = toIssue(data, e);
    // One finding per mapping for all its missing keys, not one per key on the same spot.
    if (e.keyword === 'required') {
      const name = `'${String((e.params as Record<string, unknown>).missingProperty)}'`;
      const prev = missing.get(e.instancePath);
      if (prev) {
        prev.message = prev.message.replace(/missing required keys? (.*)$/, (_m, list: string) => `missing required keys ${list}, ${name}`);
        continue;
      }
      missing.set(e.instancePath, issue);
    }
    issues.push(issue);
  }
  return issues;
}

function within(path: string, parent: string): boolean {
  return path === parent || path.startsWith(`${parent}/`);
}

function toIssue(data: unknown, e: ErrorObject): SchemaIssue {
  const path = jsonPath(data, e.instancePath);
  const at = formatPath(path);
  const prefix = at ? `${at}: ` : '';
  const params = e.params as Record<string, unknown>;
  if (e.propertyName !== undefined) {
    const allowed = e.keyword === 'enum' ? `; expected one of ${listValues(params.allowedValues)}` : '';
    return { path: [...path, e.propertyName], target: 'key', message: `${prefix}unknown key '${e.propertyName}'${allowed}` };
  }
  switch (e.keyword) {
    case 'type':
      return { path, target: 'value', message: `${prefix}expected ${describeTypes(asTypes(params.type))}, got ${describeValue(e.data)}` };
    case 'enum':
      return { path, target: 'value', message: `${prefix}expected one of ${listValues(params.allowedValues)}; got ${describeValue(e.data)}` };
    case 'const':
      return { path, target: 'value', message: `${prefix}expected ${repr(params.allowedValue)}, got ${describeValue(e.data)}` };
    case 'required':
      return { path, target: 'mapping', message: `${prefix}missing required key '${String(params.missingProperty)}'` };
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const name = String(params.additionalProperty ?? params.unevaluatedProperty);
      const known = Object.keys(((e.parentSchema ?? {}) as JsonSchema).properties ?? {});
      const hint = known.length ? `; allowed keys are ${known.join(', ')}` : '';
      return { path: [...path, name], target: 'key', message: `${prefix}unknown key '${name}'${hint}` };
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return { path, target: 'value', message: `${prefix}must be ${String(params.comparison)} ${String(params.limit)}, got ${describeValue(e.data)}` };
    case 'minItems':
      return { path, target: 'value', message: `${prefix}expected at least ${plural(Number(params.limit), 'item')}` };
    case 'maxItems':
      return { path, target: 'value', message: `${prefix}expected at most ${plural(Number(params.limit), 'item')}` };
    case 'minLength':
      return { path, target: 'value', message: Number(params.limit) === 1 ? `${prefix}must not be empty` : `${prefix}must be at least ${plural(Number(params.limit), 'character')}` };
    case 'uniqueItems': {
      const i = Number(params.i);
      const item = Array.isArray(e.data) ? (e.data as unknown[])[i] : undefined;
      return { path: [...path, i], target: 'value', message: `${prefix}${describeValue(item)} is listed more than once` };
    }
    case 'anyOf':
    case 'oneOf': {
      const branches = Array.isArray(e.schema) ? (e.schema as unknown[]).filter(isSchema) : [];
      const parent = (e.parentSchema ?? {}) as JsonSchema;
      const what = branches.map((b) => describeSchema({ schema: b, base: baseOf(parent) }));
      return { path, target: 'value', message: `${prefix}expected ${joinOr(what)}, got ${describeValue(e.data)}` };
    }
    default:
      return { path, target: 'value', message: `${prefix}${e.message ?? 'does not match the schema'}` };
  }
}

/** JSON pointer -> keys and indexes, using the data to tell list indexes from numeric-looking keys. */
function jsonPath(data: unknown, pointer: string): YamlPath {
  if (!pointer) return [];
  const path: YamlPath = [];
  let cur: unknown = data;
  for (const raw of pointer.slice(1).split('/')) {
    const seg = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(cur) && /^\d+$/.test(seg)) {
      path.push(Number(seg));
      cur = (cur as unknown[])[Number(seg)];
    } else {
      path.push(seg);
      cur = cur && typeof cur === 'object' ? (cur as Record<string, unknown>)[seg] : undefined;
    }
  }
  return path;
}

// ---- placing issues in the YAML document ----

/** How toJson spells a mapping key; schema paths carry it, the document holds the original key. */
function jsonKey(k: PyScalar): string {
  return k instanceof PyFloat ? pyFloatRepr(k.value) : String(k);
}

/** Rewrites path keys to the document's own keys (a YAML key `1` is the number 1, JSON says "1"). */
function documentPath(root: DocNode, path: YamlPath): YamlPath {
  const out: YamlPath = [];
  let cur: DocNode | undefined = root;
  for (const seg of path) {
    if (cur?.kind === 'map') {
      const entry: NonNullable<DocNode['entries']>[number] | undefined = cur.entries?.find((e) => jsonKey(e.key) === String(seg));
      const k = entry?.key;
      out.push(typeof k === 'string' || typeof k === 'number' ? k : String(seg));
      cur = entry?.node;
    } else {
      out.push(seg);
      cur = cur?.kind === 'seq' && typeof seg === 'number' ? cur.items?.[seg] : undefined;
    }
  }
  return out;
}

function place(root: DocNode, issue: SchemaIssue): { path: YamlPath; range: Range } {
  const path = documentPath(root, issue.path);
  const { node, depth } = nearestNode(root, path);
  const target = node ?? root;
  if (depth === path.length) {
    if (issue.target === 'key' && target.keyRange) return { path, range: target.keyRange };
    // A missing key is reported on its mapping: underline the mapping's own key, or its first key.
    if (issue.target === 'mapping') {
      return { path, range: target.keyRange ?? target.entries?.[0]?.keyRange ?? target.range };
    }
    return { path, range: target.range };
  }
  return { path, range: target.keyRange ?? target.range };
}

// ---- schema walking (shared by describePath and the anyOf summary) ----

interface Loc {
  schema: JsonSchema;
  /** $id of the file the schema sits in; $refs resolve against it. */
  base: string;
}

function isSchema(v: unknown): v is JsonSchema {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function baseOf(schema: JsonSchema): string {
  // ajv hands out the resolved subschema objects, so find the file that contains it.
  for (const [id, doc] of BY_ID) if (contains(doc, schema)) return id;
  return '';
}

function contains(doc: unknown, target: unknown): boolean {
  if (doc === target) return true;
  if (typeof doc !== 'object' || doc === null) return false;
  return Object.values(doc).some((v) => contains(v, target));
}

function resolveRef(loc: Loc): Loc | undefined {
  const ref = loc.schema.$ref;
  if (typeof ref !== 'string') return undefined;
  let url: URL;
  try {
    url = new URL(ref, loc.base || String(SCHEMAS.cookbook.$id));
  } catch {
    return undefined;
  }
  const pointer = decodeURIComponent(url.hash.replace(/^#/, ''));
  url.hash = '';
  const docId = url.toString();
  let cur: unknown = BY_ID.get(docId);
  for (const raw of pointer.split('/').slice(1)) {
    if (!isSchema(cur)) return undefined;
    cur = cur[raw.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return isSchema(cur) ? { schema: cur, base: docId } : undefined;
}

/** The schema and everything its $ref chain points to, nearest first. */
function refChain(loc: Loc): Loc[] {
  const chain = [loc];
  let cur: Loc | undefined = loc;
  while (chain.length < 16 && (cur = resolveRef(cur))) chain.push(cur);
  return chain;
}

/** All subschemas that apply to the same value: the $ref chain plus anyOf/oneOf/allOf branches. */
function applicable(loc: Loc): Loc[] {
  const out: Loc[] = [];
  for (const l of refChain(loc)) {
    out.push(l);
    for (const kw of ['allOf', 'anyOf', 'oneOf']) {
      const branches = l.schema[kw];
      if (Array.isArray(branches)) for (const b of branches) if (isSchema(b)) out.push(...applicable({ schema: b, base: l.base }));
    }
  }
  return out;
}

function child(loc: Loc, seg: string | number): Loc | undefined {
  const all = applicable(loc);
  for (const l of all) {
    if (typeof seg === 'number') {
      if (isSchema(l.schema.items)) return { schema: l.schema.items, base: l.base };
      continue;
    }
    const props = l.schema.properties;
    if (isSchema(props) && isSchema(props[seg])) return { schema: props[seg], base: l.base };
  }
  for (const l of all) {
    const pattern = l.schema.patternProperties;
    if (typeof seg === 'string' && isSchema(pattern)) {
      for (const [re, s] of Object.entries(pattern)) if (new RegExp(re, 'u').test(seg) && isSchema(s)) return { schema: s, base: l.base };
    }
  }
  for (const l of all) if (typeof seg === 'string' && isSchema(l.schema.additionalProperties)) return { schema: l.schema.additionalProperties, base: l.base };
  return undefined;
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** Whether a value has the kind of thing a (sub)schema asks for, ignoring finer constraints. */
function shapeFits(loc: Loc, v: unknown): boolean {
  return refChain(loc).every(({ schema }) => {
    if ('const' in schema && JSON.stringify(schema.const) !== JSON.stringify(v)) return false;
    if (Array.isArray(schema.enum) && !schema.enum.some((x) => JSON.stringify(x) === JSON.stringify(v))) return false;
    if (schema.type !== undefined) {
      const t = jsonType(v);
      const types = asTypes(schema.type);
      if (!types.includes(t) && !(t === 'integer' && types.includes('number'))) return false;
    }
    return true;
  });
}

function describeSchema(loc: Loc): string {
  const parts: string[] = [];
  for (const { schema } of refChain(loc)) {
    if ('const' in schema) return repr(schema.const);
    if (Array.isArray(schema.enum)) return `one of ${listValues(schema.enum)}`;
    if (schema.type !== undefined && parts.length === 0) {
      parts.push(describeTypes(asTypes(schema.type)));
      if (typeof schema.exclusiveMinimum === 'number') parts.push(`> ${schema.exclusiveMinimum}`);
      else if (typeof schema.minimum === 'number') parts.push(`>= ${schema.minimum}`);
    }
  }
  return parts.join(' ') || 'a valid value';
}

// ---- wording ----

const TYPE_WORDS: Record<string, string> = {
  integer: 'an integer',
  number: 'a number',
  string: 'a string',
  boolean: 'true or false',
  array: 'a list',
  object: 'a mapping',
  null: 'null',
};

function asTypes(t: unknown): string[] {
  return Array.isArray(t) ? t.map(String) : [String(t)];
}

function describeTypes(types: string[]): string {
  if (types.length === 1 && types[0] === 'boolean') return 'true or false';
  return joinOr(types.map((t) => (t === 'boolean' ? 'a boolean' : (TYPE_WORDS[t] ?? t))));
}

function joinOr(words: string[]): string {
  if (words.length <= 1) return words[0] ?? '';
  return `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
}

function repr(v: unknown): string {
  if (typeof v === 'number' && !Number.isFinite(v)) return Number.isNaN(v) ? '.nan' : v > 0 ? '.inf' : '-.inf';
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 60 ? `${s.slice(0, 57)}...` : s;
}

function describeValue(v: unknown): string {
  if (Array.isArray(v)) return 'a list';
  if (typeof v === 'object' && v !== null) return 'a mapping';
  return repr(v);
}

function listValues(values: unknown): string {
  return Array.isArray(values) ? values.map((v) => (typeof v === 'string' ? v : repr(v))).join(', ') : '';
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
