/** Route guards (spec §2 "Route guard"). */
import type { ReactNode } from 'react';
import { Navigate, Outlet, useLocation, useSearchParams } from 'react-router';
import { loginLocation, safeRedirect } from '../lib/redirect';
import { useSession } from '../stores/session';

/** Signed out → /login with a redirect back to the full target. */
export function RequireAuth() {
  const signedIn = useSession((s) => s.user !== null);
  const location = useLocation();
  if (!signedIn)
    return <Navigate to={loginLocation(location.pathname + location.search + location.hash)} replace />;
  return <Outlet />;
}

/** Not an admin → /403. */
export function RequireAdmin() {
  const admin = useSession((s) => s.user?.perm.admin ?? false);
  if (!admin) return <Navigate to="/403" replace />;
  return <Outlet />;
}

/**
 * The login screen is for signed-out users; a signed-in user goes on to the redirect target
 * (default /files/). This is also how a successful login leaves the screen.
 */
export function SignedOutOnly({ children }: { children: ReactNode }) {
  const signedIn = useSession((s) => s.user !== null);
  const [params] = useSearchParams();
  if (signedIn) return <Navigate to={safeRedirect(params.get('redirect'))} replace />;
  return children;
}

/** Any other path → /files/ plus the same path (spec §2 route table). */
export function RedirectToFiles() {
  const { pathname, search, hash } = useLocation();
  return <Navigate to={`/files${pathname}${search}${hash}`} replace />;
}
