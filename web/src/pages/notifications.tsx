/** The notification centre: what happened, unread first in the header's count; mark read; how each kind reaches you. */
import { useEffect, useState } from 'preact/hooks';
import { client, ok } from '../api';
import { useApp } from '../state';
import { ErrorBox, Link, Loading, Notice, Section, date, param, useAction, useLoad } from '../ui';

interface Note { id: string; type: string; title: string; content: string | null; resourceType: string | null; resourceId: string | null; isRead: boolean; isImportant?: boolean; createdAt: string }
interface Prefs { channels: Record<string, boolean>; types: Record<string, Record<string, boolean>>; smsNumber: string | null }

const CHANNELS: [string, string][] = [['inApp', 'In Rondo'], ['email', 'E-mail'], ['sms', 'Text message'], ['push', 'Browser notification']];

/** Kinds of notification a person may tune, in their words. */
const KINDS: [string, string][] = [
  ['statement.issued', 'A statement is ready for me'],
  ['payment.completed', 'A payment to me was completed'],
  ['payment.failed', 'A payment to me failed'],
  ['royalty.file.processed', 'A statement file I uploaded was read'],
  ['royalty.file.failed', 'A statement file I uploaded could not be read'],
  ['invitation.sent', 'Someone was invited to the workspace'],
];

/** The app page a notification is about (the same pages its e-mail links to). */
export function pageOf(n: Pick<Note, 'resourceType' | 'resourceId'>, isAdmin: boolean): string | null {
  const id = encodeURIComponent(n.resourceId ?? '');
  switch (n.resourceType) {
    case 'file': return isAdmin ? `/statements?file=${id}` : null;
    case 'statement': return `/me?statement=${id}`;
    case 'payment': return `/me?payment=${id}`;
    case 'user': return isAdmin ? '/people' : null;
    default: return null;
  }
}

// every page's header count follows a change made on the notification page
const countListeners = new Set<() => void>();
const countChanged = () => countListeners.forEach((l) => l());

export function NotificationBell(p: { current: boolean }) {
  const [n, setN] = useState<number | null>(null);
  useEffect(() => {
    let live = true;
    const load = () => ok(client.GET('/notifications/unread/count')).then((r) => live && setN(r.data.count), () => live && setN(null));
    load();
    countListeners.add(load);
    return () => { live = false; countListeners.delete(load); };
  }, []);
  const label = n ? `Notifications, ${n} unread` : 'Notifications';
  return (
    <Link to="/notifications" current={p.current} class="bell">
      <span aria-hidden="true">Notifications</span>{n ? <span class="count" aria-hidden="true" data-testid="unread-count">{n}</span> : null}
      <span class="visually-hidden">{label}</span>
    </Link>
  );
}

function List() {
  const { isAdmin } = useApp();
  const [unreadOnly, setUnreadOnly] = useState(false);
  const list = useLoad(() => ok(client.GET('/notifications', { params: { query: { pageSize: 50, ...(unreadOnly ? { unread: true } : {}) } } })), [unreadOnly]);
  const a = useAction();
  const focus = param('id');
  const notes = list.data?.data.notifications ?? [];
  const read = (n: Note) => a.run(async () => { await ok(client.PATCH('/notifications/{notificationId}/read', { params: { path: { notificationId: n.id } } })); list.reload(); countChanged(); });
  const readAll = () => a.run(async () => { await ok(client.PATCH('/notifications/mark-all-read')); list.reload(); countChanged(); return 'Every notification is marked read.'; });
  return (
    <Section title="What happened" actions={<div class="row tight">
      <label class="check"><input type="checkbox" checked={unreadOnly} onChange={(e) => setUnreadOnly(e.currentTarget.checked)} /> Unread only</label>
      <button type="button" onClick={readAll} disabled={a.busy}>Mark all read</button>
    </div>}>
      <Loading show={list.loading && !list.data} /><ErrorBox error={list.error ?? a.error} /><Notice text={a.done} />
      {notes.length === 0 && list.data ? <p class="muted">{unreadOnly ? 'Nothing unread.' : 'No notifications yet.'}</p> : null}
      <ul class="notes">
        {notes.map((n) => {
          const to = pageOf(n, isAdmin);
          return (
            <li key={n.id} class={`note${n.isRead ? '' : ' unread'}${focus === n.id ? ' focus' : ''}`} data-testid="notification">
              <div>
                <strong>{n.isRead ? null : <span class="visually-hidden">Unread: </span>}{n.title}</strong>
                {n.content ? <p>{n.content}</p> : null}
                <small class="muted">{date(n.createdAt)}</small>
              </div>
              <div class="row tight">
                {to ? <Link to={to}>Open</Link> : null}
                {n.isRead ? <span class="muted">Read</span> : <button type="button" disabled={a.busy} onClick={() => read(n)} aria-label={`Mark read: ${n.title}`}>Mark read</button>}
              </div>
            </li>
          );
        })}
      </ul>
    </Section>
  );
}

function Preferences() {
  const { isAdmin } = useApp();
  const loaded = useLoad(() => ok(client.GET('/notifications/preferences')), []);
  const [p, setP] = useState<Prefs | null>(null);
  const a = useAction();
  useEffect(() => { if (loaded.data) setP(loaded.data.data); }, [loaded.data]);
  const kinds = KINDS.filter(([t]) => isAdmin || !['invitation.sent', 'royalty.file.processed', 'royalty.file.failed'].includes(t));
  const typeOn = (t: string, c: string) => p!.types[t]?.[c] ?? p!.channels[c] ?? false;
  const setType = (t: string, c: string, v: boolean) => setP({ ...p!, types: { ...p!.types, [t]: { ...(p!.types[t] ?? {}), [c]: v } } });
  const save = (e: Event) => {
    e.preventDefault();
    a.run(async () => {
      const r = await ok(client.PUT('/notifications/preferences', { body: { channels: p!.channels, types: p!.types, smsNumber: p!.smsNumber || null } }));
      setP(r.data);
      return 'Your choices are saved.';
    });
  };
  return (
    <Section title="How you are told">
      <Loading show={loaded.loading && !p} /><ErrorBox error={loaded.error} />
      {p ? (
        <form class="stack" onSubmit={save}>
          <fieldset>
            <legend>Channels for everything</legend>
            {CHANNELS.map(([c, label]) => (
              <label class="check" key={c}><input type="checkbox" name={`channel-${c}`} checked={!!p.channels[c]} onChange={(e) => setP({ ...p, channels: { ...p.channels, [c]: e.currentTarget.checked } })} /> {label}</label>
            ))}
          </fieldset>
          <label class="field">
            <span>Mobile number for text messages</span>
            <input type="tel" autoComplete="tel" placeholder="+4512345678" value={p.smsNumber ?? ''} onInput={(e) => setP({ ...p, smsNumber: e.currentTarget.value })} />
            <small class="muted">In international form, starting with +.</small>
          </label>
          <div class="table-wrap" role="region" aria-label="Channels by kind" tabIndex={0}>
            <table>
              <caption>Channels by kind of notification</caption>
              <thead><tr><th scope="col">Kind</th>{CHANNELS.map(([c, label]) => <th scope="col" key={c}>{label}</th>)}</tr></thead>
              <tbody>
                {kinds.map(([t, label]) => (
                  <tr key={t}>
                    <th scope="row">{label}</th>
                    {CHANNELS.map(([c, cl]) => (
                      <td key={c} data-label={cl}><input type="checkbox" aria-label={`${label}: ${cl}`} checked={typeOn(t, c)} onChange={(e) => setType(t, c, e.currentTarget.checked)} /></td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <ErrorBox error={a.error} /><Notice text={a.done} />
          <div><button type="submit" class="primary" disabled={a.busy}>Save my choices</button></div>
        </form>
      ) : null}
    </Section>
  );
}

export function NotificationsPage() {
  return (
    <>
      <h1>Notifications</h1>
      <List />
      <Preferences />
    </>
  );
}
