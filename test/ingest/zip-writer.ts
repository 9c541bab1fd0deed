/**
 * A minimal zip writer for tests and the bench (no dependency): deflate entries, data
 * descriptors, central directory. `zipBuffers` for small fixtures; `zipFileStreaming`
 * streams a large file from disk. `lieAboutSize` writes a smaller uncompressed size into
 * the headers than the data really has (a lying zip bomb).
 */
import fs from 'node:fs';
import zlib from 'node:zlib';

interface Entry { name: string; crc: number; csize: number; usize: number; offset: number; declared?: number; method?: number }

function localHeader(name: Buffer, method = 8): Buffer {
  const h = Buffer.alloc(30);
  h.writeUInt32LE(0x04034b50, 0);
  h.writeUInt16LE(20, 4);
  h.writeUInt16LE(0x0808, 6); // data descriptor + UTF-8 names
  h.writeUInt16LE(method, 8); // 8 deflate, 0 stored
  h.writeUInt32LE(0, 10);
  // crc/sizes zero: in the data descriptor
  h.writeUInt16LE(name.length, 26);
  h.writeUInt16LE(0, 28);
  return Buffer.concat([h, name]);
}

function descriptor(e: Entry): Buffer {
  const d = Buffer.alloc(16);
  d.writeUInt32LE(0x08074b50, 0);
  d.writeUInt32LE(e.crc >>> 0, 4);
  d.writeUInt32LE(e.csize, 8);
  d.writeUInt32LE(e.declared ?? e.usize, 12);
  return d;
}

function central(entries: Entry[], at: number): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    const name = Buffer.from(e.name);
    const c = Buffer.alloc(46);
    c.writeUInt32LE(0x02014b50, 0);
    c.writeUInt16LE(20, 4);
    c.writeUInt16LE(20, 6);
    c.writeUInt16LE(0x0808, 8);
    c.writeUInt16LE(e.method ?? 8, 10);
    c.writeUInt32LE(0, 12);
    c.writeUInt32LE(e.crc >>> 0, 16);
    c.writeUInt32LE(e.csize, 20);
    c.writeUInt32LE(e.declared ?? e.usize, 24);
    c.writeUInt16LE(name.length, 28);
    c.writeUInt32LE(e.offset, 42);
    parts.push(c, name);
  }
  const cd = Buffer.concat(parts);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(cd.length, 12);
  end.writeUInt32LE(at, 16);
  return Buffer.concat([cd, end]);
}

/** `store`: the entry uncompressed (method 0); `wrongCrc`: its CRC-32 written off by one (a corrupt entry). */
export function zipBuffers(files: { name: string; data: Buffer | string; lieAboutSize?: number; store?: boolean; wrongCrc?: boolean }[]): Buffer {
  const out: Buffer[] = [];
  const entries: Entry[] = [];
  let offset = 0;
  for (const f of files) {
    const data = Buffer.isBuffer(f.data) ? f.data : Buffer.from(f.data);
    const method = f.store ? 0 : 8;
    const comp = f.store ? data : zlib.deflateRawSync(data, { level: 9 });
    const lh = localHeader(Buffer.from(f.name), method);
    const crc = (zlib.crc32(data) + (f.wrongCrc ? 1 : 0)) >>> 0;
    const e: Entry = { name: f.name, crc, csize: comp.length, usize: data.length, offset, declared: f.lieAboutSize, method };
    const d = descriptor(e);
    out.push(lh, comp, d);
    offset += lh.length + comp.length + d.length;
    entries.push(e);
  }
  out.push(central(entries, offset));
  return Buffer.concat(out);
}

/** Zips one large file from disk to `outPath`, streaming. */
export async function zipFileStreaming(srcPath: string, entryName: string, outPath: string): Promise<void> {
  const out = fs.createWriteStream(outPath);
  let failed: Error | null = null;
  out.on('error', (e) => (failed = e));
  const write = (b: Buffer) =>
    new Promise<void>((res, rej) => {
      if (failed) return rej(failed);
      if (out.write(b)) res();
      else out.once('drain', () => res());
    });
  const lh = localHeader(Buffer.from(entryName));
  await write(lh);
  let crc = 0, usize = 0, csize = 0;
  const deflate = zlib.createDeflateRaw({ level: 6 });
  const src = fs.createReadStream(srcPath, { highWaterMark: 1 << 20 });
  src.on('data', (c: string | Buffer) => {
    if (typeof c === 'string') return;
    crc = zlib.crc32(c, crc);
    usize += c.length;
  });
  src.pipe(deflate);
  for await (const c of deflate) {
    csize += (c as Buffer).length;
    await write(c as Buffer);
  }
  const e: Entry = { name: entryName, crc, csize, usize, offset: 0 };
  const d = descriptor(e);
  await write(d);
  await write(central([e], lh.length + csize + d.length));
  await new Promise<void>((res) => out.end(res));
}

/**
 * A zip whose central directory lists `copies` entries that all point at the same local entry
 * (same data, counted `copies` times: an overlapping zip bomb). `shift` > 0 points each later
 * entry `shift` bytes further into the first one's data instead (partly overlapping ranges).
 */
export function zipOverlapping(name: string, data: Buffer | string, copies: number, shift = 0): Buffer {
  const body = Buffer.isBuffer(data) ? data : Buffer.from(data);
  const comp = zlib.deflateRawSync(body, { level: 9 });
  const lh = localHeader(Buffer.from(name));
  const e: Entry = { name, crc: zlib.crc32(body) >>> 0, csize: comp.length, usize: body.length, offset: 0 };
  const d = descriptor(e);
  const entries: Entry[] = [];
  for (let i = 0; i < copies; i++) entries.push({ ...e, name: `${i}-${name}`, offset: i * shift });
  const at = lh.length + comp.length + d.length;
  return Buffer.concat([lh, comp, d, central(entries, at)]);
}
