// The language server entry: LSP wiring only; every verdict, completion and lens comes from src/core.
import { readFileSync } from 'node:fs';
import {
  CodeActionKind,
  CompletionItemKind,
  createConnection,
  DiagnosticSeverity,
  DiagnosticTag,
  InsertTextFormat,
  ProposedFeatures,
  SymbolKind,
  TextDocuments,
  TextDocumentSyncKind,
  type CodeAction,
  type CompletionItem,
  type Diagnostic,
  type DocumentSymbol,
  type Range as LspRange,
  type WorkspaceEdit,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { LineIndex, type Finding, type Fix } from '../../src/core/config/finding';
import { completeAt, snippetText, type CompletionKind } from '../../src/core/editor/completion';
import { docPageForFinding } from '../../src/core/editor/docs';
import { hoverAt } from '../../src/core/editor/hover';
import { candidateSummaries, commandsListing, frameworkErrors, lensesFor, outlineFor, type OutlineSymbol, type SymbolKind as CoreSymbolKind } from '../../src/core/editor/outline';
import { predictedLeaders } from '../../src/core/editor/predicted';
import type { Range } from '../../src/core/config/yaml-doc';
import {
  CANDIDATES_REQUEST,
  DEFAULT_SETTINGS,
  DIAGNOSTIC_SOURCE,
  PLAN_REQUEST,
  SETTINGS_NOTIFICATION,
  STATUS_NOTIFICATION,
  VALIDATE_FILES_REQUEST,
  type CandidatesParams,
  type CandidatesResult,
  type PlanParams,
  type PlanResult,
  type ServerSettings,
  type ValidateFilesParams,
  type ValidateFilesResult,
} from '../../src/shared/protocol';
import { Analyzer, uriToPath, type Analysis } from './analysis';
import { DocLinks } from './docs';
import { builtWorker, PREDICT_IDLE_MS, PredictionService } from './predictions';
import { DiagnosticScheduler } from './scheduler';
import { SnapshotCache } from './snapshot-cache';
import { StatusNotifier } from './status';
import { consoleToClient, OneWriteMessageWriter } from './stdio-writer';

// Over stdio, each message leaves in one write (stdio-writer.ts). stdin stays a stream, so that the server exits when
// it ends; the writer is a MessageWriter, which createConnection tells from a stream at run time (its typings pair a
// stream with a stream). Over node IPC (the extension) nothing changes.
const stdio = process.argv.includes('--stdio');
const connection = stdio
  ? createConnection(ProposedFeatures.all, process.stdin, new OneWriteMessageWriter(process.stdout) as unknown as NodeJS.WritableStream)
  : createConnection(ProposedFeatures.all);
if (stdio) consoleToClient(connection);
const documents = new TextDocuments(TextDocument);
let settings: ServerSettings = DEFAULT_SETTINGS;
let roots: string[] = [];
const snapshots = new SnapshotCache();
const docs = new DocLinks(__dirname);
/** Whether the client applies snippet edits in a workspace edit (a quick fix can then select a value to review). */
let snippetEdits = false;
const analyzer = new Analyzer(
  snapshots,
  () => settings,
  () => roots,
);

function toRange(lines: LineIndex, r: Range): LspRange {
  return { start: lines.positionAt(r[0]), end: lines.positionAt(r[1]) };
}

function toDiagnostic(lines: LineIndex, f: Finding): Diagnostic {
  const d: Diagnostic = {
    range: toRange(lines, f.range),
    severity: f.severity === 'error' ? DiagnosticSeverity.Error : f.severity === 'warning' ? DiagnosticSeverity.Warning : DiagnosticSeverity.Information,
    code: f.code,
    source: DIAGNOSTIC_SOURCE,
    message: f.editorMessage ?? f.message,
  };
  if (f.code === 'sla-deprecated') d.tags = [DiagnosticTag.Deprecated];
  const href = docs.href(docPageForFinding(f.code));
  if (href) d.codeDescription = { href };
  return d;
}

function analysisOf(uri: string): Analysis | undefined {
  const doc = documents.get(uri);
  if (!doc || !analyzer.isConfig(uri, doc.getText())) return undefined;
  return analyzer.analyze(uri, doc.version, doc.getText());
}

const status = new StatusNotifier((s) => void connection.sendNotification(STATUS_NOTIFICATION, s));
/** The snapshot problem last logged per document: logged once, not on every keystroke. */
const warned = new Map<string, string>();

function publish(a: Analysis): void {
  const findings = a.result.findings;
  const lines = findings.length > 0 ? new LineIndex(a.text) : undefined;
  void connection.sendDiagnostics({ uri: a.uri, version: a.version, diagnostics: lines ? findings.map((f) => toDiagnostic(lines, f)) : [] });
  const errors = findings.filter((f) => f.severity === 'error').length;
  status.update({
    uri: a.uri,
    sources: a.sources,
    label: a.sourcesLabel,
    builtinOnly: a.builtinOnly,
    validatedAt: a.at.toISOString(),
    ms: Math.round(a.ms * 10) / 10,
    errors,
    warnings: findings.length - errors,
  });
  if (a.snapshotProblem && warned.get(a.uri) !== a.snapshotProblem) connection.console.warn(`${a.uri}: ${a.snapshotProblem}`);
  if (a.snapshotProblem) warned.set(a.uri, a.snapshotProblem);
  else warned.delete(a.uri);
}

const scheduler = new DiagnosticScheduler(
  () => settings.debounceMs,
  (uri) => {
    const doc = documents.get(uri);
    if (!doc) return;
    const version = doc.version;
    if (!analyzer.isConfig(uri, doc.getText())) {
      void connection.sendDiagnostics({ uri, version, diagnostics: [] });
      return;
    }
    const a = analyzer.analyze(uri, version, doc.getText());
    // Drop the result if the document moved on while it was computed.
    if (documents.get(uri)?.version !== version) return;
    publish(a);
  },
);

/** Whether the client lets the server ask for fresh code lenses (`workspace/codeLens/refresh`). */
let lensRefresh = false;
// Predictions run in a worker thread beside this bundle (dist/server-predict-worker.js); without it (run from source), none.
const predictions = new PredictionService({
  spawn: builtWorker(__dirname),
  onResult: (uri, version) => {
    if (lensRefresh && documents.get(uri)?.version === version) void connection.sendRequest('workspace/codeLens/refresh').catch(() => undefined);
  },
  onError: (uri, message) => connection.console.warn(`${uri}: prediction failed: ${message}`),
});

/** After the document has been idle: predict its version in the worker, unless cached or already under way. */
const predictScheduler = new DiagnosticScheduler(
  () => PREDICT_IDLE_MS,
  (uri) => {
    const doc = documents.get(uri);
    if (!doc || !analyzer.isConfig(uri, doc.getText())) return;
    const a = analyzer.peek(uri);
    if (a && a.version === doc.version && a.result.candidateLists.length === 0) return;
    predictions.request(uri, doc.version, { text: doc.getText(), path: uriToPath(uri) ?? '', ...(settings.helpDir ? { settingHelpDir: settings.helpDir } : {}), workspaceRoots: roots });
  },
);

function repredictAll(): void {
  predictions.clear();
  for (const doc of documents.all()) predictScheduler.schedule(doc.uri, false);
}

connection.onInitialize((params) => {
  lensRefresh = params.capabilities.workspace?.codeLens?.refreshSupport === true;
  const editCaps = params.capabilities.workspace?.workspaceEdit;
  snippetEdits = editCaps?.snippetEditSupport === true && editCaps.documentChanges === true;
  const init = params.initializationOptions as Partial<ServerSettings> | undefined;
  settings = { ...DEFAULT_SETTINGS, ...init };
  roots = (params.workspaceFolders ?? []).map((f) => uriToPath(f.uri)).filter((p): p is string => p !== undefined);
  if (roots.length === 0 && params.rootUri) {
    const p = uriToPath(params.rootUri);
    if (p) roots = [p];
  }
  return {
    capabilities: {
      textDocumentSync: TextDocumentSyncKind.Incremental,
      completionProvider: { triggerCharacters: [' ', ':', '-', '\n'], resolveProvider: false },
      hoverProvider: true,
      codeActionProvider: { codeActionKinds: [CodeActionKind.QuickFix] },
      codeLensProvider: { resolveProvider: false },
      documentSymbolProvider: true,
    },
    serverInfo: { name: 'autobench-language-server' },
  };
});

connection.onNotification(SETTINGS_NOTIFICATION, (next: Partial<ServerSettings>) => {
  settings = { ...DEFAULT_SETTINGS, ...next };
  analyzer.clear();
  warned.clear();
  for (const doc of documents.all()) scheduler.schedule(doc.uri, true);
  repredictAll();
});

connection.onDidChangeWatchedFiles((p) => {
  const changed = p.changes.map((c) => uriToPath(c.uri)).filter((x): x is string => x !== undefined);
  if (snapshots.invalidate(changed)) {
    analyzer.clear();
    warned.clear();
    for (const doc of documents.all()) scheduler.schedule(doc.uri, true);
    repredictAll();
  }
});

documents.onDidOpen((e) => {
  scheduler.schedule(e.document.uri, true);
  predictScheduler.schedule(e.document.uri, false);
});
documents.onDidChangeContent((e) => {
  scheduler.schedule(e.document.uri, false);
  predictScheduler.schedule(e.document.uri, false);
});
documents.onDidClose((e) => {
  scheduler.cancel(e.document.uri);
  predictScheduler.cancel(e.document.uri);
  predictions.forget(e.document.uri);
  analyzer.forget(e.document.uri);
  status.forget(e.document.uri);
  warned.delete(e.document.uri);
  void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] });
});

const COMPLETION_KIND: Record<CompletionKind, CompletionItemKind> = {
  property: CompletionItemKind.Property,
  flag: CompletionItemKind.Field,
  value: CompletionItemKind.EnumMember,
  boolean: CompletionItemKind.Value,
};

connection.onCompletion((p) => {
  const doc = documents.get(p.textDocument.uri);
  if (!doc || !analyzer.isConfig(doc.uri, doc.getText())) return [];
  const a = analyzer.analyze(doc.uri, doc.version, doc.getText());
  const lines = new LineIndex(a.text);
  const offset = lines.offsetAt(p.position);
  return completeAt(a.text, offset, a.result.kind, a.snapshots).map((c): CompletionItem => {
    const item: CompletionItem = {
      label: c.label,
      kind: COMPLETION_KIND[c.kind],
      textEdit: { range: toRange(lines, c.replace), newText: c.insertText },
    };
    if (c.detail) item.detail = c.detail;
    if (c.documentation) item.documentation = { kind: 'markdown', value: c.documentation };
    if (c.sortText) item.sortText = c.sortText;
    if (c.snippet) item.insertTextFormat = InsertTextFormat.Snippet;
    if (c.deprecated) item.tags = [1];
    return item;
  });
});

connection.onHover((p) => {
  const a = analysisOf(p.textDocument.uri);
  if (!a) return null;
  const lines = new LineIndex(a.text);
  const h = hoverAt(a.result, lines.offsetAt(p.position), a.snapshots, predictions.get(a.uri, a.version));
  return h ? { contents: { kind: 'markdown', value: docs.withLink(h.markdown, h.doc) }, range: toRange(lines, h.range) } : null;
});

const overlaps = (a: Range, b: Range) => a[0] <= b[1] && b[0] <= a[1];

/**
 * A fix as a workspace edit. An edit that asks for part of its text to be selected (a value to review) becomes a snippet
 * edit with that part as its one placeholder, where the client applies snippet edits; elsewhere plain text edits.
 */
function fixEdit(uri: string, version: number, lines: LineIndex, fix: Fix): WorkspaceEdit {
  if (!snippetEdits || !fix.edits.some((e) => e.select)) return { changes: { [uri]: fix.edits.map((e) => ({ range: toRange(lines, e.range), newText: e.newText })) } };
  const edits = fix.edits.map((e) => {
    const range = toRange(lines, e.range);
    if (!e.select) return { range, newText: e.newText };
    const [s, t] = e.select;
    const value = `${snippetText(e.newText.slice(0, s))}\${1:${snippetText(e.newText.slice(s, t))}}${snippetText(e.newText.slice(t))}`;
    return { range, snippet: { kind: 'snippet' as const, value } };
  });
  return { documentChanges: [{ textDocument: { uri, version: version < 0 ? null : version }, edits }] };
}

connection.onCodeAction((p) => {
  const a = analysisOf(p.textDocument.uri);
  if (!a) return [];
  const lines = new LineIndex(a.text);
  const want: Range = [lines.offsetAt(p.range.start), lines.offsetAt(p.range.end)];
  const actions: CodeAction[] = [];
  for (const f of a.result.findings) {
    if (!f.fixes || !overlaps(f.range, want)) continue;
    const diagnostic = toDiagnostic(lines, f);
    f.fixes.forEach((fix, i) => {
      // A fix that changes what the config means is never the one an editor applies on its own (Auto Fix).
      actions.push({ title: fix.title, kind: CodeActionKind.QuickFix, diagnostics: [diagnostic], isPreferred: i === 0 && !fix.changesMeaning, edit: fixEdit(a.uri, a.version, lines, fix) });
    });
  }
  return actions;
});

connection.onCodeLens((p) => {
  const a = analysisOf(p.textDocument.uri);
  if (!a) return [];
  const lines = new LineIndex(a.text);
  return lensesFor(a.result, predictedLeaders(predictions.get(a.uri, a.version))).map((l) => ({
    range: toRange(lines, l.range),
    command: { title: l.title, command: l.command, arguments: [a.uri, l.framework] },
  }));
});

const SYMBOL_KIND: Record<CoreSymbolKind, SymbolKind> = {
  module: SymbolKind.Module,
  array: SymbolKind.Array,
  object: SymbolKind.Object,
  field: SymbolKind.Field,
  event: SymbolKind.Event,
};

function toSymbol(lines: LineIndex, s: OutlineSymbol): DocumentSymbol {
  const sym: DocumentSymbol = {
    name: s.name,
    kind: SYMBOL_KIND[s.kind],
    range: toRange(lines, s.range),
    selectionRange: toRange(lines, s.selection),
  };
  if (s.detail) sym.detail = s.detail;
  if (s.children) sym.children = s.children.map((c) => toSymbol(lines, c));
  return sym;
}

connection.onDocumentSymbol((p) => {
  const a = analysisOf(p.textDocument.uri);
  if (!a) return [];
  const lines = new LineIndex(a.text);
  return outlineFor(a.result).map((s) => toSymbol(lines, s));
});

/** The open document's analysis, else the file on disk analysed now. */
function analysisOrRead(uri: string): Analysis {
  const a = analysisOf(uri);
  if (a) return a;
  const path = uriToPath(uri);
  if (!path) throw new Error(`not a file: ${uri}`);
  return analyzer.analyze(uri, -1, readFileSync(path, 'utf8'));
}

connection.onRequest(PLAN_REQUEST, (p: PlanParams): PlanResult => {
  const a = analysisOrRead(p.uri);
  const lines = new LineIndex(a.text);
  const errors: NonNullable<PlanResult['errors']> = {};
  for (const plan of a.result.candidateLists) {
    const found = frameworkErrors(a.result, plan.framework).map((f) => ({ message: f.message, ...lines.positionAt(f.range[0]) }));
    if (found.length) errors[plan.framework] = found;
  }
  return { frameworks: candidateSummaries(a.result), errors };
});

connection.onRequest(CANDIDATES_REQUEST, (p: CandidatesParams): CandidatesResult => {
  const a = analysisOrRead(p.uri);
  const candidates: Record<string, string[]> = {};
  for (const plan of a.result.candidateLists) candidates[plan.framework] = plan.candidates.map((c) => c.command);
  return { content: commandsListing(uriToPath(p.uri) ?? p.uri, a.result, p.framework), candidates };
});

connection.onRequest(VALIDATE_FILES_REQUEST, (p: ValidateFilesParams): ValidateFilesResult => {
  const out: ValidateFilesResult = { configs: 0, errors: 0, warnings: 0, skipped: 0 };
  for (const uri of p.uris) {
    const open = documents.get(uri);
    const path = uriToPath(uri);
    let text: string;
    try {
      text = open ? open.getText() : path ? readFileSync(path, 'utf8') : '';
    } catch {
      out.skipped++;
      continue;
    }
    if (!analyzer.isConfig(uri, text)) {
      out.skipped++;
      continue;
    }
    const a = analyzer.analyze(uri, open ? open.version : -1, text);
    out.configs++;
    out.errors += a.result.findings.filter((f) => f.severity === 'error').length;
    out.warnings += a.result.findings.filter((f) => f.severity !== 'error').length;
    publish(a);
  }
  return out;
});

connection.onExit(() => predictions.dispose());

documents.listen(connection);
connection.listen();
