/**
 * The share prompt (docs/client.md §2 "Prompts": share; §4 "Share prompt"; §5): the links of one item with
 * their expiry, copy and delete; "new" opens the create view (duration and unit, optional
 * password), whose cancel goes back to the list.
 */
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { createShare, listItemShares, type Share, type ShareUnit } from '../../api/shares';
import { Field } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { MAX_SHARE_DURATION } from '../../lib/limits';
import { openPrompt, type PromptProps } from '../../stores/prompts';
import { toast } from '../../stores/toasts';
import { PromptCard } from '../prompts/PromptCard';
import { shareLink, ShareExpiry, ShareLinkButtons, UploadOnlyBadge } from './actions';
import { DEFAULT_SHARE_UNIT, parseDuration, SHARE_UNITS, sharePath, sortShares } from './share';
import './share.css';

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

interface Item {
  path: string;
  name: string;
  isDir: boolean;
}

type Links = { phase: 'loading' } | { phase: 'failed'; message: string } | { phase: 'ready'; links: Share[] };

function LinkList({ links, onDeleted }: { links: Share[]; onDeleted: (hash: string) => void }) {
  const { t } = useTranslation();
  if (links.length === 0) return <p className="muted">{t('share.none')}</p>;
  return (
    <ul className="share-links" aria-label={t('share.links')}>
      {links.map((share) => {
        const url = shareLink(share.hash);
        return (
          <li key={share.hash} className="share-links__item">
            <span className="share-links__main">
              <a className="share-links__hash" href={url} target="_blank" rel="noreferrer" dir="ltr">
                {share.hash}
              </a>
              <span className="share-links__meta">
                <ShareExpiry share={share} />
                {share.kind === 'upload' ? <UploadOnlyBadge /> : null}
                {share.hasPassword ? (
                  <span className="share-links__lock">
                    <Icon name="lock" size={14} />
                    {t('share.protected')}
                  </span>
                ) : null}
              </span>
            </span>
            <ShareLinkButtons share={share} onDeleted={() => onDeleted(share.hash)} />
          </li>
        );
      })}
    </ul>
  );
}

/** A limit field in MB or a count: empty or 0 = none; anything else must be a whole number ≥ 0. */
function limitValue(text: string, perUnit: number): number | null {
  const v = text.trim();
  if (v === '') return 0;
  if (!/^[0-9]{1,12}$/.test(v)) return null;
  return Number(v) * perUnit;
}

const MB = 1024 * 1024;
/** A whole number from 0 (duration, limits). */
const WHOLE_NUMBER = { className: 'input', type: 'number', inputMode: 'numeric', min: 0, step: 1 } as const;

function CreateForm({
  path,
  isDir,
  onCreated,
  onCancel,
}: {
  path: string;
  isDir: boolean;
  onCreated: (s: Share) => void;
  onCancel: () => void;
}) {
  const { t } = useTranslation();
  const [duration, setDuration] = useState('0');
  const [unit, setUnit] = useState<ShareUnit>(DEFAULT_SHARE_UNIT);
  const [password, setPassword] = useState('');
  const [invalid, setInvalid] = useState(false);
  const [busy, setBusy] = useState(false);
  // docs/api.md §23.1: an upload-only share of a folder, with its message and limits.
  const [uploadOnly, setUploadOnly] = useState(false);
  const [note, setNote] = useState('');
  const [limits, setLimits] = useState({ maxFileSize: '', maxFiles: '', maxBytes: '' });
  const [badLimit, setBadLimit] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  // Entered from the list (or opened without links): the first field takes the focus.
  useEffect(() => first.current?.focus(), []);

  async function handleSubmit(e: FormEvent) {
    e.preventDefault();
    const n = parseDuration(duration);
    if (n === null) {
      setInvalid(true);
      return;
    }
    const maxFileSize = limitValue(limits.maxFileSize, MB);
    const maxFiles = limitValue(limits.maxFiles, 1);
    const maxBytes = limitValue(limits.maxBytes, MB);
    if (uploadOnly && (maxFileSize === null || maxFiles === null || maxBytes === null)) {
      setBadLimit(true);
      return;
    }
    const upload = uploadOnly ? { message: note.trim(), maxFileSize: maxFileSize ?? 0, maxFiles: maxFiles ?? 0, maxBytes: maxBytes ?? 0 } : undefined;
    setBusy(true);
    try {
      // docs/client.md §5: the password is optional and trimmed.
      onCreated(await createShare(path, { duration: n, unit, password: password.trim(), upload }));
    } catch (err) {
      toast.error(message(err));
      setBusy(false);
    }
  }

  return (
    <form className="share-form" onSubmit={(e) => void handleSubmit(e)} noValidate>
      <div className="share-form__duration">
        <Field
          label={t('share.duration')}
          hint={t('share.durationHint')}
          error={invalid ? t('share.durationInvalid', { max: MAX_SHARE_DURATION }) : null}
        >
          {(control) => (
            <input
              {...control}
              {...WHOLE_NUMBER}
              max={MAX_SHARE_DURATION}
              ref={first}
              value={duration}
              onChange={(e) => {
                setDuration(e.target.value);
                setInvalid(false);
              }}
            />
          )}
        </Field>
        <Field label={t('share.unit')}>
          {(control) => (
            <select
              {...control}
              className="input"
              value={unit}
              onChange={(e) => setUnit(e.target.value as ShareUnit)}
            >
              {SHARE_UNITS.map((u) => (
                <option key={u} value={u}>
                  {t(`share.units.${u}`)}
                </option>
              ))}
            </select>
          )}
        </Field>
      </div>
      <Field label={t('share.password')} hint={t('share.passwordHint')}>
        {(control) => (
          <input
            {...control}
            className="input"
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        )}
      </Field>
      {isDir ? (
        <label className="share-form__check">
          <input type="checkbox" checked={uploadOnly} onChange={(e) => setUploadOnly(e.target.checked)} />
          <span>{t('share.uploadOnly')}</span>
        </label>
      ) : null}
      {uploadOnly ? (
        <fieldset className="share-form__upload">
          <Field label={t('share.uploadMessage')}>
            {(control) => (
              <textarea {...control} className="input" rows={3} maxLength={2000} value={note} onChange={(e) => setNote(e.target.value)} />
            )}
          </Field>
          <div className="share-form__limits">
            {(['maxFileSize', 'maxFiles', 'maxBytes'] as const).map((k) => (
              <Field key={k} label={t(`share.${k}`)} error={badLimit ? t('share.limitsHint') : null}>
                {(control) => (
                  <input
                    {...control}
                    {...WHOLE_NUMBER}
                    value={limits[k]}
                    onChange={(e) => {
                      setLimits((l) => ({ ...l, [k]: e.target.value }));
                      setBadLimit(false);
                    }}
                  />
                )}
              </Field>
            ))}
          </div>
          <p className="muted">{t('share.limitsHint')}</p>
        </fieldset>
      ) : null}
      <div className="share-form__actions">
        <button type="button" className="button" onClick={onCancel}>
          {t('files.prompts.cancel')}
        </button>
        <button type="submit" className="button button--primary" disabled={busy}>
          {t('share.create')}
        </button>
      </div>
    </form>
  );
}

function SharePrompt({ item, resolve }: PromptProps<true> & { item: Item }) {
  const { t } = useTranslation();
  const path = sharePath(item);
  const [links, setLinks] = useState<Links>({ phase: 'loading' });
  const [view, setView] = useState<'list' | 'create'>('list');
  const newButton = useRef<HTMLButtonElement>(null);
  const back = useRef(false);
  // Back from the create view: focus returns to "new" instead of being lost with the form.
  useEffect(() => {
    if (view === 'list' && back.current) newButton.current?.focus();
    back.current = view === 'create';
  }, [view]);

  useEffect(() => {
    const controller = new AbortController();
    listItemShares(path, controller.signal)
      .then((list) => {
        setLinks({ phase: 'ready', links: sortShares(list) });
        // Nothing to list yet: straight to making the first link.
        if (list.length === 0) setView('create');
      })
      .catch((err: unknown) => {
        if (!controller.signal.aborted) setLinks({ phase: 'failed', message: message(err) });
      });
    return () => controller.abort();
  }, [path]);

  const list = links.phase === 'ready' ? links.links : [];
  return (
    <PromptCard
      title={t('share.title')}
      wide
      actions={
        view === 'list' ? (
          <>
            <button type="button" className="button" onClick={() => resolve(true)}>
              {t('share.close')}
            </button>
            <button
              type="button"
              ref={newButton}
              className="button button--primary"
              disabled={links.phase !== 'ready'}
              onClick={() => setView('create')}
            >
              <Icon name="plus" size={18} />
              {t('share.new')}
            </button>
          </>
        ) : undefined
      }
    >
      <p className="share-item" dir="auto">
        <Icon name={item.isDir ? 'folder' : 'file'} size={20} />
        <span>{item.name}</span>
      </p>
      {view === 'create' ? (
        <CreateForm
          path={path}
          isDir={item.isDir}
          onCancel={() => setView('list')}
          onCreated={(share) => {
            setLinks({ phase: 'ready', links: sortShares([...list, share]) });
            setView('list');
          }}
        />
      ) : links.phase === 'loading' ? (
        <Spinner label={t('common.loading')} />
      ) : links.phase === 'failed' ? (
        <p role="alert">{links.message}</p>
      ) : (
        <LinkList
          links={links.links}
          onDeleted={(hash) => setLinks({ phase: 'ready', links: list.filter((s) => s.hash !== hash) })}
        />
      )}
    </PromptCard>
  );
}

/** Opens the share prompt for one item. Needs the share and download permissions (docs/client.md §6). */
export function openShare(item: Item): Promise<true | null> {
  return openPrompt<true>((props) => <SharePrompt {...props} item={item} />);
}
