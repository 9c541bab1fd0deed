/**
 * A webhook receiver a client would write, on loopback: it keeps every request (path, headers,
 * the raw body for signature checks, and the body parsed when it is JSON) and answers with the
 * status `answer(path)` gives (null: it never answers, so the sender's time limit ends it).
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedHook { path: string; headers: http.IncomingHttpHeaders; body: string; json: any }

export async function webhookReceiver(answer: (path: string) => number | null = () => 200) {
  const got: ReceivedHook[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown = null;
      try { json = JSON.parse(body); } catch { /* not JSON */ }
      const path = req.url ?? '';
      got.push({ path, headers: req.headers, body, json });
      const status = answer(path);
      if (status !== null) res.writeHead(status, { 'content-type': 'text/plain' }).end(status < 300 ? 'ok' : 'down');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { got, base, close: () => new Promise<void>((r) => { server.close(() => r()); server.closeAllConnections(); }) };
}
