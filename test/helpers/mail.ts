import fs from 'node:fs/promises';
import path from 'node:path';

/** Mails the file mailer wrote for `to`, oldest first (decoded quoted-printable bodies). */
export async function mailsTo(dataDir: string, to: string): Promise<string[]> {
  const dir = path.join(dataDir, 'mail');
  const files = (await fs.readdir(dir).catch(() => [] as string[])).sort();
  const out: string[] = [];
  for (const f of files) {
    const raw = await fs.readFile(path.join(dir, f), 'utf8');
    const decoded = raw.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
    if (new RegExp(`^To: .*${to.replace(/[.+]/g, '\\$&')}`, 'mi').test(decoded)) out.push(decoded);
  }
  return out;
}
