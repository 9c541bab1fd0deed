/** Sign-in and the pages the e-mails link to: set password, reset password, sign-in link, invitation. */
import { useEffect, useState } from 'preact/hooks';
import { session, type Workspace, client, ok, anonymous } from '../api';
import { ErrorBox, Field, Link, Notice, navigate, param, useAction, useLoad } from '../ui';

interface Props { onSignedIn: () => void }

/**
 * Signed in: into `into` (the workspace an invitation came from), else the one chosen before,
 * else the first; then to the page the person was on their way to (`?next=`), else home.
 */
function afterLogin(refresh: string | null, workspaces: Workspace[], p: Props, into?: string | null) {
  const prev = into ?? session.workspace;
  const ws = workspaces.find((w) => w.workspaceId === prev) ?? workspaces[0];
  session.start(refresh, ws?.workspaceId);
  p.onSignedIn();
  navigate(nextPage(), true);
}

/** The app page a sign-in returns to: `?next=/app/...` of the current address (only this app's pages). */
function nextPage(): string {
  const next = param('next');
  return next && /^\/app\/[\w-]/.test(next) && !next.startsWith('//') ? next : '/';
}

/** Accepting an invitation answers like a sign-in, with the workspace that invited the person. */
interface Accepted { refresh_token: string; workspaces: Workspace[]; workspaceId: string | null }

function Card(p: { title: string; children: preact.ComponentChildren }) {
  return (
    <div class="auth-card">
      <p class="brand">Rondo</p>
      <h1>{p.title}</h1>
      {p.children}
    </div>
  );
}

/** Why a social sign-in came back here (`/app/signin?error=CODE&provider=…`, set by the provider's callback). */
export function socialFailure(code: string, provider: string | null): string {
  const who = (provider ?? 'the provider').replace(/_/g, ' ');
  const why: Record<string, string> = {
    SOCIAL_CANCELLED: `Sign-in with ${who} was cancelled.`,
    SOCIAL_STATE_MISMATCH: `The sign-in with ${who} expired or was started in another browser. Please try again.`,
    SOCIAL_NO_ACCOUNT: `No Rondo account uses this ${who} sign-in. Ask a workspace admin for an invitation, or sign in with your e-mail and password.`,
    SOCIAL_CODE_REFUSED: `${who} did not confirm the sign-in. Please try again.`,
    SOCIAL_PROFILE_FAILED: `${who} did not tell us who you are. Please try again later.`,
    SOCIAL_ALREADY_LINKED: `This ${who} account is already linked to another Rondo user.`,
    PROVIDER_NOT_CONFIGURED: `Sign-in with ${who} is not available on this server.`,
  };
  return why[code] ?? `Sign-in with ${who} did not work. Please try again, or sign in with your e-mail and password.`;
}

function SignIn(p: Props) {
  const failed = param('error');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const a = useAction();
  const cfg = useLoad(() => fetch('/app/config.json').then((r) => r.json() as Promise<{ socialProviders: string[] }>), []);
  const submit = (e: Event) => {
    e.preventDefault();
    a.run(async () => {
      const r = await ok(client.POST('/auth/login', { body: { email, password }, ...anonymous }));
      afterLogin(r.refresh_token, r.workspaces, p);
    });
  };
  const back = encodeURIComponent('/app/signed-in');
  return (
    <Card title="Sign in">
      {failed ? <div class="error" role="alert" data-testid="social-error"><strong>{socialFailure(failed, param('provider'))}</strong></div> : null}
      <form onSubmit={submit} class="stack">
        <Field label="E-mail"><input type="email" name="email" autoComplete="username" required value={email} onInput={(e) => setEmail(e.currentTarget.value)} /></Field>
        <Field label="Password"><input type="password" name="password" autoComplete="current-password" required value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></Field>
        <ErrorBox error={a.error} />
        <button type="submit" class="primary" disabled={a.busy}>Sign in</button>
      </form>
      {cfg.data?.socialProviders.length ? (
        <div class="stack social">
          <p class="muted">Or continue with</p>
          {cfg.data.socialProviders.map((prov) => <a key={prov} class="button" href={`/auth/${prov}?redirect=${back}`}>Sign in with {prov.replace(/_/g, ' ')}</a>)}
        </div>
      ) : null}
      <p><Link to="/forgot-password">Forgot your password?</Link> · <Link to="/login-link">E-mail me a sign-in link</Link></p>
    </Card>
  );
}

/** Where a social sign-in returns: the refresh token is in an httpOnly cookie. */
function SignedIn(p: Props) {
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    session.start(null);
    ok(client.GET('/auth', { ...anonymous })) // the httpOnly refresh cookie answers
      .then((r) => afterLogin(null, 'data' in r ? r.data.workspaces : r.workspaces, p))
      .catch((e) => { session.clear(); setError(e); });
  }, []);
  return <Card title="Signing in…">{error ? <><ErrorBox error={error} /><Link to="/signin">Back to sign-in</Link></> : <p role="status">One moment.</p>}</Card>;
}

function LoginLink(p: Props) {
  const token = param('token');
  const [email, setEmail] = useState('');
  const a = useAction();
  useEffect(() => {
    if (!token) return;
    a.run(async () => {
      const r = await ok(client.GET('/auth', { params: { query: { token: token } }, ...anonymous }));
      if (!('refresh_token' in r)) throw new Error('This sign-in link did not sign you in: ask for a new one.');
      afterLogin(r.refresh_token, r.workspaces, p);
    });
  }, [token]);
  if (token) return <Card title="Signing in with your link">{a.error ? <><ErrorBox error={a.error} /><Link to="/signin">Back to sign-in</Link></> : <p role="status">One moment.</p>}</Card>;
  return (
    <Card title="Sign in by e-mail">
      <form class="stack" onSubmit={(e) => { e.preventDefault(); a.run(async () => { await ok(client.POST('/auth/loginlink', { body: { email }, ...anonymous })); return 'If the address is registered, a sign-in link is on its way.'; }); }}>
        <Field label="E-mail"><input type="email" required autoComplete="username" value={email} onInput={(e) => setEmail(e.currentTarget.value)} /></Field>
        <ErrorBox error={a.error} /><Notice text={a.done} />
        <button type="submit" class="primary" disabled={a.busy}>Send the link</button>
      </form>
      <p><Link to="/signin">Back to sign-in</Link></p>
    </Card>
  );
}

function ForgotPassword() {
  const [email, setEmail] = useState('');
  const a = useAction();
  return (
    <Card title="Forgot your password?">
      <form class="stack" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
        await ok(client.POST('/auth/forgotpassword', { body: { email }, ...anonymous }));
        return 'If the address is registered, an e-mail with a code and a link is on its way.';
      }); }}>
        <Field label="E-mail"><input type="email" required autoComplete="username" value={email} onInput={(e) => setEmail(e.currentTarget.value)} /></Field>
        <ErrorBox error={a.error} /><Notice text={a.done} />
        <button type="submit" class="primary" disabled={a.busy}>Send</button>
      </form>
      <p><Link to="/reset-password">I have a code</Link> · <Link to="/signin">Back to sign-in</Link></p>
    </Card>
  );
}

function ResetPassword() {
  const [email, setEmail] = useState(param('email') ?? '');
  const [code, setCode] = useState(param('code') ?? '');
  const [password, setPassword] = useState('');
  const a = useAction();
  const token = param('token');
  return (
    <Card title="Choose a new password">
      {!token ? <p class="error" role="alert">This page needs the link from the reset e-mail; start again from “Forgot your password?” if you have none.</p> : null}
      <form class="stack" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
        await ok(client.PATCH('/auth/resetpassword', { params: { query: { code: code } }, body: { email, new_password: password }, headers: { authorization: `Bearer ${token}` } }));
        return 'Your password has been changed. Sign in with it now.';
      }); }}>
        <Field label="E-mail"><input type="email" required autoComplete="username" value={email} onInput={(e) => setEmail(e.currentTarget.value)} /></Field>
        <Field label="Verification code"><input type="text" required inputMode="numeric" autoComplete="one-time-code" value={code} onInput={(e) => setCode(e.currentTarget.value)} /></Field>
        <Field label="New password" hint="At least 8 characters"><input type="password" required minLength={8} autoComplete="new-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></Field>
        <ErrorBox error={a.error} /><Notice text={a.done} />
        <button type="submit" class="primary" disabled={a.busy || !token}>Change password</button>
      </form>
      <p><Link to="/signin">Sign in</Link></p>
    </Card>
  );
}

function SetPassword(p: Props) {
  const token = param('token');
  const [password, setPassword] = useState('');
  const [again, setAgain] = useState('');
  const a = useAction();
  return (
    <Card title="Welcome: choose your password">
      <p>Choose the password you will sign in with. You are then signed in to the workspace that invited you.</p>
      {!token ? <p class="error" role="alert">This page needs the link from your invitation e-mail.</p> : null}
      <form class="stack" onSubmit={(e) => { e.preventDefault(); a.run(async () => {
        if (password !== again) throw new Error('The two passwords differ');
        const r = await ok(client.POST('/auth/setpassword', { body: { password }, headers: { authorization: `Bearer ${token}` } }));
        afterLogin(r.refresh_token, r.workspaces, p, r.workspaceId);
      }); }}>
        <Field label="Password" hint="At least 8 characters"><input type="password" required minLength={8} autoComplete="new-password" value={password} onInput={(e) => setPassword(e.currentTarget.value)} /></Field>
        <Field label="Password again"><input type="password" required minLength={8} autoComplete="new-password" value={again} onInput={(e) => setAgain(e.currentTarget.value)} /></Field>
        <ErrorBox error={a.error} /><Notice text={a.done} />
        <button type="submit" class="primary" disabled={a.busy || !token}>Set password</button>
      </form>
      <p><Link to="/signin">Sign in</Link></p>
    </Card>
  );
}

/** An invitation for someone who already has a password: accepting needs no new one. */
function AcceptInvitation(p: Props) {
  const token = param('token');
  const a = useAction();
  return (
    <Card title="Join the workspace">
      <p>You were invited to a workspace on Rondo. Accept to join it; you keep the password you already have.</p>
      {!token ? <p class="error" role="alert">This page needs the link from your invitation e-mail.</p> : null}
      <ErrorBox error={a.error} /><Notice text={a.done} />
      <button type="button" class="primary" disabled={a.busy || !token} onClick={() => a.run(async () => {
        const r = await ok(client.POST('/auth/acceptinvite', { headers: { authorization: `Bearer ${token}` } }));
        afterLogin(r.refresh_token, r.workspaces, p, r.workspaceId);
      })}>Accept the invitation</button>
      <p><Link to="/signin">Sign in</Link></p>
    </Card>
  );
}

export const AUTH_PAGES: Record<string, (p: Props) => preact.JSX.Element> = {
  '/signin': SignIn,
  '/signed-in': SignedIn,
  '/login-link': LoginLink,
  '/forgot-password': () => <ForgotPassword />,
  '/reset-password': () => <ResetPassword />,
  '/set-password': SetPassword,
  '/accept-invitation': AcceptInvitation,
};
