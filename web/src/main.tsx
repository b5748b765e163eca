/** Entry: theme and branding first (no flash), then the session and the language, then the app. */
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { config } from './config';
import { initSession } from './features/auth/session';
import { prefetchAfterSession, prefetchBeforeSession } from './features/files/prefetch';
import { setLanguage } from './i18n';
import { chooseLanguage } from './i18n/languages';
import { brandAccent } from './lib/color';
import { useSession } from './stores/session';
import { startTheme } from './stores/theme';
import './styles/base.css';

startTheme();
const accent = brandAccent(config.Color);
if (accent) {
  document.documentElement.style.setProperty('--brand', accent.accent);
  document.documentElement.style.setProperty('--on-brand', accent.onAccent);
}

// A /files link opened with a session to restore: the listing (prefetch.ts) and the route's code
// load while the session and the language do.
const filesPath = prefetchBeforeSession();
if (filesPath !== null) {
  // The router imports them again and gets the same modules; a failure shows there.
  import('./app/Layout').catch(() => undefined);
  import('./pages/FilesPage').catch(() => undefined);
}

async function start() {
  await initSession();
  prefetchAfterSession(filesPath);
  await setLanguage(chooseLanguage(useSession.getState().user?.locale, navigator.languages));
  const root = document.getElementById('root');
  if (!root) throw new Error('#root missing');
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}

void start();
