/** Route guards (docs/client.md §2 "Route guard"). */
import type { ReactNode } from 'react';
import { useMustEnrol } from '../features/settings/useMustEnrol';
import { Navigate, Outlet, useLocation, useSearchParams } from 'react-router';
import { loginLocation, safeRedirect } from '../lib/redirect';
import { useSession } from '../stores/session';

/** The profile, where a second factor is set up (docs/api.md §2.12). */
const ENROLMENT_PATH = '/settings/profile';

/**
 * Signed out → /login with a redirect back to the full target. A user the server requires to have
 * a second factor and who has none (--require-second-factor) can only set it up: → the profile.
 */
export function RequireAuth() {
  const signedIn = useSession((s) => s.user !== null);
  const location = useLocation();
  const mustEnrol = useMustEnrol();
  if (!signedIn)
    return <Navigate to={loginLocation(location.pathname + location.search + location.hash)} replace />;
  if (mustEnrol && location.pathname !== ENROLMENT_PATH) return <Navigate to={ENROLMENT_PATH} replace />;
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

/** Any other path → /files/ plus the same path (docs/client.md §2 route table). */
export function RedirectToFiles() {
  const { pathname, search, hash } = useLocation();
  return <Navigate to={`/files${pathname}${search}${hash}`} replace />;
}
