/** The part of archiver 8 (streamed ZIP writing; it ships no types) that Rondo uses. */
declare module 'archiver' {
  import { Transform, type Readable } from 'node:stream';
  export class ZipArchive extends Transform {
    constructor(options?: { zlib?: { level?: number }; store?: boolean });
    append(source: Buffer | string | Readable, data: { name: string; date?: Date }): this;
    finalize(): Promise<void>;
    abort(): this;
  }
}
