/** Who is signed in, in which workspace: loaded once after sign-in, shared through a context. */
import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Branding, Me, Workspace } from './api';

export interface AppState {
  me: Me;
  workspaces: Workspace[];
  /** The workspace's branding, null when it has none applied (or it could not be read). */
  branding: Branding | null;
  isAdmin: boolean;
  switchWorkspace: (id: string) => void;
  signOut: () => void;
}
export const AppCtx = createContext<AppState | null>(null);
export function useApp(): AppState {
  const s = useContext(AppCtx);
  if (!s) throw new Error('not signed in');
  return s;
}
export const ADMIN_ROLES = ['owner', 'admin'];
