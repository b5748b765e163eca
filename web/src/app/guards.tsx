/** Route guards (spec §2 "Route guard"). */
import type { ReactNode } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { loginLocation } from '../lib/redirect';
import { useSession } from '../stores/session';

/** Signed out → /login with a redirect back to the full target. */
export function RequireAuth() {
  const signedIn = useSession((s) => s.user !== null);
  const location = useLocation();
  if (!signedIn) return <Navigate to={loginLocation(location.pathname + location.search + location.hash)} replace />;
  return <Outlet />;
}

/** Not an admin → /403. */
export function RequireAdmin() {
  const admin = useSession((s) => s.user?.perm.admin ?? false);
  if (!admin) return <Navigate to="/403" replace />;
  return <Outlet />;
}

/** The login screen is for signed-out users; a signed-in user goes to /files/. */
export function SignedOutOnly({ children }: { children: ReactNode }) {
  const signedIn = useSession((s) => s.user !== null);
  if (signedIn) return <Navigate to="/files/" replace />;
  return children;
}

/** Any other path → /files/ plus the same path (spec §2 route table). */
export function RedirectToFiles() {
  const { pathname, search, hash } = useLocation();
  return <Navigate to={`/files${pathname}${search}${hash}`} replace />;
}
