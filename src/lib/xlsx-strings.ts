/**
 * The shared strings table of a workbook, held compactly: UTF-8 in 1 MiB slabs plus three
 * integer arrays (about 12 bytes per string beside its text) instead of a JS string each.
 */
const SLAB = 1024 * 1024;

/** Strings as UTF-8 in 1 MiB slabs: ~12 bytes of overhead per string instead of a JS string each. */
export class StringTable {
  private slabs: Buffer[] = [Buffer.allocUnsafe(SLAB)];
  private cur = 0;
  private pos = 0;
  private slab = new Uint32Array(1024);
  private start = new Uint32Array(1024);
  private len = new Uint32Array(1024);
  n = 0;
  bytes = 0;

  add(s: string): void {
    if (this.n === this.slab.length) {
      const grow = (a: Uint32Array) => {
        const b = new Uint32Array(a.length * 2);
        b.set(a);
        return b;
      };
      this.slab = grow(this.slab);
      this.start = grow(this.start);
      this.len = grow(this.len);
    }
    const size = Buffer.byteLength(s);
    if (size > SLAB / 4) {
      // a long string gets a buffer of its own; the current slab stays current
      this.slabs.push(Buffer.from(s));
      this.slab[this.n] = this.slabs.length - 1;
      this.start[this.n] = 0;
    } else {
      if (this.pos + size > SLAB) {
        this.slabs.push(Buffer.allocUnsafe(SLAB));
        this.cur = this.slabs.length - 1;
        this.pos = 0;
      }
      this.slabs[this.cur]!.write(s, this.pos);
      this.slab[this.n] = this.cur;
      this.start[this.n] = this.pos;
      this.pos += size;
    }
    this.len[this.n] = size;
    this.n++;
    this.bytes += size;
  }

  get(i: number): string | undefined {
    if (i < 0 || i >= this.n) return undefined;
    const s = this.start[i]!;
    return this.slabs[this.slab[i]!]!.toString('utf8', s, s + this.len[i]!);
  }
}
