/** The app shell: header, sidebar (a drawer on phones), the page, the search entry point. */
import { QueryClientProvider } from '@tanstack/react-query';
import { useCallback, useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation, useMatch, useNavigate } from 'react-router';
import { logout } from '../features/auth/session';
import { showHelp } from '../features/prompts/HelpPrompt';
import { openSearch } from '../features/search/SearchPrompt';
import { Header } from '../features/shell/Header';
import { Sidebar } from '../features/shell/Sidebar';
import { TerminalDock } from '../features/terminal/TerminalPanel';
import { UploadPanel } from '../features/upload/UploadPanel';
import { JobsPanel } from '../features/jobs/JobsPanel';
import { UploadProgressBar } from '../features/upload/UploadProgressBar';
import { folderOf, virtualPathOf } from '../lib/paths';
import { closeAllPrompts, usePrompts } from '../stores/prompts';
import { useSession } from '../stores/session';
import '../styles/shell.css';
import { queryClient } from './queryClient';

export default function Layout() {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const { pathname } = useLocation();
  const signedIn = useSession((s) => s.user !== null);
  const files = useMatch('/files/*');
  const folder = files ? folderOf(virtualPathOf(files.params['*'])) : null;
  // The drawer belongs to the page it was opened on: navigating closes it.
  const [drawerOn, setDrawerOn] = useState<string | null>(null);
  const drawerOpen = drawerOn === pathname;
  const closeDrawer = useCallback(() => setDrawerOn(null), []);
  const promptOpen = usePrompts((s) => s.stack.length > 0);

  const search = useCallback(() => {
    closeDrawer();
    void openSearch(folder ?? '/');
  }, [folder, closeDrawer]);

  useEffect(() => {
    if (!signedIn) return;
    function handleKeyDown(e: KeyboardEvent) {
      if (promptOpen) return;
      if ((e.ctrlKey || e.metaKey) && e.shiftKey && e.key.toLowerCase() === 'f') {
        e.preventDefault();
        search();
      } else if (e.key === 'F1') {
        e.preventDefault();
        void showHelp();
      }
    }
    window.addEventListener('keydown', handleKeyDown);
    return () => window.removeEventListener('keydown', handleKeyDown);
  }, [signedIn, promptOpen, search]);

  async function handleLogout() {
    closeDrawer();
    closeAllPrompts();
    const next = await logout();
    queryClient.clear();
    if ('reload' in next) window.location.reload();
    else if ('href' in next) window.location.assign(next.href);
    else await navigate(next.route, { replace: true });
  }

  return (
    // Server data is only needed inside the shell: TanStack Query stays out of the login bundle.
    <QueryClientProvider client={queryClient}>
      <div className={drawerOpen ? 'shell shell--drawer' : 'shell'}>
        <a className="skip-link" href="#main">
          {t('common.skipToContent')}
        </a>
        <Header
          menuOpen={drawerOpen}
          onMenu={() => setDrawerOn(pathname)}
          onSearch={signedIn ? search : undefined}
        />
        <Sidebar
          open={drawerOpen}
          onClose={closeDrawer}
          onLogout={() => void handleLogout()}
          folder={folder}
        />
        {drawerOpen ? (
          <button
            type="button"
            className="drawer-backdrop"
            tabIndex={-1}
            aria-hidden="true"
            onClick={closeDrawer}
          />
        ) : null}
        <main id="main" className="shell__main" tabIndex={-1}>
          <Outlet />
        </main>
        {signedIn ? <TerminalDock folder={folder ?? '/'} /> : null}
        <UploadProgressBar />
        <div className="corner-panels">
          {signedIn ? <JobsPanel /> : null}
          <UploadPanel />
        </div>
      </div>
    </QueryClientProvider>
  );
}
