/**
 * The reCAPTCHA widget of the login form. The page loads Google's script with render=explicit
 * (docs/api.md §5.2); we wait for it, then render the widget with the injected site key.
 */
import { useEffect, useRef, type RefObject } from 'react';

interface Grecaptcha {
  render(el: HTMLElement, options: { sitekey: string }): number;
  getResponse(id?: number): string;
  reset(id?: number): void;
}

declare global {
  interface Window {
    grecaptcha?: Grecaptcha;
  }
}

export interface CaptchaHandle {
  response(): string;
  reset(): void;
}

const POLL_MS = 100;

/** Resolves once the captcha script has defined grecaptcha.render. */
export function waitForCaptcha(signal?: AbortSignal): Promise<Grecaptcha> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (signal?.aborted) return reject(new DOMException('aborted', 'AbortError'));
      const g = window.grecaptcha;
      if (g && typeof g.render === 'function') resolve(g);
      else setTimeout(check, POLL_MS);
    };
    check();
  });
}

export function Recaptcha({
  siteKey,
  label,
  handle,
}: {
  siteKey: string;
  label: string;
  handle: RefObject<CaptchaHandle | null>;
}) {
  const el = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const abort = new AbortController();
    let widget: number | null = null;
    waitForCaptcha(abort.signal)
      .then((g) => {
        if (!el.current || abort.signal.aborted) return;
        widget = g.render(el.current, { sitekey: siteKey });
        handle.current = {
          response: () => (widget === null ? '' : g.getResponse(widget)),
          reset: () => {
            if (widget !== null) g.reset(widget);
          },
        };
      })
      .catch(() => undefined);
    return () => {
      abort.abort();
      handle.current = null;
    };
  }, [siteKey, handle]);

  return <div className="captcha" ref={el} role="group" aria-label={label} />;
}
