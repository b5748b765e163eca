/**
 * A read-only listing of a folder: folders first, then files; name, size and last-modified in
 * the user's language (absolute when the user's dateFormat is on, else relative).
 */
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Resource, ResourceItem } from '../../api/resources';
import { Icon } from '../../components/Icon';
import { useFormat } from '../../i18n/useFormat';
import { filesRoute } from '../../lib/paths';
import { useSession } from '../../stores/session';

export function Listing({ folder }: { folder: Resource }) {
  const { t } = useTranslation();
  const format = useFormat();
  const absolute = useSession((s) => s.user?.dateFormat ?? false);
  const items = folder.items ?? [];
  if (items.length === 0) {
    return (
      <p className="listing__lonely">
        <Icon name="folder" size={40} />
        {t('files.lonely')}
      </p>
    );
  }
  const sorted = [...items.filter((i) => i.isDir), ...items.filter((i) => !i.isDir)];
  const date = (item: ResourceItem) => {
    const d = new Date(item.modified);
    return Number.isNaN(d.getTime()) ? '' : absolute ? format.dateTime(d) : format.relative(d);
  };
  return (
    <table className="listing">
      <thead>
        <tr>
          <th scope="col">{t('files.name')}</th>
          <th scope="col" className="listing__size">
            {t('files.size')}
          </th>
          <th scope="col" className="listing__modified">
            {t('files.modified')}
          </th>
        </tr>
      </thead>
      <tbody>
        {sorted.map((item) => (
          <tr key={item.path}>
            <td>
              {item.isDir ? (
                <Link
                  className="listing__name"
                  to={filesRoute(item.path.endsWith('/') ? item.path : `${item.path}/`)}
                >
                  <Icon name="folder" size={20} />
                  <span dir="auto">{item.name}</span>
                </Link>
              ) : (
                <span className="listing__name">
                  <Icon name="file" size={20} />
                  <span dir="auto">{item.name}</span>
                </span>
              )}
            </td>
            <td className="listing__size">
              {item.isDir ? (
                <span className="visually-hidden">{t('files.folder')}</span>
              ) : (
                format.size(item.size)
              )}
            </td>
            <td className="listing__modified">
              <time dateTime={item.modified} title={format.dateTime(new Date(item.modified))}>
                {date(item)}
              </time>
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
