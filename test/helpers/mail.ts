import fs from 'node:fs/promises';
import path from 'node:path';
import { simpleParser } from 'mailparser';

/** Plain-text bodies of the mails the file mailer wrote for `to`, oldest first. */
export async function mailsTo(dataDir: string, to: string): Promise<string[]> {
  return (await mailPartsTo(dataDir, to)).map((m) => `Subject: ${m.subject}\n\n${m.text}`);
}

export interface ParsedMail { subject: string; text: string; html: string }

/** Every mail the file mailer wrote for `to`, oldest first, with its text and HTML parts. */
export async function mailPartsTo(dataDir: string, to: string): Promise<ParsedMail[]> {
  const dir = path.join(dataDir, 'mail');
  const files = (await fs.readdir(dir).catch(() => [] as string[])).sort();
  const out: ParsedMail[] = [];
  for (const f of files) {
    const parsed = await simpleParser(await fs.readFile(path.join(dir, f)));
    const rcpt = [parsed.to].flat().flatMap((a) => a?.value ?? []).map((v) => v.address?.toLowerCase());
    if (rcpt.includes(to.toLowerCase())) out.push({ subject: parsed.subject ?? '', text: parsed.text ?? '', html: typeof parsed.html === 'string' ? parsed.html : '' });
  }
  return out;
}
