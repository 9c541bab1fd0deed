/**
 * The reference service's progress events over Socket.io, on the API's own HTTP server
 * (path `/socket.io`), beside the server-sent events of `GET /file/{id}/events`.
 *
 * A client connects with `auth: {token}` (an access token or an API key of a member: any
 * other is refused at the handshake) and receives, for the statement files IT uploaded and
 * nobody else's, `file:processing:started`, `file:processing:progress` (each time the whole
 * progress passes a tenth), `file:processing:completed` and `file:processing:failed`, with
 * the payload of progress.ts.
 *
 * The channel is the one the server-sent events read: the `files` row the workers write,
 * wherever they run (API and workers are separate processes in production). One watcher per
 * API process reads, every half second and only while members are connected, the rows of
 * the files those members uploaded that are in flight, that it follows, or that were
 * uploaded in the last RECENT_MS since it began watching the workspace (one that ended
 * between two readings; the watch begins when the workspace's first member connects, by the
 * database's clock): one query per workspace, in the workspace's own transaction
 * (row-level security applies). The token is checked when a client connects.
 */
import type { Server as HttpServer } from 'node:http';
import { Server, type Socket } from 'socket.io';
import type { AppServices } from '../../services';
import { withTenant } from '../../db';
import { IN_FLIGHT_STATUSES } from '../../pipeline/registry';
import { nextEvents, PAYLOAD_COLUMNS, processingPayload, type Followed } from './progress';

/** How often the watcher reads the rows (the server-sent events' pace). */
export const WATCH_INTERVAL_MS = 500;
/**
 * A file is in flight from the moment it is registered; only one that ended between two
 * readings is found by its upload time: the uploads of the last two minutes are looked at.
 */
const RECENT_MS = 120_000;

interface Workspace {
  /** Connected members (tenant user ids) and their number of sockets. */
  members: Map<string, number>;
  /** The database's time when the workspace's first connected member connected. */
  since: Date;
  /** The oldest upload the current reading looks at besides those in flight and followed. */
  window: Date;
  files: Map<string, Followed>;
}

const room = (tenantUserId: string) => `member:${tenantUserId}`;

export interface ProgressSocket {
  io: Server;
  close(): Promise<void>;
}

/** Attach the Socket.io server to the API's HTTP server. */
export function attachProgressSocket(server: HttpServer, svc: AppServices): ProgressSocket {
  const origins = svc.cfg.corsOrigins;
  const io = new Server(server, {
    serveClient: false,
    cors: { origin: origins.includes('*') ? '*' : origins.filter((o) => o !== '*'), methods: ['GET', 'POST'] },
  });
  const workspaces = new Map<number, Workspace>();

  io.use((socket, next) => {
    const token = (socket.handshake.auth as { token?: unknown } | undefined)?.token;
    if (typeof token !== 'string' || !token) return next(new Error('Unauthorized: an access token is required in auth.token'));
    svc.auth
      .authenticate({ authorization: `Bearer ${token}` }, 'user')
      .then((auth) => {
        if (auth.tenantId == null || !auth.tenantUserId) return next(new Error('Unauthorized: the token names no member of a workspace'));
        socket.data.tenantId = auth.tenantId;
        socket.data.tenantUserId = auth.tenantUserId;
        // The database's time as the client connects, before it can upload anything: a file it
        // uploads next is never older than the watcher's window, however late the first reading.
        return svc.db.app.raw(`SELECT now() AS now`).then((r: { rows: { now: Date }[] }) => {
          socket.data.connectedAt = new Date(r.rows[0]!.now);
          next();
        });
      })
      .catch((err: Error) => next(new Error(`Unauthorized: ${err.message}`)));
  });

  io.on('connection', (socket: Socket) => {
    const tenantId = socket.data.tenantId as number;
    const member = socket.data.tenantUserId as string;
    void socket.join(room(member));
    let ws = workspaces.get(tenantId);
    const connectedAt = socket.data.connectedAt as Date;
    if (!ws) workspaces.set(tenantId, (ws = { members: new Map(), since: connectedAt, window: connectedAt, files: new Map() }));
    ws.members.set(member, (ws.members.get(member) ?? 0) + 1);
    socket.on('disconnect', () => {
      const w = workspaces.get(tenantId);
      if (!w) return;
      const n = (w.members.get(member) ?? 1) - 1;
      if (n > 0) w.members.set(member, n);
      else w.members.delete(member);
      if (!w.members.size) workspaces.delete(tenantId);
    });
  });

  /** One workspace's rows: what changed since the last read is sent to each file's uploader. */
  async function watch(tenantId: number, ws: Workspace): Promise<void> {
    const members = [...ws.members.keys()];
    const { rows, now } = await withTenant(svc.db.app, tenantId, async (trx) => {
      const [{ now }] = (await trx.raw(`SELECT now() AS now`)).rows as { now: Date }[];
      const q = trx('files')
        .whereIn('uploaded_by', members)
        .where((w) => w.whereNull('kind').orWhereNot('kind', 'archive')) // an archive's statements are files of their own
        .where((w) => {
          w.whereIn('status', IN_FLIGHT_STATUSES).orWhereIn('id', [...ws.files.keys()]);
          w.orWhere('created_at', '>=', ws.window);
        })
        .select([...PAYLOAD_COLUMNS, 'uploaded_by']);
      return { rows: await q, now };
    });
    ws.window = new Date(Math.max(ws.since.getTime(), new Date(now).getTime() - RECENT_MS));
    const seen = new Set<string>();
    for (const r of rows) {
      seen.add(r.id);
      const { followed, events } = nextEvents(ws.files.get(r.id), processingPayload(r, now));
      ws.files.set(r.id, followed);
      for (const [event, payload] of events) io.to(room(r.uploaded_by as string)).emit(event, payload);
      // Ended, and older than the next reading's window: no longer returned unless it runs again.
      if (followed.done && new Date(r.created_at) < ws.window) ws.files.delete(r.id);
    }
    // A followed file that is gone (deleted) is no longer followed.
    for (const id of ws.files.keys()) if (!seen.has(id)) ws.files.delete(id);
  }

  let busy = false;
  const timer = setInterval(() => {
    if (busy || !workspaces.size) return;
    busy = true;
    void Promise.all(
      [...workspaces.entries()].map(([tenantId, ws]) => watch(tenantId, ws).catch((err) => svc.log.warn({ err, tenantId }, 'progress watcher failed'))),
    ).finally(() => (busy = false));
  }, WATCH_INTERVAL_MS);
  timer.unref();

  return {
    io,
    async close() {
      clearInterval(timer);
      workspaces.clear();
      io.disconnectSockets(true);
      // not io.close(): that closes the HTTP server too, which is its owner's to close
      io.engine.close();
    },
  };
}
