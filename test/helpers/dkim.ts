/**
 * A DKIM verifier (RFC 6376, rsa-sha256, relaxed/relaxed canonicalization) written from the
 * RFC, independent of the signer: checks the body hash and the header signature of a raw
 * message against the public key a DNS record publishes.
 */
import crypto from 'node:crypto';

function splitMessage(raw: string): { headers: string[]; body: string } {
  const crlf = raw.replace(/\r?\n/g, '\r\n');
  const at = crlf.indexOf('\r\n\r\n');
  const head = crlf.slice(0, at);
  const body = crlf.slice(at + 4);
  // one entry per header field, continuation lines kept (unfolded by canonicalization)
  const headers: string[] = [];
  for (const line of head.split('\r\n')) {
    if (/^[ \t]/.test(line) && headers.length) headers[headers.length - 1] += `\r\n${line}`;
    else headers.push(line);
  }
  return { headers, body };
}

const relaxedHeader = (h: string) => {
  const i = h.indexOf(':');
  return `${h.slice(0, i).trim().toLowerCase()}:${h.slice(i + 1).replace(/\r\n/g, '').replace(/[ \t]+/g, ' ').trim()}`;
};

function relaxedBody(body: string): string {
  const lines = body.split('\r\n').map((l) => l.replace(/[ \t]+/g, ' ').replace(/ $/, ''));
  while (lines.length && lines[lines.length - 1] === '') lines.pop();
  return lines.length ? `${lines.join('\r\n')}\r\n` : '';
}

export interface DkimResult {
  domain: string;
  selector: string;
  signedHeaders: string[];
}

/** Throws unless the message's DKIM-Signature verifies with `publicKeyB64` (the record's p=). */
export function verifyDkim(raw: string, publicKeyB64: string): DkimResult {
  const { headers, body } = splitMessage(raw);
  const sigHeader = headers.find((h) => /^dkim-signature:/i.test(h));
  if (!sigHeader) throw new Error('no DKIM-Signature header');
  const tags = new Map(
    sigHeader
      .slice(sigHeader.indexOf(':') + 1)
      .split(';')
      .map((t) => t.replace(/\s+/g, ''))
      .filter(Boolean)
      .map((t) => [t.slice(0, t.indexOf('=')), t.slice(t.indexOf('=') + 1)] as const),
  );
  if (tags.get('a') !== 'rsa-sha256') throw new Error(`a=${tags.get('a')}`);
  if ((tags.get('c') ?? 'simple/simple') !== 'relaxed/relaxed') throw new Error(`c=${tags.get('c')}`);
  const bh = crypto.createHash('sha256').update(relaxedBody(body)).digest('base64');
  if (bh !== tags.get('bh')) throw new Error('body hash does not match');
  const names = tags.get('h')!.split(':').map((n) => n.toLowerCase());
  const pool = headers.filter((h) => h !== sigHeader);
  const signed: string[] = [];
  for (const name of names) {
    const i = pool.map((h) => h.slice(0, h.indexOf(':')).trim().toLowerCase()).lastIndexOf(name);
    if (i < 0) continue; // a listed but absent header signs as empty (nothing)
    signed.push(`${relaxedHeader(pool[i]!)}\r\n`);
    pool.splice(i, 1);
  }
  const sigNoB = relaxedHeader(sigHeader).replace(/(^|;)\s*b=[^;]*/, (m, p) => `${p}${m.slice(p.length).replace(/=.*/, '=')}`);
  const data = signed.join('') + sigNoB;
  const key = crypto.createPublicKey({ key: Buffer.from(publicKeyB64, 'base64'), format: 'der', type: 'spki' });
  if (!crypto.verify('sha256', Buffer.from(data), key, Buffer.from(tags.get('b')!, 'base64'))) throw new Error('signature does not verify');
  return { domain: tags.get('d')!, selector: tags.get('s')!, signedHeaders: names };
}
