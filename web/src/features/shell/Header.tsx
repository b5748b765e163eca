/** The top bar: drawer button (phones), product name and logo, the search entry point. */
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { Icon } from '../../components/Icon';
import { IconButton } from '../../components/IconButton';
import { productName, staticUrl } from '../../config';

export interface HeaderProps {
  menuOpen: boolean;
  onMenu: () => void;
  /** Absent when search is not available (signed out). */
  onSearch?: () => void;
}

export function Header({ menuOpen, onMenu, onSearch }: HeaderProps) {
  const { t } = useTranslation();
  return (
    <header className="header">
      <IconButton
        className="header__menu"
        icon="menu"
        iconSize={24}
        label={t('nav.openMenu')}
        aria-expanded={menuOpen}
        aria-controls="sidebar"
        onClick={onMenu}
      />
      <Link to="/files/" className="header__brand">
        <img src={staticUrl('img/logo.svg')} alt="" width={32} height={32} />
        <span className="header__name">{productName()}</span>
      </Link>
      {onSearch ? (
        <button
          type="button"
          className="header__search"
          onClick={onSearch}
          aria-keyshortcuts="Control+Shift+F"
        >
          <Icon name="search" size={20} />
          <span className="header__search-text">{t('nav.search')}</span>
        </button>
      ) : null}
    </header>
  );
}
