/**
 * The path above the listing (docs/client.md §2: at most the last 4 segments, "..." when cut). With
 * `onDropItems`, items dragged from the listing can be dropped on a crumb to move them there.
 */
import { useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { breadcrumbs } from '../../lib/breadcrumbs';
import { filesRoute } from '../../lib/paths';
import { canDropOn, currentDrag, endDrag, isItemsDrag, type Drag } from './dnd';
import './breadcrumbs.css';

export interface BreadcrumbsProps {
  path: string;
  /** The first crumb; the user's files by default. */
  home?: { label: string; to: string };
  /** The route of a folder path (ends in `/`); /files routes by default. */
  route?: (folderPath: string) => string;
  /** Dragged items dropped on the crumb of folder `dest` (ends in `/`). */
  onDropItems?: (dest: string, drag: Drag) => void;
}

export function Breadcrumbs({ path, home, route = filesRoute, onDropItems }: BreadcrumbsProps) {
  const { t } = useTranslation();
  const [target, setTarget] = useState<string | null>(null);
  const crumbs = breadcrumbs(path);

  function dropProps(dest: string) {
    if (!onDropItems || !dest.endsWith('/')) return {};
    const accepts = (e: DragEvent) => isItemsDrag(e.dataTransfer.types) && canDropOn(dest, currentDrag());
    const handleOver = (e: DragEvent) => {
      if (!accepts(e)) return;
      e.preventDefault();
      e.dataTransfer.dropEffect = 'move';
      setTarget(dest);
    };
    return {
      className: target === dest ? 'breadcrumbs__drop' : undefined,
      onDragEnter: handleOver,
      onDragOver: handleOver,
      onDragLeave: (e: DragEvent) => {
        if (!e.currentTarget.contains(e.relatedTarget as Node | null))
          setTarget((t) => (t === dest ? null : t));
      },
      onDrop: (e: DragEvent) => {
        setTarget(null);
        const drag = currentDrag();
        if (!accepts(e) || !drag) return;
        e.preventDefault();
        endDrag();
        onDropItems(dest, drag);
      },
    };
  }

  return (
    <nav className="breadcrumbs" aria-label={t('files.location')}>
      <ol>
        <li>
          <Link
            to={home?.to ?? '/files/'}
            aria-current={crumbs.length === 0 ? 'page' : undefined}
            {...dropProps('/')}
          >
            {home?.label ?? t('files.home')}
          </Link>
        </li>
        {crumbs.map((c, i) => (
          <li key={c.path}>
            <span aria-hidden="true" className="breadcrumbs__sep">
              /
            </span>
            <Link
              to={route(c.path)}
              dir="auto"
              aria-current={i === crumbs.length - 1 ? 'page' : undefined}
              {...dropProps(c.path)}
            >
              {c.name}
            </Link>
          </li>
        ))}
      </ol>
    </nav>
  );
}
