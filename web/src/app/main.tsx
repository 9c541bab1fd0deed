import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import '../style.css';
import { session, type Branding, type Me, type Workspace, client, ok } from '../api';
import { AppCtx, ADMIN_ROLES, type AppState } from '../state';
import { ErrorBox, Link, Loading, navigate, useRoute } from '../ui';
import { AUTH_PAGES } from '../pages/auth';
import { StatementsPage } from '../pages/statements';
import { AnalyticsPage } from '../pages/analytics';
import { CataloguePage } from '../pages/catalogue';
import { SplitsPage } from '../pages/splits';
import { MoneyPage } from '../pages/money';
import { AdminPage } from '../pages/admin';
import { LayoutsPage } from '../pages/layouts';
import { PayeePage } from '../pages/payee';
import { PeoplePage } from '../pages/people';
import { NotificationBell, NotificationsPage } from '../pages/notifications';
import { SettingsPage } from '../pages/settings';
import { OperatorPage } from '../pages/operator';
import { KeysPage } from '../pages/keys';
import { DefaultsPage } from '../pages/defaults';

const ADMIN_NAV: [string, string][] = [
  ['/statements', 'Statements'],
  ['/analytics', 'Analytics'],
  ['/catalogue', 'Catalogue'],
  ['/splits', 'Splits'],
  ['/money', 'Money'],
  ['/admin', 'Admin'],
  ['/people', 'People'],
  ['/settings', 'Settings'],
  ['/defaults', 'Defaults'],
  ['/keys', 'API keys'],
];
const PAYEE_NAV: [string, string][] = [['/me', 'My earnings'], ['/keys', 'API keys']];
const OPERATOR_NAV: [string, string][] = [['/operator', 'Operator']];
const PAGES: Record<string, () => preact.JSX.Element> = {
  '/statements': StatementsPage,
  '/analytics': AnalyticsPage,
  '/catalogue': CataloguePage,
  '/splits': SplitsPage,
  '/money': MoneyPage,
  '/admin': AdminPage,
  '/layouts': LayoutsPage,
  '/me': PayeePage,
  '/people': PeoplePage,
  '/notifications': NotificationsPage,
  '/settings': SettingsPage,
  '/operator': OperatorPage,
  '/keys': KeysPage,
  '/defaults': DefaultsPage,
};
/** Pages every member but a guest reaches besides their navigation (the notification centre, from the header). */
const EVERYONE: string[] = ['/notifications'];

/** The header in the workspace's primary colour, its text dark or light for contrast (WCAG relative luminance). */
function headerColours(hex: string | null): Record<string, string> | undefined {
  if (!hex || !/^#[0-9a-f]{6}$/i.test(hex)) return undefined;
  const lin = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  const l = 0.2126 * lin(1) + 0.7152 * lin(3) + 0.0722 * lin(5);
  return { '--top-bg': hex, '--top-fg': l > 0.179 ? '#121a3a' : '#ffffff' };
}

function Shell() {
  const path = useRoute();
  const [state, setState] = useState<AppState | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [gen, setGen] = useState(0);
  const authPage = Object.hasOwn(AUTH_PAGES, path) ? AUTH_PAGES[path] : undefined;

  useEffect(() => {
    if (authPage || !session.signedIn()) return;
    let live = true;
    setError(null);
    (async () => {
      // one round trip: who is signed in (role, workspace), their workspaces and the header's
      // branding are asked together; the page renders only once all three are known, so a
      // role changed since the last visit never shows a page the person cannot use
      const [meAnswer, whoAmI, branding] = await Promise.all([
        ok(client.GET('/user')),
        ok(client.GET('/auth')),
        // the header shows the workspace's logo and primary colour; without them it stays Rondo's
        ok(client.GET('/settings/branding')).then((r) => (r.data.active ? r.data : null), () => null),
      ]);
      const me = meAnswer.data;
      const who = 'data' in whoAmI ? whoAmI.data : { workspaces: whoAmI.workspaces };
      if (!live) return;
      setState({
        me,
        workspaces: who.workspaces,
        branding,
        isAdmin: ADMIN_ROLES.includes(me.role),
        switchWorkspace: (id) => { session.setWorkspace(id); setState(null); setGen((g) => g + 1); navigate('/'); },
        signOut: async () => {
          try { await ok(client.POST('/auth/logout')); } catch { /* the session may be gone already */ }
          session.clear();
          setState(null);
          navigate('/signin');
        },
      });
    })().catch((e) => live && setError(e));
    return () => { live = false; };
  }, [authPage ? 'auth' : 'app', gen]);

  if (authPage) return <main id="main" class="auth-main">{authPage({ onSignedIn: () => { setState(null); setGen((g) => g + 1); } })}</main>;
  if (!session.signedIn()) {
    // back to this page (an e-mail's link) once signed in
    const here = location.pathname + location.search;
    queueMicrotask(() => navigate(path === '/' ? '/signin' : `/signin?next=${encodeURIComponent(here)}`, true));
    return null;
  }
  if (error) return <main id="main" class="auth-main"><ErrorBox error={error} /><p><button type="button" onClick={() => { session.clear(); navigate('/signin'); }}>Sign in again</button></p></main>;
  if (!state) return <main id="main"><Loading show /></main>;

  // the operator pages: super-admins only, whatever their role in this workspace
  const superAdmin = !!state.me.isSuperAdmin;
  const nav = [...(state.isAdmin ? ADMIN_NAV : PAYEE_NAV), ...(superAdmin ? OPERATOR_NAV : [])];
  let page = PAGES[path];
  const allowed = path === '/operator' ? superAdmin
    : state.isAdmin || PAYEE_NAV.some(([p]) => p === path) || (EVERYONE.includes(path) && state.me.role !== 'guest');
  if (!page || !allowed) {
    const home = state.isAdmin ? '/statements' : '/me';
    queueMicrotask(() => navigate(home, true)); // the home page in the address bar too
    page = PAGES[home];
  }
  const Page = page;
  return (
    <AppCtx.Provider value={state}>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top" style={headerColours(state.branding?.primaryColor ?? null)}>
        <span class="brand">
          {state.branding?.logo ? <img class="brand-logo" src={state.branding.logo.url} alt={`${state.me.workspace.name} logo`} data-testid="brand-logo" /> : null}
          Rondo
        </span>
        <nav aria-label="Main">
          <ul>{nav.map(([p, label]) => <li key={p}><Link to={p} current={p === path}>{label}</Link></li>)}</ul>
        </nav>
        <div class="who">
          <label class="field inline">
            <span>Workspace</span>
            <select value={state.me.workspace.workspaceId} onChange={(e) => state.switchWorkspace(e.currentTarget.value)}>
              {state.workspaces.map((w) => <option key={w.workspaceId} value={w.workspaceId}>{w.name}</option>)}
            </select>
          </label>
          {state.me.role !== 'guest' ? <NotificationBell current={path === '/notifications'} /> : null}
          <span class="muted" title={state.me.email}>{state.me.firstName ?? state.me.email} · {state.me.role}</span>
          <button type="button" onClick={state.signOut}>Sign out</button>
        </div>
      </header>
      <main id="main" tabIndex={-1}><Page key={`${path}:${gen}`} /></main>
    </AppCtx.Provider>
  );
}

render(<Shell />, document.getElementById('root')!);
