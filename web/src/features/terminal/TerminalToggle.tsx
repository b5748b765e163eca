/** The shell toggle of the file browser header (spec §2 "File browser"). */
import { useTranslation } from 'react-i18next';
import { Icon } from '../../components/Icon';
import { useTerminalAllowed } from './access';
import { toggleTerminal, useTerminal } from './store';

export const TOGGLE_ID = 'terminal-toggle';

export function TerminalToggle() {
  const { t } = useTranslation();
  const allowed = useTerminalAllowed();
  const open = useTerminal((s) => s.open);
  if (!allowed) return null;
  return (
    <button
      id={TOGGLE_ID}
      type="button"
      className="toolbar__button"
      aria-pressed={open}
      aria-controls={open ? 'terminal' : undefined}
      onClick={toggleTerminal}
    >
      <Icon name="terminal" size={20} />
      <span>{t('terminal.title')}</span>
    </button>
  );
}
