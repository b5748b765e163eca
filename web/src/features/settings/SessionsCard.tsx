/**
 * Settings → Profile, "Signed-in sessions" (docs/api.md §2.11): every browser or device signed in
 * with this account — browser and system, address, signed in, last used — this one marked. Any
 * other can be ended, or all others at once; this one ends with the sidebar's logout.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';
import { queryKeys } from '../../api/queryKeys';
import { endOtherSessions, endSession, listSessions, type SessionInfo } from '../../api/signin';
import { Spinner } from '../../components/Spinner';
import { useFormat } from '../../i18n/useFormat';
import { toast } from '../../stores/toasts';
import { confirmDanger } from '../prompts/ConfirmPrompt';
import './signin.css';

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));

export function SessionsCard() {
  const { t } = useTranslation();
  const format = useFormat();
  const client = useQueryClient();
  const titleId = useId();
  const sessions = useQuery({
    queryKey: queryKeys.sessions(),
    queryFn: ({ signal }) => listSessions(signal),
  });
  const others = (sessions.data ?? []).filter((s) => !s.current).length;

  function describe(s: SessionInfo): string {
    if (s.browser && s.os) return t('settings.sessions.browserOn', { browser: s.browser, os: s.os });
    return s.browser || s.os || t('settings.sessions.unknown');
  }

  async function run(action: () => Promise<void>, done: string) {
    try {
      await action();
      toast.success(done);
    } catch (err) {
      toast.error(messageOf(err));
    } finally {
      await client.invalidateQueries({ queryKey: queryKeys.sessions() });
    }
  }

  async function handleEnd(s: SessionInfo) {
    const ok = await confirmDanger({
      title: t('settings.sessions.endTitle'),
      text: t('settings.sessions.endText', { device: describe(s) }),
      cancel: t('files.prompts.cancel'),
      confirm: t('settings.sessions.end'),
    });
    if (ok) await run(() => endSession(s.id), t('settings.sessions.ended'));
  }

  async function handleEndOthers() {
    const ok = await confirmDanger({
      title: t('settings.sessions.endOthersTitle'),
      text: t('settings.sessions.endOthersText', { count: others }),
      cancel: t('files.prompts.cancel'),
      confirm: t('settings.sessions.endOthers'),
    });
    if (ok) await run(endOtherSessions, t('settings.sessions.endedOthers'));
  }

  return (
    <section className="card signin-card" aria-labelledby={titleId}>
      <h2 id={titleId} className="card__title">
        {t('settings.sessions.title')}
      </h2>
      <p className="muted">{t('settings.sessions.intro')}</p>
      {sessions.isPending ? <Spinner label={t('common.loading')} /> : null}
      {sessions.isError ? <p className="field__error">{messageOf(sessions.error)}</p> : null}
      <ul className="signin-list" aria-label={t('settings.sessions.title')}>
        {(sessions.data ?? []).map((s) => (
          <li key={s.id} className="signin-list__item" aria-current={s.current ? 'true' : undefined}>
            <div className="signin-list__main">
              <span className="signin-list__name" dir="auto">
                {describe(s)}
                {s.current ? <span className="signin-badge">{t('settings.sessions.current')}</span> : null}
              </span>
              <span className="signin-list__meta">
                {s.address ? <span dir="ltr">{s.address}</span> : null}
                <span>
                  {t('settings.sessions.signedIn', { when: format.dateTime(new Date(s.createdAt * 1000)) })}
                </span>
                <span>
                  {t('settings.sessions.lastUsed', { when: format.relative(new Date(s.lastUsed * 1000)) })}
                </span>
              </span>
            </div>
            {s.current ? null : (
              <button type="button" className="button" onClick={() => void handleEnd(s)}>
                {t('settings.sessions.end')}
              </button>
            )}
          </li>
        ))}
      </ul>
      {others > 0 ? (
        <div className="form-actions">
          <button type="button" className="button button--danger" onClick={() => void handleEndOthers()}>
            {t('settings.sessions.endOthers')}
          </button>
        </div>
      ) : null}
    </section>
  );
}
