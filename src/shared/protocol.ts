// Names and shapes shared by the extension client and the language server (both compile this module).

export const LANGUAGE_SERVER_ID = 'autobench';
export const DIAGNOSTIC_SOURCE = 'autobench';

/** Settings the client resolves and hands to the server at start. */
export interface ServerSettings {
  /** Folder of captured --help texts to check flags against (empty: built-in table). */
  helpDir: string;
}

export const DEFAULT_SETTINGS: ServerSettings = { helpDir: '' };
