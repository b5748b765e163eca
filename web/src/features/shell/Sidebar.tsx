/**
 * Navigation (docs/client.md §2 "Sidebar"): the user, My files, Trash (when on), New folder and New file on file
 * screens (with the create permission), Settings for admins, Logout; Login and Signup when signed
 * out; storage on file screens; version and help. A drawer on phones.
 */
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, NavLink, useLocation } from 'react-router';
import { Icon, type IconName } from '../../components/Icon';
import { IconButton } from '../../components/IconButton';
import { canLogout, config, externalUrl } from '../../config';
import { usageRoute } from '../../lib/paths';
import { loginLocation } from '../../lib/redirect';
import { useSession } from '../../stores/session';
import { useNewItem } from '../files/newItem';
import { showHelp } from '../prompts/HelpPrompt';
import { useClearOfToasts } from '../toasts/clearance';
import { UsageBar } from './UsageBar';

/** New folder and New file, as in the file browser's toolbar. */
const CREATE = [
  { dir: true, icon: 'folderPlus', label: 'files.actions.newFolder' },
  { dir: false, icon: 'filePlus', label: 'files.actions.newFile' },
] as const;

const navItemClass = ({ isActive }: { isActive: boolean }) => (isActive ? 'nav-item nav-item--active' : 'nav-item');

/** One link of the list: an icon and its label, marked while its route is shown. */
function NavEntry({ to, icon, label, onClick }: { to: string; icon: IconName; label: string; onClick: () => void }) {
  return (
    <li>
      <NavLink to={to} className={navItemClass} onClick={onClick}>
        <Icon name={icon} />
        <span className="nav-item__text">{label}</span>
      </NavLink>
    </li>
  );
}

export interface SidebarProps {
  /** Drawer state; only matters at phone widths. */
  open: boolean;
  onClose: () => void;
  onLogout: () => void;
  /**
   * The file screen's folder (the one listed, or the open file's): its storage is shown and New
   * folder and New file create in it. Null off the file screens.
   */
  folder: string | null;
}

export function Sidebar({ open, onClose, onLogout, folder }: SidebarProps) {
  const { t } = useTranslation();
  const user = useSession((s) => s.user);
  // Signed out (a public share): Login and Signup come back here afterwards.
  const location = useLocation();
  const here = location.pathname + location.search + location.hash;
  const ref = useRef<HTMLElement>(null);
  const newItem = useNewItem();
  // The version and the project link at the end are not left under a toast.
  useClearOfToasts(ref);

  useEffect(() => {
    if (!open) return;
    ref.current?.querySelector<HTMLElement>('a, button')?.focus();
    function handleKeyDown(e: KeyboardEvent) {
      if (e.key === 'Escape') onClose();
    }
    window.addEventListener('keydown', handleKeyDown);
    return () => window.removeEventListener('keydown', handleKeyDown);
  }, [open, onClose]);

  /** The toolbar's New folder / New file, the drawer closing first so the prompt stands alone. */
  function create(where: string, dir: boolean) {
    onClose();
    void newItem(where, dir);
  }

  const project = externalUrl('ProjectURL');

  return (
    <nav
      id="sidebar"
      ref={ref}
      className={open ? 'sidebar sidebar--open' : 'sidebar'}
      aria-label={t('nav.main')}
    >
      <IconButton className="sidebar__close" icon="close" iconSize={24} label={t('nav.closeMenu')} onClick={onClose} />
      <ul className="nav-list">
        {user ? (
          <>
            <li>
              <NavLink to="/settings/profile" className={navItemClass} title={t('nav.profile')} onClick={onClose}>
                <Icon name="user" />
                <span className="nav-item__text">{user.username}</span>
              </NavLink>
            </li>
            <NavEntry to="/files/" icon="folder" label={t('nav.myFiles')} onClick={onClose} />
            {config.TrashDays > 0 ? <NavEntry to="/trash" icon="trash" label={t('nav.trash')} onClick={onClose} /> : null}
            {folder !== null && user.perm.create
              ? CREATE.map(({ dir, icon, label }) => (
                  <li key={icon}>
                    <button type="button" className="nav-item" onClick={() => create(folder, dir)}>
                      <Icon name={icon} />
                      <span className="nav-item__text">{t(label)}</span>
                    </button>
                  </li>
                ))
              : null}
            {user.perm.admin ? (
              <NavEntry to="/settings/global" icon="settings" label={t('nav.settings')} onClick={onClose} />
            ) : null}
            {canLogout() ? (
              <li>
                <button type="button" className="nav-item" onClick={onLogout}>
                  <Icon name="logout" />
                  <span className="nav-item__text">{t('nav.logout')}</span>
                </button>
              </li>
            ) : null}
          </>
        ) : (
          <>
            <li>
              <Link to={loginLocation(here)} className="nav-item" onClick={onClose}>
                <Icon name="login" />
                <span className="nav-item__text">{t('nav.login')}</span>
              </Link>
            </li>
            {config.Signup ? (
              <li>
                <Link to={loginLocation(here, true)} className="nav-item" onClick={onClose}>
                  <Icon name="signup" />
                  <span className="nav-item__text">{t('nav.signup')}</span>
                </Link>
              </li>
            ) : null}
          </>
        )}
      </ul>
      {user && folder !== null && !config.DisableUsedPercentage ? <UsageBar path={folder} /> : null}
      {user && folder !== null ? (
        <Link className="button button--link sidebar__usage-link" to={usageRoute(folder)} onClick={onClose}>
          <Icon name="grid" size={18} />
          {t('usage.details')}
        </Link>
      ) : null}
      <div className="sidebar__footer">
        <button type="button" className="button button--link sidebar__help" onClick={() => void showHelp()}>
          <Icon name="help" size={18} />
          {t('nav.help')}
        </button>
        {project ? (
          <a className="button button--link sidebar__help" href={project} target="_blank" rel="noopener noreferrer">
            <Icon name="open" size={18} />
            {t('nav.project')}
          </a>
        ) : null}
        {config.Version ? (
          <span className="sidebar__version">{t('nav.version', { version: config.Version })}</span>
        ) : null}
      </div>
    </nav>
  );
}
