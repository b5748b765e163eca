/** The root route: the page, the prompt stack, toasts; keeps language and session in step. */
import { useEffect } from 'react';
import { Outlet } from 'react-router';
import { PromptHost } from '../features/prompts/PromptHost';
import { ToastHost } from '../features/toasts/ToastHost';
import { setLanguage } from '../i18n';
import { chooseLanguage } from '../i18n/languages';
import { usePrompts } from '../stores/prompts';
import { useSession } from '../stores/session';

// setTimeout's longest delay; a later expiry is checked again when it fires.
const MAX_DELAY = 2 ** 31 - 1;

export function Root({ onExpired }: { onExpired: () => void }) {
  const locale = useSession((s) => s.user?.locale);
  const signedIn = useSession((s) => s.user !== null);
  const expiresAt = useSession((s) => s.expiresAt);
  const promptOpen = usePrompts((s) => s.stack.length > 0);

  // spec: the user's language setting, else the browser's.
  useEffect(() => {
    void setLanguage(chooseLanguage(locale, navigator.languages));
  }, [locale, signedIn]);

  // docs/api.md §2.1: the token's exp drives an inactivity logout; each renewal moves it.
  useEffect(() => {
    if (!expiresAt) return;
    const timer = setTimeout(
      () => {
        if (Date.now() >= expiresAt) onExpired();
      },
      Math.min(MAX_DELAY, Math.max(0, expiresAt - Date.now())),
    );
    return () => clearTimeout(timer);
  }, [expiresAt, onExpired]);

  return (
    <>
      {/* Behind an open prompt the page is inert: focus and clicks stay in the prompt. */}
      <div className="page" inert={promptOpen}>
        <Outlet />
      </div>
      <PromptHost />
      <ToastHost />
    </>
  );
}
