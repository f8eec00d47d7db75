// The language server entry: LSP wiring only; every verdict comes from src/core.
import {
  createConnection,
  DiagnosticSeverity,
  ProposedFeatures,
  TextDocuments,
  TextDocumentSyncKind,
  type Diagnostic,
} from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { checkConfigText } from '../../src/core/config/check';
import { loadSnapshotFlags } from '../../src/core/config/snapshot-flags';
import type { SnapshotFlags } from '../../src/core/config/known-flags';
import { looksLikeConfig } from '../../src/core/config/detect';
import { DEFAULT_SETTINGS, DIAGNOSTIC_SOURCE, type ServerSettings } from '../../src/shared/protocol';

const connection = createConnection(ProposedFeatures.all);
const documents = new TextDocuments(TextDocument);
let settings: ServerSettings = DEFAULT_SETTINGS;
let snapshots: SnapshotFlags | undefined;

connection.onInitialize((params) => {
  const init = params.initializationOptions as Partial<ServerSettings> | undefined;
  settings = { ...DEFAULT_SETTINGS, ...init };
  if (settings.helpDir) {
    try {
      snapshots = loadSnapshotFlags(settings.helpDir).flags;
    } catch (e) {
      connection.console.warn(`autobench.helpDir ${settings.helpDir}: ${(e as Error).message}; using the built-in flag table`);
    }
  }
  return { capabilities: { textDocumentSync: TextDocumentSyncKind.Incremental } };
});

function validate(doc: TextDocument): void {
  const text = doc.getText();
  if (!looksLikeConfig(text)) {
    void connection.sendDiagnostics({ uri: doc.uri, version: doc.version, diagnostics: [] });
    return;
  }
  const result = checkConfigText(text, { kind: 'auto', ...(snapshots ? { snapshots } : {}) });
  const diagnostics: Diagnostic[] = result.findings.map((f) => ({
    range: { start: doc.positionAt(f.range[0]), end: doc.positionAt(f.range[1]) },
    severity: f.severity === 'error' ? DiagnosticSeverity.Error : f.severity === 'warning' ? DiagnosticSeverity.Warning : DiagnosticSeverity.Information,
    code: f.code,
    source: DIAGNOSTIC_SOURCE,
    message: f.message,
  }));
  void connection.sendDiagnostics({ uri: doc.uri, version: doc.version, diagnostics });
}

documents.onDidChangeContent((e) => validate(e.document));
documents.onDidClose((e) => void connection.sendDiagnostics({ uri: e.document.uri, diagnostics: [] }));
documents.listen(connection);
connection.listen();
