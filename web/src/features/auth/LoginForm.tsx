/** The login form (docs/client.md §2 "Login screen"): login, and signup when the server allows it; busy and error states. */
import { useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { login, signup } from '../../api/auth';
import { isApiError } from '../../api/errors';
import { passkeysSupported } from '../../api/webauthnSupport';
import { config, productName, staticUrl } from '../../config';
import { loginProblem, type LoginProblem } from './loginError';
import { Recaptcha, type CaptchaHandle } from './Recaptcha';
import { OidcSignIn } from './OidcSignIn';
import { showErrorPrompt } from '../prompts/MessagePrompt';
import { activeLocale } from '../../i18n';
import { setToken } from '../../stores/session';

type Mode = 'login' | 'signup';
type Problem = LoginProblem | { kind: 'passwordsDontMatch' } | { kind: 'passkeyFailed' };

/**
 * docs/api.md §2.13: a passkey answers the second step under json, hook and oidc's password form;
 * it signs in without a name only under json (under hook the command decides at every sign-in).
 */
const TAKES_PASSWORDS = config.AuthMethod === 'json' || config.AuthMethod === 'hook' || (config.AuthMethod === 'oidc' && Boolean(config.OIDC?.PasswordLogin));
const PASSKEY_STEP = TAKES_PASSWORDS && passkeysSupported();
const PASSKEY_SIGNIN = config.AuthMethod === 'json' && PASSKEY_STEP;

function useProblemText(problem: Problem | null): string | null {
  const { t } = useTranslation();
  if (!problem) return null;
  switch (problem.kind) {
    case 'wrongCredentials':
      return t('login.wrongCredentials');
    case 'wrongCode':
      return t('login.wrongCode');
    case 'secondFactor':
      return null;
    case 'usernameTaken':
      return t('login.usernameTaken');
    case 'passwordsDontMatch':
      return t('login.passwordsDontMatch');
    case 'passkeyFailed':
      return t('login.passkeyFailed');
    case 'connection':
      return t('errors.connection');
    case 'tooManyAttempts': {
      const duration = new Intl.NumberFormat(activeLocale(), {
        style: 'unit',
        unit: 'second',
        unitDisplay: 'long',
      }).format(problem.seconds);
      return t('login.tooManyAttempts', { duration });
    }
    case 'other':
      return null;
  }
}

export function LoginForm() {
  const { t } = useTranslation();
  const [params] = useSearchParams();
  const [mode, setMode] = useState<Mode>(() => (params.get('mode') === 'signup' ? 'signup' : 'login'));
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  // docs/api.md §2.12: after a right password, the second step asks for a code.
  const [codeStep, setCodeStep] = useState(false);
  const [code, setCode] = useState('');
  // What the second step takes (X-Second-Factor): "totp", "passkey" or both.
  const [methods, setMethods] = useState('totp');
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const captcha = useRef<CaptchaHandle | null>(null);
  const problemText = useProblemText(problem);
  const signupMode = mode === 'signup' && config.Signup;
  // docs/api.md §2.13: the oidc method may leave only the provider's button.
  const noPasswords = config.OIDC?.PasswordLogin === false;

  async function handleSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy) return;
    setProblem(null);
    const recaptcha = config.ReCaptcha ? (captcha.current?.response() ?? '') : '';
    // docs/client.md §5: captcha on and not answered → the wrong-credentials message.
    if (config.ReCaptcha && !recaptcha) {
      setProblem({ kind: 'wrongCredentials' });
      return;
    }
    if (signupMode && password !== confirm) {
      setProblem({ kind: 'passwordsDontMatch' });
      return;
    }
    setBusy(true);
    try {
      if (signupMode) await signup(username, password);
      // The signed-in session makes the login route move on to the redirect target (app/guards).
      setToken(await login(username, password, recaptcha, codeStep ? code.trim() : undefined));
    } catch (err) {
      captcha.current?.reset();
      const found = loginProblem(err, codeStep ? 'code' : signupMode ? 'signup' : 'login');
      if (found.kind === 'secondFactor') {
        setMethods(isApiError(err) ? (err.secondFactor ?? 'totp') : 'totp');
        setCodeStep(true);
        setCode('');
      } else if (found.kind === 'other') void showErrorPrompt(found.message);
      else setProblem(found);
      setBusy(false);
    }
  }

  /** A passkey instead of the form: without a name, or as the second step after the password. */
  async function handlePasskey() {
    if (busy) return;
    setProblem(null);
    // docs/api.md §2.13: the passkey step's options take a fresh captcha answer (the first one went
    // to the password step); the sign-in without a name takes none.
    const recaptcha = codeStep && config.ReCaptcha ? (captcha.current?.response() ?? '') : '';
    if (codeStep && config.ReCaptcha && !recaptcha) {
      setProblem({ kind: 'wrongCredentials' });
      return;
    }
    setBusy(true);
    try {
      // The WebAuthn library loads on the first use: the login screen stays within its budget (e2e budget.spec).
      const { secondStepWithPasskey, signInWithPasskey } = await import('../../api/passkeys');
      setToken(codeStep ? await secondStepWithPasskey(username, password, recaptcha) : await signInWithPasskey());
    } catch (err) {
      captcha.current?.reset();
      const found = loginProblem(err, 'code');
      // A refusal, or the browser's own cancel or error (not an ApiError).
      setProblem(found.kind === 'wrongCode' || found.kind === 'other' ? { kind: 'passkeyFailed' } : found);
      setBusy(false);
    }
  }

  /** Back from the code step to the name and password. */
  function startOver() {
    setCodeStep(false);
    setCode('');
    setPassword('');
    setProblem(null);
  }

  function switchMode() {
    setMode(signupMode ? 'login' : 'signup');
    setProblem(null);
    setConfirm('');
  }

  const submitText = signupMode
    ? busy
      ? t('login.signingUp')
      : t('login.signupSubmit')
    : busy
      ? t('login.submitting')
      : t('login.submit');

  return (
    <main className="login" id="main">
      <form className="login__card" onSubmit={(e) => void handleSubmit(e)} aria-busy={busy} noValidate>
        <img className="login__logo" src={staticUrl('img/logo.svg')} alt="" width={72} height={72} />
        <h1 className="login__title">{productName()}</h1>
        {problemText ? (
          <p className="login__problem" role="alert">
            {problemText}
          </p>
        ) : null}
        {codeStep ? null : <OidcSignIn />}
        {codeStep && methods.includes('totp') ? (
          <>
            <p className="login__hint">{t('login.codeIntro')}</p>
            <label className="field">
              <span className="field__label">{t('login.code')}</span>
              <input
                className="input"
                name="otp"
                autoComplete="one-time-code"
                autoCapitalize="off"
                spellCheck={false}
                dir="ltr"
                required
                // The code step has one field; it takes the focus as the step appears.
                // eslint-disable-next-line jsx-a11y/no-autofocus
                autoFocus
                value={code}
                onChange={(e) => setCode(e.target.value)}
              />
            </label>
          </>
        ) : null}
        <div hidden={codeStep || noPasswords} className="login__fields">
          <label className="field">
            <span className="field__label">{t('login.username')}</span>
            <input
              className="input"
              name="username"
              autoComplete="username"
              autoCapitalize="off"
              spellCheck={false}
              required
              // The login screen has one task; starting in its first field is what users expect.
              // eslint-disable-next-line jsx-a11y/no-autofocus
              autoFocus
              value={username}
              onChange={(e) => setUsername(e.target.value)}
            />
          </label>
          <label className="field">
            <span className="field__label">{t('login.password')}</span>
            <input
              className="input"
              name="password"
              type="password"
              autoComplete={signupMode ? 'new-password' : 'current-password'}
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </label>
          {signupMode ? (
            <label className="field">
              <span className="field__label">{t('login.passwordConfirm')}</span>
              <input
                className="input"
                name="passwordConfirm"
                type="password"
                autoComplete="new-password"
                required
                value={confirm}
                onChange={(e) => setConfirm(e.target.value)}
              />
            </label>
          ) : null}
        </div>
        {config.ReCaptcha && config.ReCaptchaKey ? (
          <Recaptcha siteKey={config.ReCaptchaKey} label={t('login.captcha')} handle={captcha} />
        ) : null}
        {codeStep && !methods.includes('totp') ? null : (
          <button
            className="button button--primary button--block"
            type="submit"
            disabled={busy}
            hidden={noPasswords}
          >
            {busy ? <span className="spinner__ring spinner__ring--small" aria-hidden="true" /> : null}
            {submitText}
          </button>
        )}
        {!signupMode && (codeStep ? PASSKEY_STEP && methods.includes('passkey') : PASSKEY_SIGNIN) ? (
          <button
            type="button"
            className="button button--block login__alt"
            onClick={() => void handlePasskey()}
            disabled={busy}
          >
            {codeStep ? t('login.usePasskey') : t('login.withPasskey')}
          </button>
        ) : null}
        {codeStep ? (
          <button type="button" className="button button--link" onClick={startOver} disabled={busy}>
            {t('login.startOver')}
          </button>
        ) : null}
        {config.Signup && !codeStep && !noPasswords ? (
          <button type="button" className="button button--link" onClick={switchMode} disabled={busy}>
            {signupMode ? t('login.toLogin') : t('login.toSignup')}
          </button>
        ) : null}
      </form>
    </main>
  );
}
