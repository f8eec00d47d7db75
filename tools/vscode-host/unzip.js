// Minimal zip reading (stored and deflated entries) so a .vsix can be listed and unpacked without the `unzip` package.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inflateRawSync } from 'node:zlib';

/** The central directory: every entry's name and where its data lies. */
function entries(zipPath, buf) {
  // The end-of-central-directory record sits in the last 22 bytes plus an optional comment of up to 64 KiB.
  let eocd = -1;
  for (let i = buf.length - 22; i >= Math.max(0, buf.length - 22 - 0xffff); i--) {
    if (buf.readUInt32LE(i) === 0x06054b50) { eocd = i; break; }
  }
  if (eocd < 0) throw new Error(`${zipPath}: not a zip file`);
  const out = [];
  let p = buf.readUInt32LE(eocd + 16);
  for (let n = buf.readUInt16LE(eocd + 10); n > 0; n--) {
    if (buf.readUInt32LE(p) !== 0x02014b50) throw new Error(`${zipPath}: bad central directory entry at ${p}`);
    const nameLen = buf.readUInt16LE(p + 28);
    out.push({
      name: buf.toString('utf8', p + 46, p + 46 + nameLen),
      method: buf.readUInt16LE(p + 10),
      compSize: buf.readUInt32LE(p + 20),
      size: buf.readUInt32LE(p + 24),
      local: buf.readUInt32LE(p + 42),
    });
    p += 46 + nameLen + buf.readUInt16LE(p + 30) + buf.readUInt16LE(p + 32);
  }
  return out.filter((e) => !e.name.endsWith('/'));
}

/** The file names inside the zip at `zipPath`. */
export function listZip(zipPath) {
  return entries(zipPath, readFileSync(zipPath)).map((e) => e.name);
}

/** Extracts every file of the zip at `zipPath` under `destDir`; returns the entry names. */
export function unzip(zipPath, destDir) {
  const buf = readFileSync(zipPath);
  const root = resolve(destDir);
  const names = [];
  for (const e of entries(zipPath, buf)) {
    const out = resolve(root, e.name);
    if (!out.startsWith(root + sep)) throw new Error(`${zipPath}: entry escapes the target folder: ${e.name}`);
    // The local header repeats name and extra field, with lengths of its own.
    const start = e.local + 30 + buf.readUInt16LE(e.local + 26) + buf.readUInt16LE(e.local + 28);
    const raw = buf.subarray(start, start + e.compSize);
    let data;
    if (e.method === 0) data = raw;
    else if (e.method === 8) data = inflateRawSync(raw);
    else throw new Error(`${zipPath}: ${e.name}: unsupported compression method ${e.method}`);
    if (data.length !== e.size) throw new Error(`${zipPath}: ${e.name}: ${data.length} bytes, expected ${e.size}`);
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, data);
    names.push(e.name);
  }
  return names;
}

// `node unzip.js FILE.zip DIR`
if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const [zip, dir] = process.argv.slice(2);
  if (!zip || !dir) { console.error('usage: node unzip.js FILE.zip DIR'); process.exit(2); }
  console.log(`${unzip(zip, dir).length} files -> ${dir}`);
}
