// Public entry of the help-snapshot module: parse `--help` texts, find snapshots, derive flag specs.
export { parseHelp } from './parse';
export type { ParseHint } from './parse';
export { classifySnapshotFile } from './classify';
export { discoverSnapshots } from './discover';
export { flagMentions, type FlagMentions } from './mentions';
export { captureProblem, loadServerCatalogs, mergeCatalogs, readHelpFile, readServerCaptures } from './snapshots';
export type { IgnoredCapture, ServerCaptures } from './snapshots';
export { catalogToFlagSpecs, lookupFlag, optionToKey } from './flag-specs';
export type { FlagCatalog, HelpFormat, HelpOption, SnapshotFile, SnapshotRole } from './types';
export { judgeFlagList, MIN_FLAG_LIST_OPTIONS } from './flag-list';
export type { FlagListVerdict } from './flag-list';
