/**
 * The disk-usage picture (issue 22 item 6, docs/api.md §24.2): a folder's contents as a treemap
 * sized by bytes from the file index, coloured by kind, with a legend; folders open on click or
 * Enter. Beside it (below on a phone) the same entries as a table by size, with each one's share
 * of the folder, for keyboard and screen-reader users. Without a ready index it says so.
 */
import { useQuery } from '@tanstack/react-query';
import { useLayoutEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { queryKeys } from '../../api/queryKeys';
import { getFolderUsage, type FolderUsage } from '../../api/sizes';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { useFormat } from '../../i18n/useFormat';
import { filesRoute, folderPath, usageRoute } from '../../lib/paths';
import { ErrorScreen } from '../errors/ErrorScreen';
import { errorCodeOf } from '../errors/errorKind';
import { Breadcrumbs } from '../files/Breadcrumbs';
import { childFolder, KINDS, kindOf, layoutTiles, shareOf, type Kind, type Tile } from './usageMap';
import './diskusage.css';

/** While the index is being built, ask again this often. */
const BUILDING_POLL_MS = 3000;
/** A tile shows its name and size only when there is room for them. */
const LABEL_MIN = { width: 64, height: 36 };

/** The width of the element `ref` is put on, followed as it changes. */
function useWidth() {
  const ref = useRef<HTMLDivElement>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const el = ref.current;
    if (!el) return;
    setWidth(el.clientWidth);
    const observer = new ResizeObserver(() => setWidth(el.clientWidth));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);
  return [ref, width] as const;
}

/**
 * The map's height for its width: wide and short on a desktop, nearly square on a phone; on a tall
 * screen (4K) it may grow beyond 520 px as far as the window leaves room under the heading.
 */
const heightFor = (width: number, windowHeight: number) =>
  Math.round(Math.min(Math.max(520, windowHeight - 280), Math.max(240, width * 0.62)));

function percentText(locale: string, value: number): string {
  return new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: value < 10 ? 1 : 0 }).format(value / 100);
}

function TreeMap({ usage, folder }: { usage: FolderUsage; folder: string }) {
  const { t } = useTranslation();
  const format = useFormat();
  const [ref, width] = useWidth();
  const height = heightFor(width, window.innerHeight);
  const tiles = useMemo(() => layoutTiles(usage, width, height), [usage, width, height]);

  function tileLabel(tile: Tile): string {
    const name = tile.item ? tile.item.name : t('diskUsage.other', { count: usage.other.count });
    return `${name}, ${format.size(tile.size)}, ${percentText(format.locale, shareOf(tile.size, usage.size))}`;
  }

  function tileContent(tile: Tile) {
    if (tile.width < LABEL_MIN.width || tile.height < LABEL_MIN.height) return null;
    return (
      <>
        <span className="usage-map__name" dir="auto">
          {tile.item ? tile.item.name : t('diskUsage.other', { count: usage.other.count })}
        </span>
        <span className="usage-map__size">{format.size(tile.size)}</span>
      </>
    );
  }

  return (
    <div
      ref={ref}
      className="usage-map"
      role="group"
      aria-label={t('diskUsage.map')}
      style={{ blockSize: height }}
      data-testid="usage-map"
    >
      {tiles.map((tile) => {
        const kind: Kind | 'rest' = tile.item ? kindOf(tile.item) : 'rest';
        const style = { insetInlineStart: tile.x, insetBlockStart: tile.y, inlineSize: tile.width, blockSize: tile.height };
        const className = `usage-map__tile usage-kind--${kind}`;
        // Folders open: a link, so click, Enter, a middle click and Back all work as anywhere.
        if (tile.item?.isDir) {
          return (
            <Link
              key={tile.key}
              to={usageRoute(childFolder(folder, tile.item.name))}
              className={`${className} usage-map__tile--folder`}
              style={style}
              aria-label={tileLabel(tile)}
              title={tileLabel(tile)}
            >
              {tileContent(tile)}
            </Link>
          );
        }
        return (
          <div key={tile.key} className={className} style={style} title={tileLabel(tile)} aria-hidden="true">
            {tileContent(tile)}
          </div>
        );
      })}
    </div>
  );
}

function Legend() {
  const { t } = useTranslation();
  return (
    <ul className="usage-legend" aria-label={t('diskUsage.legend')}>
      {KINDS.map((k) => (
        <li key={k}>
          <span className={`usage-legend__swatch usage-kind--${k}`} aria-hidden="true" />
          {t(`diskUsage.kinds.${k}`)}
        </li>
      ))}
    </ul>
  );
}

function SizeList({ usage, folder }: { usage: FolderUsage; folder: string }) {
  const { t } = useTranslation();
  const format = useFormat();
  const bar = (size: number) => {
    const share = shareOf(size, usage.size);
    return (
      <td className="usage-list__share">
        <span className="usage-list__bar" aria-hidden="true">
          <span style={{ inlineSize: `${share}%` }} />
        </span>
        {percentText(format.locale, share)}
      </td>
    );
  };
  return (
    <table className="usage-list">
      <caption className="usage-list__caption">{t('diskUsage.list')}</caption>
      <thead>
        <tr>
          <th scope="col">{t('files.name')}</th>
          <th scope="col" className="usage-list__num">
            {t('files.size')}
          </th>
          <th scope="col" className="usage-list__num">
            {t('diskUsage.percent')}
          </th>
        </tr>
      </thead>
      <tbody>
        {usage.items.map((item) => {
          const kind = kindOf(item);
          return (
            <tr key={item.name}>
              <th scope="row" className="usage-list__name">
                <span className={`usage-legend__swatch usage-kind--${kind}`} aria-hidden="true" />
                <span className="visually-hidden">{t(`diskUsage.kinds.${kind}`)}: </span>
                {item.isDir ? (
                  <Link to={usageRoute(childFolder(folder, item.name))} dir="auto">
                    {item.name}
                  </Link>
                ) : (
                  <span dir="auto">{item.name}</span>
                )}
              </th>
              <td className="usage-list__num">{format.size(item.size)}</td>
              {bar(item.size)}
            </tr>
          );
        })}
        {usage.other.count > 0 ? (
          <tr>
            <th scope="row" className="usage-list__name">
              <span className="usage-legend__swatch usage-kind--rest" aria-hidden="true" />
              {t('diskUsage.other', { count: usage.other.count })}
            </th>
            <td className="usage-list__num">{format.size(usage.other.size)}</td>
            {bar(usage.other.size)}
          </tr>
        ) : null}
      </tbody>
    </table>
  );
}

export function DiskUsageScreen({ path }: { path: string }) {
  const { t } = useTranslation();
  const format = useFormat();
  const folder = folderPath(path);
  const query = useQuery({
    queryKey: queryKeys.folderUsage(folder),
    queryFn: ({ signal }) => getFolderUsage(folder, signal),
    refetchInterval: (q) => (q.state.data?.status === 'building' ? BUILDING_POLL_MS : false),
  });

  if (query.isError) return <ErrorScreen code={errorCodeOf(query.error)} />;
  const usage = query.data;
  return (
    <section className="disk-usage" aria-labelledby="disk-usage-title">
      <div className="disk-usage__head">
        <h1 id="disk-usage-title" className="card__title disk-usage__title">
          <Icon name="storage" />
          {t('diskUsage.title')}
        </h1>
        <Link className="button button--link" to={filesRoute(folder)}>
          <Icon name="folder" size={18} />
          {t('diskUsage.showFiles')}
        </Link>
      </div>
      <Breadcrumbs path={folder} home={{ label: t('files.home'), to: '/usage/' }} route={usageRoute} />
      {!usage ? (
        <Spinner label={t('common.loading')} />
      ) : usage.status === 'disabled' ? (
        <p className="disk-usage__note" role="status">
          {t('diskUsage.indexOff')}
        </p>
      ) : usage.status === 'building' ? (
        <p className="disk-usage__note" role="status">
          {t('diskUsage.indexBuilding', { percent: usage.percent })}
        </p>
      ) : (
        <>
          <p className="disk-usage__total">{t('diskUsage.total', { size: format.size(usage.size) })}</p>
          {usage.items.length === 0 && usage.other.count === 0 ? (
            <p className="disk-usage__note">{t('diskUsage.empty')}</p>
          ) : (
            <div className="disk-usage__body">
              <div className="disk-usage__picture">
                {usage.size > 0 ? <TreeMap usage={usage} folder={folder} /> : <p className="disk-usage__note">{t('diskUsage.empty')}</p>}
                <Legend />
              </div>
              <SizeList usage={usage} folder={folder} />
            </div>
          )}
        </>
      )}
    </section>
  );
}
