// Python's list.sort (CPython 3.11 listobject.c: runs, binary insertion, powersort merging, galloping) for keys whose
// `<` is not a total order (NaN): there the result depends on which pairs the algorithm compares, so only the same
// comparisons in the same order give the same list. With a consistent `<` any stable sort gives this result.

const MIN_GALLOP = 7;

type Lt<T> = (a: T, b: T) => boolean;

/** The minimum run length for a list of n: n itself under 64, else between 32 and 64 (merge_compute_minrun). */
function minRun(n: number): number {
  let r = 0;
  while (n >= 64) {
    r |= n & 1;
    n >>= 1;
  }
  return n + r;
}

/** The length of the run at lo (at most hi - lo) and whether it strictly descends (count_run). */
function countRun<T>(a: T[], lo: number, hi: number, lt: Lt<T>): { n: number; descending: boolean } {
  if (lo + 1 === hi) return { n: 1, descending: false };
  let n = 2;
  let i = lo + 1;
  if (lt(a[i] as T, a[i - 1] as T)) {
    for (i++; i < hi && lt(a[i] as T, a[i - 1] as T); i++) n++;
    return { n, descending: true };
  }
  for (i++; i < hi && !lt(a[i] as T, a[i - 1] as T); i++) n++;
  return { n, descending: false };
}

function reverse<T>(a: T[], lo: number, hi: number): void {
  for (let i = lo, j = hi - 1; i < j; i++, j--) [a[i], a[j]] = [a[j] as T, a[i] as T];
}

/** Extends the sorted a[lo, start) to a[lo, hi) by binary insertion (binarysort). */
function binarySort<T>(a: T[], lo: number, hi: number, start: number, lt: Lt<T>): void {
  if (lo === start) start++;
  for (; start < hi; start++) {
    const pivot = a[start] as T;
    let l = lo;
    let r = start;
    do {
      const p = l + ((r - l) >> 1);
      if (lt(pivot, a[p] as T)) r = p;
      else l = p + 1;
    } while (l < r);
    for (let p = start; p > l; p--) a[p] = a[p - 1] as T;
    a[l] = pivot;
  }
}

/** Where key goes in the sorted a[base, base + n), left of any equal elements, starting the search at hint (gallop_left). */
function gallopLeft<T>(key: T, a: T[], base: number, n: number, hint: number, lt: Lt<T>): number {
  let lastofs = 0;
  let ofs = 1;
  if (lt(a[base + hint] as T, key)) {
    const maxofs = n - hint;
    while (ofs < maxofs && lt(a[base + hint + ofs] as T, key)) {
      lastofs = ofs;
      ofs = (ofs << 1) + 1;
    }
    if (ofs > maxofs) ofs = maxofs;
    lastofs += hint;
    ofs += hint;
  } else {
    const maxofs = hint + 1;
    while (ofs < maxofs && !lt(a[base + hint - ofs] as T, key)) {
      lastofs = ofs;
      ofs = (ofs << 1) + 1;
    }
    if (ofs > maxofs) ofs = maxofs;
    const k = lastofs;
    lastofs = hint - ofs;
    ofs = hint - k;
  }
  lastofs++;
  while (lastofs < ofs) {
    const m = lastofs + ((ofs - lastofs) >> 1);
    if (lt(a[base + m] as T, key)) lastofs = m + 1;
    else ofs = m;
  }
  return ofs;
}

/** Where key goes in the sorted a[base, base + n), right of any equal elements (gallop_right). */
function gallopRight<T>(key: T, a: T[], base: number, n: number, hint: number, lt: Lt<T>): number {
  let lastofs = 0;
  let ofs = 1;
  if (lt(key, a[base + hint] as T)) {
    const maxofs = hint + 1;
    while (ofs < maxofs && lt(key, a[base + hint - ofs] as T)) {
      lastofs = ofs;
      ofs = (ofs << 1) + 1;
    }
    if (ofs > maxofs) ofs = maxofs;
    const k = lastofs;
    lastofs = hint - ofs;
    ofs = hint - k;
  } else {
    const maxofs = n - hint;
    while (ofs < maxofs && !lt(key, a[base + hint + ofs] as T)) {
      lastofs = ofs;
      ofs = (ofs << 1) + 1;
    }
    if (ofs > maxofs) ofs = maxofs;
    lastofs += hint;
    ofs += hint;
  }
  lastofs++;
  while (lastofs < ofs) {
    const m = lastofs + ((ofs - lastofs) >> 1);
    if (lt(key, a[base + m] as T)) ofs = m;
    else lastofs = m + 1;
  }
  return ofs;
}

interface Run {
  base: number;
  len: number;
  power: number;
}

/** The sort's state: the list, its pending runs and the galloping threshold (MergeState). */
class Merger<T> {
  minGallop = MIN_GALLOP;
  readonly pending: Run[] = [];
  constructor(
    readonly a: T[],
    readonly lt: Lt<T>,
  ) {}

  /** Merges a[pa, pa + na) with the run after it, na <= nb: from the left, a's part copied out (merge_lo). */
  mergeLo(pa: number, na: number, pb: number, nb: number): void {
    const { a, lt } = this;
    const tmp = a.slice(pa, pa + na);
    let ia = 0;
    let dest = pa;
    a[dest++] = a[pb++] as T;
    nb--;
    const copyB = (): void => {
      for (let i = 0; i < nb; i++) a[dest + i] = a[pb + i] as T;
      a[dest + nb] = tmp[ia] as T;
    };
    if (nb === 0) return this.rest(tmp, ia, na, dest);
    if (na === 1) return copyB();
    let minGallop = this.minGallop;
    for (;;) {
      let acount = 0;
      let bcount = 0;
      for (;;) {
        if (lt(a[pb] as T, tmp[ia] as T)) {
          a[dest++] = a[pb++] as T;
          bcount++;
          acount = 0;
          if (--nb === 0) return this.rest(tmp, ia, na, dest);
          if (bcount >= minGallop) break;
        } else {
          a[dest++] = tmp[ia++] as T;
          acount++;
          bcount = 0;
          if (--na === 1) return copyB();
          if (acount >= minGallop) break;
        }
      }
      minGallop++;
      do {
        minGallop -= minGallop > 1 ? 1 : 0;
        this.minGallop = minGallop;
        let k = gallopRight(a[pb] as T, tmp, ia, na, 0, lt);
        acount = k;
        if (k) {
          for (let i = 0; i < k; i++) a[dest + i] = tmp[ia + i] as T;
          dest += k;
          ia += k;
          na -= k;
          if (na === 1) return copyB();
          if (na === 0) return this.rest(tmp, ia, na, dest);
        }
        a[dest++] = a[pb++] as T;
        if (--nb === 0) return this.rest(tmp, ia, na, dest);
        k = gallopLeft(tmp[ia] as T, a, pb, nb, 0, lt);
        bcount = k;
        if (k) {
          for (let i = 0; i < k; i++) a[dest + i] = a[pb + i] as T;
          dest += k;
          pb += k;
          nb -= k;
          if (nb === 0) return this.rest(tmp, ia, na, dest);
        }
        a[dest++] = tmp[ia++] as T;
        if (--na === 1) return copyB();
      } while (acount >= MIN_GALLOP || bcount >= MIN_GALLOP);
      minGallop++;
      this.minGallop = minGallop;
    }
  }

  /** merge_lo's exit: what is left of a's copy goes to dest. */
  private rest(tmp: T[], ia: number, na: number, dest: number): void {
    for (let i = 0; i < na; i++) this.a[dest + i] = tmp[ia + i] as T;
  }

  /** Merges a[pa, pa + na) with the run after it, na > nb: from the right, b's part copied out (merge_hi). */
  mergeHi(pa: number, na: number, pb: number, nb: number): void {
    const { a, lt } = this;
    const tmp = a.slice(pb, pb + nb);
    const baseA = pa;
    let dest = pb + nb - 1;
    let ib = nb - 1;
    let ia = pa + na - 1;
    a[dest--] = a[ia--] as T;
    na--;
    const copyA = (): void => {
      // The first of b's copy goes in front of what is left of a.
      dest -= na;
      ia -= na;
      for (let i = na; i >= 1; i--) a[dest + i] = a[ia + i] as T;
      a[dest] = tmp[ib] as T;
    };
    const done = (): void => {
      for (let i = 0; i < nb; i++) a[dest - (nb - 1) + i] = tmp[i] as T;
    };
    if (na === 0) return done();
    if (nb === 1) return copyA();
    let minGallop = this.minGallop;
    for (;;) {
      let acount = 0;
      let bcount = 0;
      for (;;) {
        if (lt(tmp[ib] as T, a[ia] as T)) {
          a[dest--] = a[ia--] as T;
          acount++;
          bcount = 0;
          if (--na === 0) return done();
          if (acount >= minGallop) break;
        } else {
          a[dest--] = tmp[ib--] as T;
          bcount++;
          acount = 0;
          if (--nb === 1) return copyA();
          if (bcount >= minGallop) break;
        }
      }
      minGallop++;
      do {
        minGallop -= minGallop > 1 ? 1 : 0;
        this.minGallop = minGallop;
        let k = na - gallopRight(tmp[ib] as T, a, baseA, na, na - 1, lt);
        acount = k;
        if (k) {
          dest -= k;
          ia -= k;
          for (let i = k; i >= 1; i--) a[dest + i] = a[ia + i] as T;
          na -= k;
          if (na === 0) return done();
        }
        a[dest--] = tmp[ib--] as T;
        if (--nb === 1) return copyA();
        k = nb - gallopLeft(a[ia] as T, tmp, 0, nb, nb - 1, lt);
        bcount = k;
        if (k) {
          dest -= k;
          ib -= k;
          for (let i = 1; i <= k; i++) a[dest + i] = tmp[ib + i] as T;
          nb -= k;
          if (nb === 1) return copyA();
          if (nb === 0) return done();
        }
        a[dest--] = a[ia--] as T;
        if (--na === 0) return done();
      } while (acount >= MIN_GALLOP || bcount >= MIN_GALLOP);
      minGallop++;
      this.minGallop = minGallop;
    }
  }

  /** Merges pending runs i and i + 1 (merge_at). */
  mergeAt(i: number): void {
    const p = this.pending;
    const ra = p[i] as Run;
    const rb = p[i + 1] as Run;
    let pa = ra.base;
    let na = ra.len;
    const pb = rb.base;
    let nb = rb.len;
    ra.len = na + nb;
    p.splice(i + 1, 1);
    const k = gallopRight(this.a[pb] as T, this.a, pa, na, 0, this.lt);
    pa += k;
    na -= k;
    if (na === 0) return;
    nb = gallopLeft(this.a[pa + na - 1] as T, this.a, pb, nb, nb - 1, this.lt);
    if (nb <= 0) return;
    if (na <= nb) this.mergeLo(pa, na, pb, nb);
    else this.mergeHi(pa, na, pb, nb);
  }
}

/** The powersort "power" of the boundary between runs [s1, s1 + n1) and [s1 + n1, s1 + n1 + n2) in a list of n (powerloop). */
function powerLoop(s1: number, n1: number, n2: number, n: number): number {
  let result = 0;
  let a = 2 * s1 + n1;
  let b = a + n1 + n2;
  for (;;) {
    result++;
    if (a >= n) {
      a -= n;
      b -= n;
    } else if (b >= n) break;
    a *= 2;
    b *= 2;
  }
  return result;
}

/** Sorts `a` in place, stable, with only `lt`, comparing exactly the pairs CPython 3.11's list.sort compares. */
export function pyListSort<T>(a: T[], lt: Lt<T>): void {
  const n = a.length;
  if (n < 2) return;
  const ms = new Merger(a, lt);
  const minrun = minRun(n);
  let lo = 0;
  let remaining = n;
  do {
    const run = countRun(a, lo, lo + remaining, lt);
    let len = run.n;
    if (run.descending) reverse(a, lo, lo + len);
    if (len < minrun) {
      const force = remaining <= minrun ? remaining : minrun;
      binarySort(a, lo, lo + force, lo + len, lt);
      len = force;
    }
    const p = ms.pending;
    if (p.length) {
      const last = p[p.length - 1] as Run;
      const power = powerLoop(last.base, last.len, len, n);
      while (p.length > 1 && (p[p.length - 2] as Run).power > power) ms.mergeAt(p.length - 2);
      (p[p.length - 1] as Run).power = power;
    }
    p.push({ base: lo, len, power: 0 });
    lo += len;
    remaining -= len;
  } while (remaining);
  const p = ms.pending;
  while (p.length > 1) {
    let i = p.length - 2;
    if (i > 0 && (p[i - 1] as Run).len < (p[i + 1] as Run).len) i--;
    ms.mergeAt(i);
  }
}

/** Python's sorted(items, reverse=True) by `lt` on the items: reversed, sorted, reversed again (equal items keep their order). */
export function pySortedDesc<T>(items: readonly T[], lt: Lt<T>): T[] {
  const a = [...items].reverse();
  pyListSort(a, lt);
  return a.reverse();
}
