/** /settings/*: the settings side menu (docs/client.md §2 "Settings side menu") around the section. */
import { useTranslation } from 'react-i18next';
import { NavLink, Outlet } from 'react-router';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { useSession } from '../../stores/session';

export default function SettingsLayout() {
  const { t } = useTranslation();
  const perm = useSession((s) => s.user?.perm);
  useDocumentTitle([t('titles.settings')]);
  const tab = ({ isActive }: { isActive: boolean }) => (isActive ? 'tab tab--active' : 'tab');
  return (
    <div className="settings">
      <nav className="tabs" aria-label={t('settings.menu')}>
        <NavLink to="/settings/profile" className={tab}>
          {t('settings.profile')}
        </NavLink>
        {perm?.share ? (
          <NavLink to="/settings/shares" className={tab}>
            {t('settings.shares')}
          </NavLink>
        ) : null}
        {perm?.admin ? (
          <>
            <NavLink to="/settings/global" className={tab}>
              {t('settings.global')}
            </NavLink>
            <NavLink to="/settings/users" className={tab}>
              {t('settings.users')}
            </NavLink>
          </>
        ) : null}
      </nav>
      <Outlet />
    </div>
  );
}
