// The tokenizer seam: a small TokenizerLike interface and a loader for a local Hugging Face tokenizer.json (pure JS).
import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';

/** What the workload and the client need from a tokenizer; tests and other backends can supply their own. */
export interface TokenizerLike {
  /** Where it came from, for the run record. */
  readonly name: string;
  readonly vocabSize: number;
  /** Ids never used to build random prompts (BOS, EOS, pad, added special tokens). */
  readonly specialIds: ReadonlySet<number>;
  readonly bosToken?: string;
  readonly eosToken?: string;
  /** Jinja chat template from tokenizer_config.json or chat_template.jinja, when the model ships one. */
  readonly chatTemplate?: string;
  encode(text: string, addSpecialTokens?: boolean): number[];
  decode(ids: readonly number[], skipSpecialTokens?: boolean): string;
  /** The vocabulary entry of an id (e.g. '▁the', 'Ġthe'); undefined when unknown. */
  idToToken(id: number): string | undefined;
  /** How many tokens encode(text, true) adds on top of encode(text, false) (BOS and friends). */
  numSpecialTokensToAdd(): number;
}

interface AddedTokenLike {
  content: string;
  special: boolean;
}

/** The part of @huggingface/tokenizers we use (its shipped typings do not resolve, so we state them). */
interface HfTokenizerApi {
  encode(text: string, opts: { add_special_tokens: boolean }): { ids: number[] };
  decode(ids: number[], opts: { skip_special_tokens: boolean }): string;
  get_vocab(withAddedTokens: boolean): Map<string, number>;
  get_added_tokens_decoder(): Map<number, AddedTokenLike>;
}
const HfTokenizerCtor = Tokenizer as unknown as new (json: object, config: object) => HfTokenizerApi;

function readJson(path: string): unknown {
  return JSON.parse(readFileSync(path, 'utf8')) as unknown;
}

function tokenText(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  if (v && typeof v === 'object' && typeof (v as { content?: unknown }).content === 'string') return (v as { content: string }).content;
  return undefined;
}

function pickChatTemplate(v: unknown): string | undefined {
  if (typeof v === 'string') return v;
  // Some configs hold a list of named templates; the one named 'default' is what transformers uses.
  if (Array.isArray(v)) {
    const named = v as { name?: unknown; template?: unknown }[];
    const def = named.find((t) => t.name === 'default') ?? named[0];
    return typeof def?.template === 'string' ? def.template : undefined;
  }
  return undefined;
}

/**
 * Loads `tokenizer.json` from a file path or a model folder; `tokenizer_config.json` and
 * `chat_template.jinja` beside it are read when present. Throws with a message that names the path.
 */
export function loadTokenizer(pathOrDir: string, opts: { chatTemplatePath?: string } = {}): TokenizerLike {
  let file = pathOrDir;
  let isDir = false;
  try {
    isDir = statSync(pathOrDir).isDirectory();
  } catch {
    throw new Error(`tokenizer ${pathOrDir}: no such file or folder (give a local tokenizer.json or the model folder holding it)`);
  }
  if (isDir) file = join(pathOrDir, 'tokenizer.json');
  if (!existsSync(file)) throw new Error(`tokenizer ${pathOrDir}: no tokenizer.json there`);
  const dir = dirname(file);
  let json: Record<string, unknown>;
  try {
    json = readJson(file) as Record<string, unknown>;
  } catch (e) {
    throw new Error(`tokenizer ${file}: not valid JSON (${(e as Error).message})`);
  }
  const configPath = join(dir, 'tokenizer_config.json');
  const config = (existsSync(configPath) ? readJson(configPath) : {}) as Record<string, unknown>;
  let chatTemplate = pickChatTemplate(config.chat_template);
  const jinjaPath = opts.chatTemplatePath ?? join(dir, 'chat_template.jinja');
  if (existsSync(jinjaPath)) chatTemplate = readFileSync(jinjaPath, 'utf8');
  else if (opts.chatTemplatePath) throw new Error(`chat template ${opts.chatTemplatePath}: no such file`);
  return new HfTokenizer(file, json, config, chatTemplate);
}

class HfTokenizer implements TokenizerLike {
  readonly vocabSize: number;
  readonly specialIds: ReadonlySet<number>;
  readonly bosToken?: string;
  readonly eosToken?: string;
  private readonly tok: HfTokenizerApi;
  private readonly idToTok: Map<number, string>;
  private specialsAdded: number | undefined;

  constructor(
    readonly name: string,
    json: Record<string, unknown>,
    config: Record<string, unknown>,
    readonly chatTemplate: string | undefined,
  ) {
    try {
      this.tok = new HfTokenizerCtor(json, config);
    } catch (e) {
      throw new Error(`tokenizer ${name}: cannot be loaded (${(e as Error).message})`);
    }
    const vocab = this.tok.get_vocab(true);
    this.idToTok = new Map();
    let maxId = -1;
    for (const [t, id] of vocab) {
      this.idToTok.set(id, t);
      if (id > maxId) maxId = id;
    }
    this.vocabSize = maxId + 1;
    const special = new Set<number>();
    for (const [id, added] of this.tok.get_added_tokens_decoder()) if (added.special) special.add(id);
    this.specialIds = special;
    const bos = tokenText(config.bos_token);
    const eos = tokenText(config.eos_token);
    if (bos !== undefined) this.bosToken = bos;
    if (eos !== undefined) this.eosToken = eos;
  }

  encode(text: string, addSpecialTokens = true): number[] {
    return this.tok.encode(text, { add_special_tokens: addSpecialTokens }).ids;
  }

  decode(ids: readonly number[], skipSpecialTokens = false): string {
    return this.tok.decode([...ids], { skip_special_tokens: skipSpecialTokens });
  }

  idToToken(id: number): string | undefined {
    return this.idToTok.get(id);
  }

  numSpecialTokensToAdd(): number {
    this.specialsAdded ??= this.encode('a', true).length - this.encode('a', false).length;
    return this.specialsAdded;
  }
}
