/**
 * Settings → Profile, "Two-factor sign-in" (docs/api.md §2.12): set up codes from an authenticator
 * app (a QR code and the key to type, confirmed by a code), then the ten recovery codes shown once;
 * when on, new recovery codes or turning it off, with the current password (json auth).
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { QRCodeSVG } from 'qrcode.react';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { isApiError } from '../../api/errors';
import { queryKeys } from '../../api/queryKeys';
import {
  confirmTotp,
  getSecondFactor,
  newRecoveryCodes,
  startTotp,
  turnOffSecondFactor,
  type TotpEnrolment,
} from '../../api/signin';
import { TextField } from '../../components/Field';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { copyText } from '../../lib/clipboard';
import { toast } from '../../stores/toasts';
import { confirmDanger } from '../prompts/ConfirmPrompt';
import { CurrentPasswordField, useNeedsCurrentPassword } from './CurrentPasswordField';
import './signin.css';

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
/** The key in groups of four, as authenticator apps show it. */
const grouped = (secret: string) => secret.match(/.{1,4}/g)?.join(' ') ?? secret;

export function SecondFactorCard() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const titleId = useId();
  const status = useQuery({
    queryKey: queryKeys.secondFactor(),
    queryFn: ({ signal }) => getSecondFactor(signal),
  });
  const [enrolment, setEnrolment] = useState<TotpEnrolment | null>(null);
  const [code, setCode] = useState('');
  const [codeError, setCodeError] = useState<string | null>(null);
  const [recovery, setRecovery] = useState<string[] | null>(null);
  const [current, setCurrent] = useState('');
  const [currentError, setCurrentError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const needsCurrent = useNeedsCurrentPassword();
  const codesBox = useRef<HTMLDivElement>(null);

  async function refresh() {
    await client.invalidateQueries({ queryKey: queryKeys.secondFactor() });
    await client.invalidateQueries({ queryKey: queryKeys.sessions() });
  }

  async function busyWith(action: () => Promise<void>) {
    setBusy(true);
    try {
      await action();
    } finally {
      setBusy(false);
    }
  }

  function handleStart() {
    void busyWith(async () => {
      try {
        setEnrolment(await startTotp());
        setCode('');
        setCodeError(null);
      } catch (err) {
        toast.error(messageOf(err));
      }
    });
  }

  function handleConfirm(e: FormEvent) {
    e.preventDefault();
    if (!code.trim()) return setCodeError(t('settings.secondFactor.codeRequired'));
    if (needsCurrent && !current) return setCurrentError(t('settings.password.currentRequired'));
    void busyWith(async () => {
      try {
        setRecovery(await confirmTotp(code.trim(), needsCurrent ? current : undefined));
        setEnrolment(null);
        setCurrent('');
        toast.success(t('settings.secondFactor.enabled'));
        await refresh();
      } catch (err) {
        if (isApiError(err) && err.status === 403) setCodeError(t('settings.secondFactor.wrongCode'));
        else if (isApiError(err) && err.status === 400) setCurrentError(t('settings.password.wrongCurrent'));
        else toast.error(messageOf(err));
      }
    });
  }

  /** Runs an action that the current password confirms; a wrong one is shown at the field. */
  function withPassword(action: () => Promise<void>) {
    if (needsCurrent && !current) return setCurrentError(t('settings.password.currentRequired'));
    void busyWith(async () => {
      try {
        await action();
        setCurrent('');
        setCurrentError(null);
        await refresh();
      } catch (err) {
        if (isApiError(err) && err.status === 400) setCurrentError(t('settings.password.wrongCurrent'));
        else toast.error(messageOf(err));
      }
    });
  }

  async function handleTurnOff() {
    const ok = await confirmDanger({
      title: t('settings.secondFactor.offTitle'),
      text: t('settings.secondFactor.offText'),
      cancel: t('files.prompts.cancel'),
      confirm: t('settings.secondFactor.turnOff'),
    });
    if (!ok) return;
    withPassword(async () => {
      await turnOffSecondFactor(current);
      setRecovery(null);
      toast.success(t('settings.secondFactor.disabled'));
    });
  }

  async function handleCopyCodes(codes: string[]) {
    try {
      await copyText(codes.join('\n'));
      toast.success(t('settings.secondFactor.codesCopied'));
    } catch (err) {
      toast.error(messageOf(err));
    }
  }

  const on = status.data?.totp ?? false;
  // The codes are shown once: bring them into view, again once the second factor is on (under
  // --require-second-factor the cards above then appear and push this one down).
  useEffect(() => {
    if (recovery) codesBox.current?.scrollIntoView({ block: 'nearest' });
  }, [recovery, on]);
  return (
    <section className="card signin-card" aria-labelledby={titleId}>
      <h2 id={titleId} className="card__title">
        {t('settings.secondFactor.title')}
      </h2>
      {status.isPending ? <Spinner label={t('common.loading')} /> : null}
      {status.isError ? <p className="field__error">{messageOf(status.error)}</p> : null}
      {recovery ? (
        <div className="signin-secret" role="status" ref={codesBox}>
          <p className="signin-secret__label">{t('settings.secondFactor.codesOnce')}</p>
          <ul className="signin-codes" aria-label={t('settings.secondFactor.codes')} dir="ltr">
            {recovery.map((c) => (
              <li key={c}>
                <code>{c}</code>
              </li>
            ))}
          </ul>
          <div className="form-actions">
            <button type="button" className="button" onClick={() => void handleCopyCodes(recovery)}>
              <Icon name="copy" size={18} />
              {t('settings.secondFactor.copyCodes')}
            </button>
            <button type="button" className="button" onClick={() => setRecovery(null)}>
              {t('settings.appPasswords.done')}
            </button>
          </div>
        </div>
      ) : null}
      {status.data?.required && !on ? (
        <p className="login__problem" role="alert">
          {t('settings.secondFactor.required')}
        </p>
      ) : null}
      {status.data && !on && !enrolment ? (
        <>
          <p className="muted">{t('settings.secondFactor.offIntro')}</p>
          <div className="form-actions">
            <button type="button" className="button button--primary" disabled={busy} onClick={handleStart}>
              {t('settings.secondFactor.setUp')}
            </button>
          </div>
        </>
      ) : null}
      {enrolment ? (
        <form className="signin-enrol" onSubmit={handleConfirm} noValidate>
          <p>{t('settings.secondFactor.scan')}</p>
          <div className="signin-enrol__qr" role="img" aria-label={t('settings.secondFactor.qr')}>
            <QRCodeSVG
              value={enrolment.uri}
              size={180}
              level="M"
              marginSize={2}
              bgColor="#ffffff"
              fgColor="#000000"
            />
          </div>
          <p className="signin-enrol__key">
            {t('settings.secondFactor.manualKey')}{' '}
            <code dir="ltr" data-testid="totp-secret" data-secret={enrolment.secret}>
              {grouped(enrolment.secret)}
            </code>
          </p>
          <TextField
            name="totp-code"
            label={t('settings.secondFactor.code')}
            hint={t('settings.secondFactor.codeHint')}
            error={codeError}
            value={code}
            code
            onChange={(v) => {
              setCode(v);
              setCodeError(null);
            }}
          />
          <CurrentPasswordField
            name="totp-current-password"
            value={current}
            error={currentError}
            onChange={setCurrent}
            onClearError={() => setCurrentError(null)}
          />
          <div className="form-actions">
            <button type="button" className="button" disabled={busy} onClick={() => setEnrolment(null)}>
              {t('files.prompts.cancel')}
            </button>
            <button type="submit" className="button button--primary" disabled={busy}>
              {t('settings.secondFactor.turnOn')}
            </button>
          </div>
        </form>
      ) : null}
      {on ? (
        <>
          <p>
            <Icon name="check" size={16} /> {t('settings.secondFactor.onIntro')}{' '}
            {t('settings.secondFactor.codesLeft', { n: status.data?.recoveryCodesLeft ?? 0 })}
          </p>
          <CurrentPasswordField
            name="second-factor-current-password"
            value={current}
            error={currentError}
            onChange={setCurrent}
            onClearError={() => setCurrentError(null)}
          />
          <div className="form-actions">
            <button
              type="button"
              className="button"
              disabled={busy}
              onClick={() =>
                withPassword(async () => {
                  setRecovery(await newRecoveryCodes(current));
                })
              }
            >
              {t('settings.secondFactor.newCodes')}
            </button>
            <button
              type="button"
              className="button button--danger"
              disabled={busy}
              onClick={() => void handleTurnOff()}
            >
              {t('settings.secondFactor.turnOff')}
            </button>
          </div>
        </>
      ) : null}
    </section>
  );
}
