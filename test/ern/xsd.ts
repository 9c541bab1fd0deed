/** Validate XML against the published ERN 4.3 schema kept under test/fixtures/ddex/ern43 (xmllint compiled to WebAssembly). */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateXML, memoryPages } from 'xmllint-wasm';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/ddex/ern43');
let files: { schema: string; avs: string } | null = null;

export function ernXsd() {
  files ??= {
    schema: fs.readFileSync(path.join(dir, 'release-notification.xsd'), 'utf8'),
    avs: fs.readFileSync(path.join(dir, 'allowed-value-sets.xsd'), 'utf8'),
  };
  return files;
}

export async function validateErn(xml: string): Promise<{ valid: boolean; errors: string[] }> {
  const { schema, avs } = ernXsd();
  const r = await validateXML({
    xml: [{ fileName: 'message.xml', contents: xml }],
    schema: [{ fileName: 'release-notification.xsd', contents: schema }],
    preload: [{ fileName: 'allowed-value-sets.xsd', contents: avs }],
    initialMemoryPages: 256 * memoryPages.MiB / 16,
    maxMemoryPages: memoryPages.GiB,
  });
  return { valid: r.valid, errors: r.errors.map((e) => e.rawMessage) };
}
