/** --require-second-factor on the client (docs/api.md §2.12). */
import { useQuery } from '@tanstack/react-query';
import { queryKeys } from '../../api/queryKeys';
import { getSecondFactor } from '../../api/signin';
import { useSession } from '../../stores/session';

/** True while the signed-in user must set up a second factor before anything else. */
export function useMustEnrol(): boolean {
  const signedIn = useSession((s) => s.user !== null);
  const status = useQuery({
    queryKey: queryKeys.secondFactor(),
    queryFn: ({ signal }) => getSecondFactor(signal),
    enabled: signedIn,
    staleTime: 60_000,
  });
  // A passkey is a second factor too (docs/api.md §2.13).
  return Boolean(status.data?.required && !status.data.totp && status.data.passkeys === 0);
}
