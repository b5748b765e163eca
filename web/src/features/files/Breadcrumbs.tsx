/** The path above the listing (spec §2: at most the last 4 segments, "..." when cut). */
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { breadcrumbs } from '../../lib/breadcrumbs';
import { filesRoute } from '../../lib/paths';

export function Breadcrumbs({ path }: { path: string }) {
  const { t } = useTranslation();
  const crumbs = breadcrumbs(path);
  return (
    <nav className="breadcrumbs" aria-label={t('files.location')}>
      <ol>
        <li>
          <Link to="/files/" aria-current={crumbs.length === 0 ? 'page' : undefined}>
            {t('files.home')}
          </Link>
        </li>
        {crumbs.map((c, i) => (
          <li key={c.path}>
            <span aria-hidden="true" className="breadcrumbs__sep">
              /
            </span>
            <Link
              to={filesRoute(c.path)}
              dir="auto"
              aria-current={i === crumbs.length - 1 ? 'page' : undefined}
            >
              {c.name}
            </Link>
          </li>
        ))}
      </ol>
    </nav>
  );
}
