/** The login form (spec §2 "Login screen"): login, and signup when the server allows it; busy and error states. */
import { useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { login, signup } from '../../api/auth';
import { config, productName, staticUrl } from '../../config';
import { loginProblem, type LoginProblem } from './loginError';
import { Recaptcha, type CaptchaHandle } from './Recaptcha';
import { showErrorPrompt } from '../prompts/MessagePrompt';
import { activeLocale } from '../../i18n';
import { setToken } from '../../stores/session';

type Mode = 'login' | 'signup';
type Problem = LoginProblem | { kind: 'passwordsDontMatch' };

function useProblemText(problem: Problem | null): string | null {
  const { t } = useTranslation();
  if (!problem) return null;
  switch (problem.kind) {
    case 'wrongCredentials':
      return t('login.wrongCredentials');
    case 'usernameTaken':
      return t('login.usernameTaken');
    case 'passwordsDontMatch':
      return t('login.passwordsDontMatch');
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
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<Problem | null>(null);
  const captcha = useRef<CaptchaHandle | null>(null);
  const problemText = useProblemText(problem);
  const signupMode = mode === 'signup' && config.Signup;

  async function handleSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    if (busy) return;
    setProblem(null);
    const recaptcha = config.ReCaptcha ? (captcha.current?.response() ?? '') : '';
    // spec §5: captcha on and not answered → the wrong-credentials message.
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
      setToken(await login(username, password, recaptcha));
    } catch (err) {
      captcha.current?.reset();
      const found = loginProblem(err, signupMode ? 'signup' : 'login');
      if (found.kind === 'other') void showErrorPrompt(found.message);
      else setProblem(found);
      setBusy(false);
    }
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
        {config.ReCaptcha && config.ReCaptchaKey ? (
          <Recaptcha siteKey={config.ReCaptchaKey} label={t('login.captcha')} handle={captcha} />
        ) : null}
        <button className="button button--primary button--block" type="submit" disabled={busy}>
          {busy ? <span className="spinner__ring spinner__ring--small" aria-hidden="true" /> : null}
          {submitText}
        </button>
        {config.Signup ? (
          <button type="button" className="button button--link" onClick={switchMode} disabled={busy}>
            {signupMode ? t('login.toLogin') : t('login.toSignup')}
          </button>
        ) : null}
      </form>
    </main>
  );
}
