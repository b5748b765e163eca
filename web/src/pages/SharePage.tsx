/** /share/{hash}/{path*}: the public share page, for visitors and signed-in users alike. */
import { useParams } from 'react-router';
import { PublicShare } from '../features/share/PublicShare';
import { parseShareSplat } from '../features/share/public';

export default function SharePage() {
  const { hash, path } = parseShareSplat(useParams()['*']);
  // Per link: a password typed for one share is never sent to another.
  return <PublicShare key={hash} hash={hash} path={path} />;
}
