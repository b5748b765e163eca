/**
 * Navigation (spec §2 "Sidebar"): the user, My files, Settings for admins, Logout; Login and
 * Signup when signed out; storage on file screens; version and help. A drawer on phones.
 */
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, NavLink, useLocation } from 'react-router';
import { Icon } from '../../components/Icon';
import { canLogout, config } from '../../config';
import { loginLocation } from '../../lib/redirect';
import { useSession } from '../../stores/session';
import { showHelp } from '../prompts/HelpPrompt';
import { UsageBar } from './UsageBar';

export interface SidebarProps {
  /** Drawer state; only matters at phone widths. */
  open: boolean;
  onClose: () => void;
  onLogout: () => void;
  /** Folder whose storage is shown; null off the file screens. */
  usagePath: string | null;
}

export function Sidebar({ open, onClose, onLogout, usagePath }: SidebarProps) {
  const { t } = useTranslation();
  const user = useSession((s) => s.user);
  // Signed out (a public share): Login and Signup come back here afterwards.
  const location = useLocation();
  const here = location.pathname + location.search + location.hash;
  const ref = useRef<HTMLElement>(null);

  useEffect(() => {
    if (!open) return;
    ref.current?.querySelector<HTMLElement>('a, button')?.focus();
    function handleKeyDown(e: KeyboardEvent) {
      if (e.key === 'Escape') onClose();
    }
    window.addEventListener('keydown', handleKeyDown);
    return () => window.removeEventListener('keydown', handleKeyDown);
  }, [open, onClose]);

  const item = ({ isActive }: { isActive: boolean }) => (isActive ? 'nav-item nav-item--active' : 'nav-item');

  return (
    <nav
      id="sidebar"
      ref={ref}
      className={open ? 'sidebar sidebar--open' : 'sidebar'}
      aria-label={t('nav.main')}
    >
      <button
        type="button"
        className="icon-button sidebar__close"
        aria-label={t('nav.closeMenu')}
        onClick={onClose}
      >
        <Icon name="close" />
      </button>
      <ul className="nav-list">
        {user ? (
          <>
            <li>
              <NavLink to="/settings/profile" className={item} title={t('nav.profile')} onClick={onClose}>
                <Icon name="user" />
                <span className="nav-item__text">{user.username}</span>
              </NavLink>
            </li>
            <li>
              <NavLink to="/files/" className={item} onClick={onClose}>
                <Icon name="folder" />
                <span className="nav-item__text">{t('nav.myFiles')}</span>
              </NavLink>
            </li>
            {user.perm.admin ? (
              <li>
                <NavLink to="/settings/global" className={item} onClick={onClose}>
                  <Icon name="settings" />
                  <span className="nav-item__text">{t('nav.settings')}</span>
                </NavLink>
              </li>
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
      {user && usagePath !== null && !config.DisableUsedPercentage ? <UsageBar path={usagePath} /> : null}
      <div className="sidebar__footer">
        <button type="button" className="button button--link sidebar__help" onClick={() => void showHelp()}>
          <Icon name="help" size={18} />
          {t('nav.help')}
        </button>
        {config.Version ? (
          <span className="sidebar__version">{t('nav.version', { version: config.Version })}</span>
        ) : null}
      </div>
    </nav>
  );
}
