/** The help prompt (spec §2): the keyboard shortcuts of the file browser. */
import { useTranslation } from 'react-i18next';
import type { PromptProps } from '../../stores/prompts';
import { openPrompt } from '../../stores/prompts';
import { PromptCard } from './PromptCard';

// Key names are the same in every language; mouse gestures are translated.
const SHORTCUTS = [
  { keys: 'F1', action: 'help.actions.f1' },
  { keys: 'F2', action: 'help.actions.f2' },
  { keys: 'DEL', action: 'help.actions.del' },
  { keys: 'ESC', action: 'help.actions.esc' },
  { keys: 'CTRL + S', action: 'help.actions.ctrlS' },
  { keys: 'CTRL + SHIFT + F', action: 'help.actions.ctrlShiftF' },
  { gesture: 'help.keys.ctrlClick', action: 'help.actions.ctrlClick' },
  { gesture: 'help.keys.click', action: 'help.actions.click' },
  { gesture: 'help.keys.doubleClick', action: 'help.actions.doubleClick' },
] as const;

function HelpPrompt({ resolve }: PromptProps<true>) {
  const { t } = useTranslation();
  return (
    <PromptCard
      title={t('help.title')}
      onEnter={() => resolve(true)}
      actions={
        <button type="button" className="button button--primary" data-autofocus onClick={() => resolve(true)}>
          {t('common.ok')}
        </button>
      }
    >
      <dl className="shortcuts">
        {SHORTCUTS.map((s) => (
          <div key={s.action} className="shortcuts__row">
            <dt>{'keys' in s ? <kbd dir="ltr">{s.keys}</kbd> : <kbd>{t(s.gesture)}</kbd>}</dt>
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
