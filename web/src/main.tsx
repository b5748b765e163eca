/** Entry: theme and branding first (no flash), then the session and the language, then the app. */
// First: a cold load of a /files link starts its listing before the rest is evaluated.
import { coldFilesPath } from './coldLoad';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './app/App';
import { config } from './config';
import { initSession } from './features/auth/session';
import { prefetchAfterSession } from './features/files/prefetch';
import { preloadLanguage, setLanguage } from './i18n';
import { chooseLanguage } from './i18n/languages';
import { brandAccent } from './lib/color';
import { storedUserGuess, useSession } from './stores/session';
import { startTheme } from './stores/theme';
import './styles/base.css';

startTheme();
const accent = brandAccent(config.Color);
if (accent) {
  document.documentElement.style.setProperty('--brand', accent.accent);
  document.documentElement.style.setProperty('--on-brand', accent.onAccent);
}

async function start() {
  // The stored session's language (most often still the user's) loads while it is renewed.
  preloadLanguage(chooseLanguage(storedUserGuess()?.locale, navigator.languages));
  await initSession();
  prefetchAfterSession(coldFilesPath);
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
