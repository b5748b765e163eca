/** The router; wires the API client's renewal and 401 handling to the session. */
import { RouterProvider } from 'react-router';
import { renewSession } from '../api/auth';
import { configureClient } from '../api/client';
import { loginLocation } from '../lib/redirect';
import { closeAllPrompts } from '../stores/prompts';
import { clearSession } from '../stores/session';
import { createRouter } from './router';

/** The session is over (401 or expiry): forget it and go to the login screen, then back here. */
function endSession() {
  clearSession();
  closeAllPrompts();
  // The query cache lives with the shell's code, which the login screen does not load.
  void import('./queryClient').then((m) => m.queryClient.clear());
  const { pathname, search, hash } = router.state.location;
  if (pathname === '/login') return;
  void router.navigate(loginLocation(pathname + search + hash), { replace: true });
}

const router = createRouter(endSession);

// A prompt belongs to the page it was opened on: leaving that page (a link, Back or Forward)
// dismisses every prompt, which also cancels a search still running in the overlay.
let shownPath = router.state.location.pathname;
router.subscribe((state) => {
  if (state.location.pathname === shownPath) return;
  shownPath = state.location.pathname;
  closeAllPrompts();
});

configureClient({
  onRenew: () => {
    renewSession().catch(() => undefined);
  },
  onUnauthorized: endSession,
});

export function App() {
  return <RouterProvider router={router} />;
}
