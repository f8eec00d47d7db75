// The simulated KV cache: a fixed pool of blocks, with an optional prefix cache keyed by block-hash chains.
//
// A block is either free, private to one request, or cached under the hash of its tokens and everything
// before them. Cached blocks are shared by reference count; those no request uses are kept (idle) until
// memory is needed, and evicted least-recently-used first — the behaviour of vLLM's and SGLang's caches
// at block granularity.

export class KvPool {
  private free: number;
  /** hash -> reference count, for every cached block. */
  private readonly refs = new Map<number, number>();
  /** Cached blocks with no reference, oldest first (Map keeps insertion order). */
  private readonly idle = new Map<number, true>();
  evictions = 0;

  constructor(
    readonly totalBlocks: number,
    readonly blockSize: number,
    readonly caching: boolean,
  ) {
    this.free = totalBlocks;
  }

  /** Blocks a new allocation can get: free ones plus idle cached ones that may be evicted. */
  available(): number {
    return this.free + this.idle.size;
  }

  /** Blocks holding data some request is using. */
  used(): number {
    return this.totalBlocks - this.free - this.idle.size;
  }

  cachedBlocks(): number {
    return this.refs.size;
  }

  /** How many leading blocks of `hashes` are cached (no side effect). */
  match(hashes: readonly number[], limit = hashes.length): number {
    if (!this.caching) return 0;
    let n = 0;
    while (n < limit && this.refs.has(hashes[n] as number)) n++;
    return n;
  }

  /** Takes a reference on each of the given cached blocks (all must be cached). */
  acquire(hashes: readonly number[], count: number): void {
    for (let i = 0; i < count; i++) {
      const h = hashes[i] as number;
      const r = this.refs.get(h) ?? 0;
      if (r === 0) this.idle.delete(h);
      this.refs.set(h, r + 1);
    }
  }

  /** Allocates `n` private blocks, evicting idle cached ones if needed; false (and nothing taken) if short. */
  allocate(n: number): boolean {
    if (n <= 0) return true;
    if (this.available() < n) return false;
    while (this.free < n) {
      const oldest = this.idle.keys().next();
      if (oldest.done) return false;
      this.idle.delete(oldest.value);
      this.refs.delete(oldest.value);
      this.free++;
      this.evictions++;
    }
    this.free -= n;
    return true;
  }

  /**
   * Turns one private block into the cached block `hash`, still referenced by its owner. False when the
   * hash is already cached (another request computed the same tokens): the block then stays private.
   */
  publish(hash: number): boolean {
    if (!this.caching || this.refs.has(hash)) return false;
    this.refs.set(hash, 1);
    return true;
  }

  /** Like publish, but for a block its owner is letting go of: cached with no reference (idle). */
  publishIdle(hash: number): boolean {
    if (!this.caching || this.refs.has(hash)) return false;
    this.refs.set(hash, 0);
    this.idle.set(hash, true);
    return true;
  }

  /** Drops references to cached blocks and returns private blocks to the free pool. */
  release(shared: readonly number[], privateBlocks: number): void {
    for (const h of shared) {
      const r = (this.refs.get(h) ?? 1) - 1;
      if (r <= 0) {
        this.refs.set(h, 0);
        this.idle.delete(h);
        this.idle.set(h, true);
      } else this.refs.set(h, r);
    }
    this.free += privateBlocks;
  }

  /** Empties the prefix cache (SGLang /flush_cache, vLLM /reset_prefix_cache); blocks in use stay. */
  flushIdle(): number {
    const n = this.idle.size;
    for (const h of this.idle.keys()) this.refs.delete(h);
    this.idle.clear();
    this.free += n;
    return n;
  }
}
