/** The shell toggle of the file browser header (docs/client.md §2 "File browser"), as a toolbar action. */
import { useTranslation } from 'react-i18next';
import type { FileAction } from '../files/actions';
import { useTerminalAllowed } from './access';
import { toggleTerminal, useTerminal } from './store';

export const TOGGLE_ID = 'terminal-toggle';

/** The toggle, or null when the shell is not enabled or the user lacks the execute permission. */
export function useTerminalAction(): FileAction | null {
  const { t } = useTranslation();
  const allowed = useTerminalAllowed();
  const open = useTerminal((s) => s.open);
  if (!allowed) return null;
  return {
    id: 'shell',
    label: t('terminal.title'),
    icon: 'terminal',
    onRun: toggleTerminal,
    pressed: open,
    domId: TOGGLE_ID,
    controls: open ? 'terminal' : undefined,
  };
}
