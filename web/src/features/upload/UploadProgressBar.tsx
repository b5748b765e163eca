/** A thin bar across the top of the page while upload bytes are being sent (docs/client.md §2). */
import { percentDone } from './speed';
import { useUploads } from './store';
import './upload.css';

export function UploadProgressBar() {
  const sending = useUploads((s) => s.active && s.sent < s.total);
  const percent = useUploads((s) => percentDone(s.sent, s.total));
  if (!sending) return null;
  // The panel says the same in words; this bar is only a glance.
  return (
    <div className="upload-progress" aria-hidden="true">
      <div className="upload-progress__fill" style={{ inlineSize: `${percent}%` }} />
    </div>
  );
}
