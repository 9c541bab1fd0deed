/**
 * Overlapping zip entries. A zip's central directory says where each entry's data lies; an
 * honest archive stores each entry once, one after the other. A crafted one points many
 * entries at the same bytes (or into each other's data), so a small file expands to the same
 * data counted over and over, past any per-entry ratio check. Such an archive is refused.
 *
 * Each entry occupies at least its 30-byte local header plus its compressed size from its
 * local header offset (its name and extra field only add to that), so two entries whose
 * minimal ranges overlap cannot both be real. Entries must also lie inside the archive.
 */

export interface ZipEntryRange {
  path: string;
  offsetToLocalFileHeader: number;
  compressedSize: number;
}

const LOCAL_HEADER_BYTES = 30;

/** Why the entries cannot all be real (overlapping or outside the archive), or null when they can. */
export function zipLayoutProblem(entries: readonly ZipEntryRange[], archiveSize: number): string | null {
  const ranges = entries
    .map((e) => ({ path: e.path, start: e.offsetToLocalFileHeader, end: e.offsetToLocalFileHeader + LOCAL_HEADER_BYTES + e.compressedSize }))
    .sort((a, b) => a.start - b.start || a.end - b.end);
  for (let i = 0; i < ranges.length; i++) {
    const r = ranges[i]!;
    if (!Number.isFinite(r.start) || r.start < 0 || r.end > archiveSize) return `entry "${r.path}" points outside the archive`;
    const next = ranges[i + 1];
    if (next && next.start < r.end) return `entries "${r.path}" and "${next.path}" share the same data (overlapping entries)`;
  }
  return null;
}
