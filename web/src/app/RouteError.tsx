/** Shown when a route fails to render or its code fails to load (e.g. after a deploy). */
import { ErrorScreen } from '../features/errors/ErrorScreen';

export function RouteError() {
  return (
    <main id="main">
      <ErrorScreen code={500} />
    </main>
  );
}
