// Reads the repository's TypeScript sources with the compiler API: import edges, import cycles and function lengths.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const REPO = resolve(__dirname, '..', '..');

export function sourceFiles(...roots: string[]): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(p);
    }
  };
  for (const r of roots) walk(join(REPO, r));
  return out;
}

export const rel = (p: string): string => relative(REPO, p).split('\\').join('/');

function parse(file: string): ts.SourceFile {
  return ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
}

function resolveSpec(from: string, spec: string, known: Set<string>): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec);
  for (const c of [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) if (known.has(c)) return c;
  return undefined;
}

/** Value imports and re-exports between the given files; `import type` is an edge too unless typeOnly is false. */
export function importGraph(files: string[], opts: { includeTypeOnly?: boolean } = {}): Map<string, Set<string>> {
  const known = new Set(files);
  const graph = new Map<string, Set<string>>();
  for (const f of files) {
    const edges = new Set<string>();
    const sf = parse(f);
    for (const st of sf.statements) {
      let spec: string | undefined;
      let typeOnly = false;
      if (ts.isImportDeclaration(st) && ts.isStringLiteral(st.moduleSpecifier)) {
        spec = st.moduleSpecifier.text;
        const clause = st.importClause;
        typeOnly = Boolean(clause?.isTypeOnly) || Boolean(clause && !clause.name && clause.namedBindings && ts.isNamedImports(clause.namedBindings) && clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly));
      } else if (ts.isExportDeclaration(st) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) {
        spec = st.moduleSpecifier.text;
        typeOnly = st.isTypeOnly;
      }
      if (spec === undefined || (typeOnly && opts.includeTypeOnly === false)) continue;
      const to = resolveSpec(f, spec, known);
      if (to) edges.add(to);
    }
    graph.set(f, edges);
  }
  return graph;
}

/** Bare module specifiers (packages, node builtins) and relative ones, per file. */
export function importSpecifiers(file: string): string[] {
  const out: string[] = [];
  for (const st of parse(file).statements) {
    if ((ts.isImportDeclaration(st) || ts.isExportDeclaration(st)) && st.moduleSpecifier && ts.isStringLiteral(st.moduleSpecifier)) out.push(st.moduleSpecifier.text);
  }
  return out;
}

/** Strongly connected components with more than one file (Tarjan). */
export function cycles(graph: Map<string, Set<string>>): string[][] {
  let index = 0;
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const on = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v) as number, idx.get(w) as number));
    }
    if (low.get(v) === idx.get(v)) {
      const comp: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        on.delete(w);
        comp.push(w);
      } while (w !== v);
      if (comp.length > 1) out.push(comp.map(rel).sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

export interface FunctionSpan {
  file: string;
  name: string;
  line: number;
  lines: number;
}

/** Every function, method, arrow and accessor with its length in lines (its whole text, nested functions included). */
export function functionSpans(file: string): FunctionSpan[] {
  const sf = parse(file);
  const out: FunctionSpan[] = [];
  const nameOf = (n: ts.Node): string => {
    if ((ts.isFunctionDeclaration(n) || ts.isMethodDeclaration(n) || ts.isGetAccessor(n) || ts.isSetAccessor(n)) && n.name) return n.name.getText(sf);
    if (ts.isConstructorDeclaration(n)) return 'constructor';
    const p = n.parent;
    if (p && ts.isVariableDeclaration(p)) return p.name.getText(sf);
    if (p && ts.isPropertyAssignment(p)) return p.name.getText(sf);
    return '(anonymous)';
  };
  const walk = (n: ts.Node): void => {
    if (ts.isFunctionLike(n) && 'body' in n && n.body) {
      const start = sf.getLineAndCharacterOfPosition(n.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(n.getEnd()).line;
      out.push({ file: rel(file), name: nameOf(n), line: start + 1, lines: end - start + 1 });
    }
    ts.forEachChild(n, walk);
  };
  walk(sf);
  return out;
}
