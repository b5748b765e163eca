/** The path above the listing (spec §2: at most the last 4 segments, "..." when cut). */
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { breadcrumbs } from '../../lib/breadcrumbs';
import { filesRoute } from '../../lib/paths';

export interface BreadcrumbsProps {
  path: string;
  /** The first crumb; the user's files by default. */
  home?: { label: string; to: string };
  /** The route of a folder path (ends in `/`); /files routes by default. */
  route?: (folderPath: string) => string;
}

export function Breadcrumbs({ path, home, route = filesRoute }: BreadcrumbsProps) {
  const { t } = useTranslation();
  const crumbs = breadcrumbs(path);
  return (
    <nav className="breadcrumbs" aria-label={t('files.location')}>
      <ol>
        <li>
          <Link to={home?.to ?? '/files/'} aria-current={crumbs.length === 0 ? 'page' : undefined}>
            {home?.label ?? t('files.home')}
          </Link>
        </li>
        {crumbs.map((c, i) => (
          <li key={c.path}>
            <span aria-hidden="true" className="breadcrumbs__sep">
              /
            </span>
            <Link to={route(c.path)} dir="auto" aria-current={i === crumbs.length - 1 ? 'page' : undefined}>
              {c.name}
            </Link>
          </li>
        ))}
      </ol>
    </nav>
  );
}
