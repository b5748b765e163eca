/** The route table of docs/client.md §2. Only the login screen is in the first bundle; the rest load on demand. */
import { createBrowserRouter, Navigate, type RouteObject } from 'react-router';
import { config } from '../config';
import { Spinner } from '../components/Spinner';
import { i18n, loadLateEnglish } from '../i18n';
import LoginPage from '../pages/LoginPage';
import { RedirectToFiles, RequireAdmin, RequireAuth, SignedOutOnly } from './guards';
import { Root } from './Root';
import { RouteError } from './RouteError';

function PageSpinner() {
  return <Spinner label={i18n.t('common.loading')} />;
}

// The signed-in shell, with English's settings and users words (i18n loadLateEnglish), which the
// login screen does without.
const layout = () => Promise.all([import('./Layout'), loadLateEnglish()]).then(([m]) => ({ Component: m.default }));
const errorPage = (code: 403 | 404 | 500) => () =>
  import('../pages/ErrorPage').then((m) => ({ Component: () => <m.default code={code} /> }));

export function routes(onExpired: () => void): RouteObject[] {
  return [
    {
      element: <Root onExpired={onExpired} />,
      errorElement: <RouteError />,
      HydrateFallback: PageSpinner,
      children: [
        {
          path: 'login',
          element: (
            <SignedOutOnly>
              <LoginPage />
            </SignedOutOnly>
          ),
        },
        {
          lazy: layout,
          children: [
            { path: '403', lazy: errorPage(403) },
            { path: '404', lazy: errorPage(404) },
            { path: '500', lazy: errorPage(500) },
            // No login needed (docs/client.md §2 route table): visitors and signed-in users alike.
            {
              path: 'share/*',
              lazy: () => import('../pages/SharePage').then((m) => ({ Component: m.default })),
            },
            {
              element: <RequireAuth />,
              children: [
                {
                  path: 'files/*',
                  lazy: () => import('../pages/FilesPage').then((m) => ({ Component: m.default })),
                },
                {
                  path: 'usage/*',
                  lazy: () => import('../pages/DiskUsagePage').then((m) => ({ Component: m.default })),
                },
                {
                  path: 'trash',
                  lazy: () => import('../pages/TrashPage').then((m) => ({ Component: m.default })),
                },
                {
                  path: 'settings',
                  lazy: () =>
                    import('../pages/settings/SettingsLayout').then((m) => ({ Component: m.default })),
                  children: [
                    { index: true, element: <Navigate to="/settings/profile" replace /> },
                    {
                      path: 'profile',
                      lazy: () =>
                        import('../pages/settings/ProfilePage').then((m) => ({ Component: m.default })),
                    },
                    {
                      path: 'shares',
                      lazy: () =>
                        import('../pages/settings/SharesPage').then((m) => ({ Component: m.default })),
                    },
                    {
                      element: <RequireAdmin />,
                      children: [
                        {
                          path: 'global',
                          lazy: () =>
                            import('../pages/settings/GlobalSettingsPage').then((m) => ({
                              Component: m.default,
                            })),
                        },
                        {
                          path: 'users',
                          lazy: () =>
                            import('../pages/settings/UsersPage').then((m) => ({ Component: m.default })),
                        },
                        {
                          path: 'users/:id',
                          lazy: () =>
                            import('../pages/settings/UserPage').then((m) => ({ Component: m.default })),
                        },
                      ],
                    },
                  ],
                },
              ],
            },
          ],
        },
        { index: true, element: <Navigate to="/files/" replace /> },
        { path: '*', element: <RedirectToFiles /> },
      ],
    },
  ];
}

export function createRouter(onExpired: () => void) {
  return createBrowserRouter(routes(onExpired), { basename: config.BaseURL || '/' });
}
