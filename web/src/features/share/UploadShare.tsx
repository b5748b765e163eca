/**
 * The page of an upload-only share (docs/api.md §23): the owner's message and an upload area —
 * drop zone, file picker, folder picker — and nothing of the folder. Files go one after the other
 * over tus with progress; a file chosen again after a reload continues where it stopped (the
 * upload URL is remembered by tus-js-client). The files this browser sent are listed from
 * localStorage.
 */
import { useQuery } from '@tanstack/react-query';
import { useMemo, useRef, useState, type DragEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { queryKeys } from '../../api/queryKeys';
import { getUploadShare, uploadShareEndpoint, type PublicUploadShare } from '../../api/shares';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { useDocumentTitle } from '../../components/useDocumentTitle';
import { config } from '../../config';
import { useFormat } from '../../i18n/useFormat';
import { ErrorScreen } from '../errors/ErrorScreen';
import { carriesFiles, sourcesFromDrop } from '../upload/entries';
import { retryDelays, shouldRetry } from '../upload/retry';
import { pageState } from './public';
import { PasswordFor } from './SharePassword';
import { refusalKey, rememberSent, sentFiles, UploadRefused, type RefusalKey, type SentFile } from './uploadShareRules';
import './share.css';

/** Chunk size when the server's tus settings have none (docs/client.md §3 uses them when set). */
const DEFAULT_CHUNK = 10 * 1024 * 1024;

interface Entry {
  id: number;
  file: File;
  sent: number;
  state: 'queued' | 'running' | 'done' | 'failed';
  /** What a failure tells the visitor. */
  error?: RefusalKey;
  /** Where it landed (a taken name gets a suffix). */
  name?: string;
}

let nextId = 1;

/** One file over tus; resolves with the name it got. */
async function sendFile(hash: string, credentials: Record<string, string>, file: File, onProgress: (sent: number) => void): Promise<string> {
  const { Upload } = await import('tus-js-client');
  return new Promise<string>((resolve, reject) => {
    const upload = new Upload(file, {
      endpoint: uploadShareEndpoint(hash),
      chunkSize: config.TusSettings.chunkSize > 0 ? config.TusSettings.chunkSize : DEFAULT_CHUNK,
      retryDelays: retryDelays(config.TusSettings.retryCount),
      metadata: { filename: file.name },
      headers: credentials,
      storeFingerprintForResuming: true,
      removeFingerprintOnSuccess: true,
      onProgress: (sent) => onProgress(sent),
      onShouldRetry: (err) => shouldRetry(err.originalResponse?.getStatus() ?? 0),
      onError: (err) => {
        const res = (err as { originalResponse?: { getStatus(): number; getHeader(h: string): string | undefined } | null }).originalResponse;
        reject(new UploadRefused(refusalKey(res?.getStatus() ?? 0, res?.getHeader('Coffer-Limit') ?? null)));
      },
      onSuccess: ({ lastResponse }) => {
        const name = lastResponse.getHeader('Coffer-File-Name');
        resolve(name ? decodeURIComponent(name) : file.name);
      },
    });
    // The same file chosen again (after a reload) continues its unfinished upload.
    void upload
      .findPreviousUploads()
      .then((previous) => {
        if (previous[0]) upload.resumeFromPreviousUpload(previous[0]);
      })
      .catch(() => undefined)
      .finally(() => upload.start());
  });
}

/** A button that opens the browser's file (or folder) picker. */
function Picker({ icon, label, folder, primary, onFiles }: { icon: 'file' | 'folder'; label: string; folder?: boolean; primary?: boolean; onFiles: (files: File[]) => void }) {
  return (
    <label className={primary ? 'button button--primary' : 'button'}>
      <Icon name={icon} size={18} />
      {label}
      <input
        type="file"
        multiple
        className="visually-hidden"
        {...(folder ? { webkitdirectory: '' } : {})}
        onChange={(e) => {
          onFiles([...(e.target.files ?? [])]);
          e.target.value = '';
        }}
      />
    </label>
  );
}

function UploadArea({ hash, info, credentials, onSent }: { hash: string; info: PublicUploadShare; credentials: Record<string, string>; onSent: () => void }) {
  const { t } = useTranslation();
  const format = useFormat();
  const [entries, setEntries] = useState<Entry[]>([]);
  const [sent, setSent] = useState<SentFile[]>(() => sentFiles(hash));
  const [over, setOver] = useState(false);
  const running = useRef(false);
  const queue = useRef<Entry[]>([]);

  const update = (id: number, change: Partial<Entry>) => setEntries((list) => list.map((e) => (e.id === id ? { ...e, ...change } : e)));

  async function pump() {
    if (running.current) return;
    running.current = true;
    try {
      for (let e = queue.current.shift(); e; e = queue.current.shift()) {
        const id = e.id;
        update(id, { state: 'running' });
        try {
          const name = await sendFile(hash, credentials, e.file, (n) => update(id, { sent: n }));
          update(id, { state: 'done', sent: e.file.size, name });
          setSent(rememberSent(hash, { name, size: e.file.size, at: Date.now() }));
        } catch (err) {
          update(id, { state: 'failed', error: err instanceof UploadRefused ? err.key : 'failed' });
        }
        onSent();
      }
    } finally {
      running.current = false;
    }
  }

  function add(files: File[]) {
    const added = files.map((file): Entry => ({ id: nextId++, file, sent: 0, state: 'queued' }));
    if (added.length === 0) return;
    queue.current.push(...added);
    setEntries((list) => [...added, ...list]);
    void pump();
  }

  function handleDrop(e: DragEvent) {
    e.preventDefault();
    setOver(false);
    // Folders are walked; their files land flat in the shared folder (docs/api.md §23.3).
    void sourcesFromDrop(e.dataTransfer).then((sources) => add(sources.flatMap((s) => (s.file ? [s.file] : []))));
  }

  const full = info.filesLeft === 0 || info.bytesLeft === 0;
  const limits = [
    info.maxFileSize > 0 ? t('uploadShare.maxFileSize', { size: format.size(info.maxFileSize) }) : null,
    info.filesLeft !== null ? t('uploadShare.filesLeft', { count: info.filesLeft }) : null,
    info.bytesLeft !== null ? t('uploadShare.bytesLeft', { size: format.size(info.bytesLeft) }) : null,
  ].filter((x): x is string => x !== null);

  return (
    <>
      {full ? (
        <p className="upload-share__full" role="status">
          {t('uploadShare.full')}
        </p>
      ) : (
        <div
          className="upload-share__zone"
          data-over={over || undefined}
          onDragOver={(e) => {
            if (!carriesFiles(e.dataTransfer)) return;
            e.preventDefault();
            setOver(true);
          }}
          onDragLeave={() => setOver(false)}
          onDrop={handleDrop}
        >
          <Icon name="upload" size={40} />
          <p>{t('uploadShare.drop')}</p>
          <div className="upload-share__pickers">
            <Picker primary icon="file" label={t('uploadShare.chooseFiles')} onFiles={add} />
            <Picker folder icon="folder" label={t('uploadShare.chooseFolder')} onFiles={add} />
          </div>
          {limits.length > 0 ? <p className="muted">{limits.join(' · ')}</p> : null}
        </div>
      )}
      {entries.length > 0 ? (
        <ul className="upload-share__list" aria-label={t('uploadShare.progress')}>
          {entries.map((e) => (
            <li key={e.id} className="upload-share__item" data-state={e.state}>
              <span className="upload-share__name" dir="auto">
                {e.name ?? e.file.name}
              </span>
              {e.state === 'failed' ? (
                <span className="upload-share__error" role="alert">
                  {t(`uploadShare.${e.error ?? 'failed'}`)}
                </span>
              ) : e.state === 'done' ? (
                <span className="upload-share__done">
                  <Icon name="check" size={16} />
                  {t('uploadShare.done')}
                </span>
              ) : (
                <progress
                  max={Math.max(1, e.file.size)}
                  value={e.sent}
                  aria-label={t('uploadShare.progressOf', { name: e.file.name })}
                />
              )}
            </li>
          ))}
        </ul>
      ) : null}
      {sent.length > 0 ? (
        <section className="upload-share__sent">
          <h2>{t('uploadShare.yours')}</h2>
          <ul aria-label={t('uploadShare.yours')}>
            {sent.map((f) => (
              <li key={`${f.at}-${f.name}`}>
                <span dir="auto">{f.name}</span>
                <span className="muted">{format.size(f.size)}</span>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
    </>
  );
}

export function UploadShare({ hash }: { hash: string }) {
  const { t } = useTranslation();
  const password = useRef('');
  const [typed, setTyped] = useState(false);
  const query = useQuery({
    queryKey: queryKeys.uploadShare(hash),
    queryFn: ({ signal }) => getUploadShare(hash, password.current, signal),
  });
  const state = pageState(query.error, typed);
  useDocumentTitle([t('uploadShare.title')]);
  // The share token opens the upload requests of a protected link (docs/api.md §23.2).
  const token = query.data?.token;
  const credentials = useMemo((): Record<string, string> => (token ? { 'X-Share-Token': token } : {}), [token]);

  if (query.isPending) return <Spinner label={t('common.loading')} />;
  if (state.kind === 'password') {
    return <PasswordFor state={state} query={query} passwordRef={password} onTyped={() => setTyped(true)} />;
  }
  if (state.kind === 'error' || !query.data) return <ErrorScreen code={state.kind === 'error' ? state.code : 404} />;
  return (
    <div className="upload-share">
      <h1 className="page-title">{t('uploadShare.title')}</h1>
      {query.data.message ? (
        <p className="upload-share__message" dir="auto">
          {query.data.message}
        </p>
      ) : null}
      <p className="muted">{t('uploadShare.private')}</p>
      <UploadArea hash={hash} info={query.data} credentials={credentials} onSent={() => void query.refetch()} />
    </div>
  );
}
