/**
 * Sandbox distributor: the delivery partner a workspace authorises with a token.
 *
 *   Authorization: Bearer <token>     any token is accepted except one starting `revoked_` (401),
 *                                     so a test can see a credential turn invalid
 *   GET /v1/me                        {data:{accountId, name}}
 *   GET /v1/releases?query&page&per_page
 *        {data:[{id, title, artist, upc, releaseDate, label, tracks:[{isrc, title, durationSeconds}]}], meta:{page, per_page, total}}
 *
 * Deliveries it makes to a workspace are signed with the workspace's webhook secret:
 * `x-distributor-signature: <hex HMAC-SHA256 of the raw body>` (`signDistributor`).
 */
import crypto from 'node:crypto';
import { FakeServer, SandboxError, bearer, json, pageOf, type SandboxRequest } from './http';

export const DISTRIBUTOR_RELEASES = [
  { id: 'dr_1', title: 'Night Drive', artist: 'Luna Vale', upc: '0886440000011', releaseDate: '2026-03-06', label: 'Moonlight Records', tracks: [{ isrc: 'USRC12600001', title: 'Night Drive', durationSeconds: 214 }, { isrc: 'USRC12600002', title: 'Neon Rain', durationSeconds: 189 }] },
  { id: 'dr_2', title: 'Harbour Lights', artist: 'The Quays', upc: '0886440000028', releaseDate: '2026-05-22', label: 'Moonlight Records', tracks: [{ isrc: 'USRC12600003', title: 'Harbour Lights', durationSeconds: 243 }] },
  { id: 'dr_3', title: 'Ama', artist: 'Kofi Mensah', upc: '0886440000035', releaseDate: '2026-08-14', label: 'Moonlight Records', tracks: [{ isrc: 'USRC12600004', title: 'Ama', durationSeconds: 201 }, { isrc: 'USRC12600005', title: 'Sankofa', durationSeconds: 256 }] },
];

export function signDistributor(raw: string, secret: string): string {
  return crypto.createHmac('sha256', secret).update(raw).digest('hex');
}

export class FakeDistributor extends FakeServer {
  constructor() {
    super('distributor');
    this.on('GET', '/v1/me', (r) => {
      const t = this.token(r);
      return json(200, { data: { accountId: `dist_${crypto.createHash('sha256').update(t).digest('hex').slice(0, 8)}`, name: 'Sandbox distributor account' } });
    });
    this.on('GET', '/v1/releases', (r) => {
      this.token(r);
      const q = (r.query.get('query') ?? '').toLowerCase();
      const hits = DISTRIBUTOR_RELEASES.filter((x) => !q || `${x.title} ${x.artist} ${x.upc}`.toLowerCase().includes(q));
      return json(200, pageOf(r, hits));
    });
  }

  private token(r: SandboxRequest): string {
    const t = bearer(r);
    if (t.startsWith('revoked_')) throw new SandboxError(401, { error: 'invalid_token', message: 'Token revoked' });
    return t;
  }
}
