// Messages between the extension host and the summary panel (typed, discriminated by `type`), and
// the panel state the webview keeps across reloads. No DOM and no vscode imports: both sides compile it.
import type { ReportModel } from '../core/results/report-model';

export type SaveFormat = 'markdown' | 'csv';

/** What the panel remembers (vscode.setState in a webview, sessionStorage in a browser). */
export interface PanelState {
  sort?: { key: string; dir: 'asc' | 'desc' };
  filter?: string;
  onlyFailing?: boolean;
  scrollY?: number;
}

/** Host -> panel. The host sends `load` only after the panel said `ready`. */
export type HostToPanel = { type: 'load'; model: ReportModel; state?: PanelState; reveal?: string } | { type: 'saved'; format: SaveFormat; path: string };

/** Panel -> host. */
export type PanelToHost =
  | { type: 'ready' }
  | { type: 'rendered'; rowCount: number; ms: number; counts?: string }
  | { type: 'save'; format: SaveFormat; fileName: string; content: string }
  | { type: 'copy'; text: string }
  | { type: 'error'; message: string };

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/** Narrowing for the panel side: anything else posted to the window is ignored. */
export function isHostToPanel(v: unknown): v is HostToPanel {
  if (!isObject(v)) return false;
  if (v.type === 'load') return isObject(v.model) && Array.isArray((v.model).candidates);
  if (v.type === 'saved') return (v.format === 'markdown' || v.format === 'csv') && typeof v.path === 'string';
  return false;
}

/** Narrowing for the host side. */
export function isPanelToHost(v: unknown): v is PanelToHost {
  if (!isObject(v)) return false;
  switch (v.type) {
    case 'ready':
      return true;
    case 'rendered':
      return typeof v.rowCount === 'number' && typeof v.ms === 'number';
    case 'save':
      return (v.format === 'markdown' || v.format === 'csv') && typeof v.fileName === 'string' && typeof v.content === 'string';
    case 'copy':
      return typeof v.text === 'string';
    case 'error':
      return typeof v.message === 'string';
    default:
      return false;
  }
}
