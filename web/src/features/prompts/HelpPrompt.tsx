/**
 * The help prompt (docs/client.md §2): the file browser's keyboard shortcuts — the spec's F1, F2, DEL, ESC,
 * CTRL+S, CTRL+SHIFT+F, CTRL+Click, Click and Double click, then the others it supports — and
 * its mouse and touch gestures.
 */
import { useTranslation } from 'react-i18next';
import type { PromptProps } from '../../stores/prompts';
import { openPrompt } from '../../stores/prompts';
import { PromptCard } from './PromptCard';

// Key names are the same in every language; mouse and touch gestures are translated.
const KEYS = [
  { keys: 'F1', action: 'help.actions.f1' },
  { keys: 'F2', action: 'help.actions.f2' },
  { keys: 'DEL', action: 'help.actions.del' },
  { keys: 'ESC', action: 'help.actions.esc' },
  { keys: 'CTRL + S', action: 'help.actions.ctrlS' },
  { keys: 'CTRL + SHIFT + F', action: 'help.actions.ctrlShiftF' },
  { keys: 'CTRL + C', action: 'help.actions.ctrlC' },
  { keys: 'CTRL + X', action: 'help.actions.ctrlX' },
  { keys: 'CTRL + V', action: 'help.actions.ctrlV' },
  { keys: 'CTRL + A', action: 'help.actions.ctrlA' },
  { keys: '↑ ↓ ← →', action: 'help.actions.arrows' },
  { keys: 'SHIFT + ↑ ↓ ← →', action: 'help.actions.shiftArrows' },
  { keys: 'HOME / END', action: 'help.actions.homeEnd' },
  { keys: 'SPACE', action: 'help.actions.space' },
  { keys: 'ENTER', action: 'help.actions.enter' },
  { keys: 'SHIFT + F10', action: 'help.actions.contextMenu' },
] as const;

const GESTURES = [
  { gesture: 'help.keys.ctrlClick', action: 'help.actions.ctrlClick' },
  { gesture: 'help.keys.click', action: 'help.actions.click' },
  { gesture: 'help.keys.doubleClick', action: 'help.actions.doubleClick' },
  { gesture: 'help.keys.shiftClick', action: 'help.actions.shiftClick' },
  { gesture: 'help.keys.rightClick', action: 'help.actions.contextMenu' },
  { gesture: 'help.keys.longPress', action: 'help.actions.longPress' },
  { gesture: 'help.keys.drag', action: 'help.actions.drag' },
] as const;

function HelpPrompt({ resolve }: PromptProps<true>) {
  const { t } = useTranslation();
  return (
    <PromptCard
      title={t('help.title')}
      wide
      scrollable
      onEnter={() => resolve(true)}
      actions={
        <button type="button" className="button button--primary" data-autofocus onClick={() => resolve(true)}>
          {t('common.ok')}
        </button>
      }
    >
      <h3 className="shortcuts__heading">{t('help.keyboard')}</h3>
      <dl className="shortcuts">
        {KEYS.map((s) => (
          <div key={s.keys} className="shortcuts__row">
            <dt>
              <kbd dir="ltr">{s.keys}</kbd>
            </dt>
            <dd>{t(s.action)}</dd>
          </div>
        ))}
      </dl>
      <p className="shortcuts__note">{t('help.macNote')}</p>
      <h3 className="shortcuts__heading">{t('help.pointer')}</h3>
      <dl className="shortcuts">
        {GESTURES.map((s) => (
          <div key={s.gesture} className="shortcuts__row">
            <dt>
              <kbd>{t(s.gesture)}</kbd>
            </dt>
            <dd>{t(s.action)}</dd>
          </div>
        ))}
      </dl>
    </PromptCard>
  );
}

export function showHelp(): Promise<true | null> {
  return openPrompt(HelpPrompt);
}
