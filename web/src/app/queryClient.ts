import { QueryClient } from '@tanstack/react-query';
import { isApiError } from '../api/errors';

/** Server data cache. A 4xx is an answer, not a glitch: only connection errors and 5xx retry, once. */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      retry: (failures, err) =>
        failures < 1 && (!isApiError(err) || (!err.canceled && (err.status === 0 || err.status >= 500))),
      refetchOnWindowFocus: false,
    },
  },
});
