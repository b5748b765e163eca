/** docs/client.md §2: the shell panel exists only when the server enables exec and the user may execute. */
import { config } from '../../config';
import { useSession } from '../../stores/session';

export function useTerminalAllowed(): boolean {
  const execute = useSession((s) => s.user?.perm.execute ?? false);
  return config.EnableExec && execute;
}
