/**
 * The info prompt (docs/client.md §2 prompt "info"): for one item its name, size, type, modification time,
 * an image's resolution, a folder's item counts and the file's checksums on demand; for several
 * items their count and total size.
 */
import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { getResource, type Resource, type ResourceItem } from '../../api/resources';
import { IconButton } from '../../components/IconButton';
import { Spinner } from '../../components/Spinner';
import { useFormat } from '../../i18n/useFormat';
import { copyText } from '../../lib/clipboard';
import { usageRoute } from '../../lib/paths';
import { closeAllPrompts, openPrompt, type PromptProps } from '../../stores/prompts';
import { toast } from '../../stores/toasts';
import { PromptCard } from '../prompts/PromptCard';
import { getChecksum, inlineUrl } from './api';
import {
  CHECKSUM_ALGORITHMS,
  CHECKSUM_LABEL,
  resolutionOf,
  summarize,
  typeKey,
  type ChecksumAlgorithm,
  type Resolution,
} from './info';

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="info__row">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/** Bytes in the largest unit, then the exact count. */
function SizeText({ bytes }: { bytes: number }) {
  const { t } = useTranslation();
  const format = useFormat();
  const exact = t('units.B', { value: new Intl.NumberFormat(format.locale).format(bytes) });
  return (
    <>
      {format.size(bytes)}
      {bytes >= 1024 ? <span className="muted"> ({exact})</span> : null}
    </>
  );
}

/** The image's own resolution, else its natural size once the browser has loaded it. */
function useResolution(item: ResourceItem, canDownload: boolean): Resolution | null {
  const known = resolutionOf(item);
  const [loaded, setLoaded] = useState<Resolution | null>(null);
  const measure = !known && canDownload && !item.isDir && item.type === 'image';
  useEffect(() => {
    if (!measure) return;
    const img = new Image();
    let live = true;
    img.onload = () => {
      if (live && img.naturalWidth > 0) setLoaded({ width: img.naturalWidth, height: img.naturalHeight });
    };
    img.src = inlineUrl(item.path);
    return () => {
      live = false;
      img.onload = null;
      img.src = '';
    };
  }, [measure, item.path]);
  return known ?? loaded;
}

/** numDirs/numFiles of a folder: from the listing already loaded, else asked for. */
function useCounts(item: ResourceItem | Resource) {
  const given =
    'numDirs' in item && typeof item.numDirs === 'number' && typeof item.numFiles === 'number'
      ? { dirs: item.numDirs, files: item.numFiles }
      : null;
  const [counts, setCounts] = useState<{ dirs: number; files: number } | null>(null);
  const [failed, setFailed] = useState(false);
  const load = item.isDir && !given;
  const path = item.path.endsWith('/') ? item.path : `${item.path}/`;
  useEffect(() => {
    if (!load) return;
    const controller = new AbortController();
    getResource(path, controller.signal)
      .then((r) => setCounts({ dirs: r.numDirs ?? 0, files: r.numFiles ?? 0 }))
      .catch(() => {
        if (!controller.signal.aborted) setFailed(true);
      });
    return () => controller.abort();
  }, [load, path]);
  return { counts: given ?? counts, failed };
}

function Checksum({ path, algo }: { path: string; algo: ChecksumAlgorithm }) {
  const { t } = useTranslation();
  const [state, setState] = useState<{ phase: 'idle' | 'running' } | { phase: 'done'; digest: string }>({
    phase: 'idle',
  });
  const label = CHECKSUM_LABEL[algo];

  async function compute() {
    setState({ phase: 'running' });
    try {
      setState({ phase: 'done', digest: await getChecksum(path, algo) });
    } catch (err) {
      setState({ phase: 'idle' });
      toast.error(message(err));
    }
  }

  async function copy(digest: string) {
    try {
      await copyText(digest);
      toast.success(t('info.checksumCopied', { algo: label }));
    } catch (err) {
      toast.error(message(err));
    }
  }

  return (
    <Row label={label}>
      {state.phase === 'done' ? (
        <span className="info__checksum">
          <code dir="ltr">{state.digest}</code>
          <IconButton
            small
            icon="copy"
            label={t('info.copyChecksum', { algo: label })}
            onClick={() => void copy(state.digest)}
          />
        </span>
      ) : state.phase === 'running' ? (
        <Spinner inline label={t('info.computing', { algo: label })} />
      ) : (
        <button
          type="button"
          className="button button--link"
          aria-label={t('info.computeChecksum', { algo: label })}
          onClick={() => void compute()}
        >
          {t('info.compute')}
        </button>
      )}
    </Row>
  );
}

function SingleInfo({ item, canDownload }: { item: ResourceItem | Resource; canDownload: boolean }) {
  const { t } = useTranslation();
  const format = useFormat();
  const resolution = useResolution(item, canDownload);
  const { counts, failed } = useCounts(item);
  const date = new Date(item.modified);
  const validDate = !Number.isNaN(date.getTime());
  const kind = typeKey(item);
  const number = new Intl.NumberFormat(format.locale);
  return (
    <dl className="info">
      <Row label={t('files.name')}>
        <span dir="auto" className="info__name">
          {item.name || t('titles.myFiles')}
        </span>
      </Row>
      <Row label={t('info.type')}>{kind === 'folder' ? t('files.folder') : t(`info.types.${kind}`)}</Row>
      {item.isDir && 'folderSize' in item && item.folderSize !== undefined ? (
        <Row label={t('files.size')}>
          <SizeText bytes={item.folderSize} />
          {/* The sizes come from the file index: its picture of this folder is one step away. */}
          <Link className="info__usage-link" to={usageRoute(item.path)} onClick={closeAllPrompts}>
            {t('diskUsage.open')}
          </Link>
        </Row>
      ) : null}
      {item.isDir ? (
        <Row label={t('info.contents')}>
          {counts ? (
            t('info.counts', { dirs: counts.dirs, files: counts.files })
          ) : failed ? (
            '—'
          ) : (
            <Spinner inline label={t('common.loading')} />
          )}
        </Row>
      ) : (
        <Row label={t('files.size')}>
          <SizeText bytes={item.size} />
        </Row>
      )}
      {validDate ? (
        <Row label={t('files.modified')}>
          <time dateTime={item.modified}>{format.dateTime(date)}</time>{' '}
          <span className="muted">({format.relative(date)})</span>
        </Row>
      ) : null}
      {resolution ? (
        <Row label={t('info.resolution')}>
          {/* Width × height reads the same in every language. */}
          <span dir="ltr">{`${number.format(resolution.width)} × ${number.format(resolution.height)}`}</span>
        </Row>
      ) : null}
      {!item.isDir && canDownload
        ? CHECKSUM_ALGORITHMS.map((algo) => <Checksum key={algo} path={item.path} algo={algo} />)
        : null}
    </dl>
  );
}

function ManyInfo({ items }: { items: readonly ResourceItem[] }) {
  const { t } = useTranslation();
  const summary = summarize(items);
  return (
    <dl className="info">
      <Row label={t('info.selected')}>{summary.count}</Row>
      <Row label={t('info.contents')}>{t('info.counts', { dirs: summary.dirs, files: summary.files })}</Row>
      <Row label={t('info.totalSize')}>
        <SizeText bytes={summary.bytes} />
      </Row>
    </dl>
  );
}

function InfoPrompt({
  items,
  canDownload,
  resolve,
}: PromptProps<true> & { items: readonly (ResourceItem | Resource)[]; canDownload: boolean }) {
  const { t } = useTranslation();
  const only = items.length === 1 ? items[0] : undefined;
  return (
    <PromptCard
      title={t('info.title')}
      wide
      onEnter={() => resolve(true)}
      actions={
        <button type="button" className="button button--primary" data-autofocus onClick={() => resolve(true)}>
          {t('common.ok')}
        </button>
      }
    >
      {only ? <SingleInfo item={only} canDownload={canDownload} /> : <ManyInfo items={items} />}
    </PromptCard>
  );
}

/**
 * Opens the info prompt for `items` (the selection, or the current folder when nothing is
 * selected). Checksums and an image's size need the download permission.
 */
export function showInfo(
  items: readonly (ResourceItem | Resource)[],
  options: { canDownload: boolean },
): Promise<true | null> {
  return openPrompt<true>((props) => (
    <InfoPrompt {...props} items={items} canDownload={options.canDownload} />
  ));
}
