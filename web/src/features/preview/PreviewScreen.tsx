/**
 * The preview of a file that does not open in the editor (docs/client.md §2): images, video, audio and PDF
 * in the page, anything else as a card. Escape closes, Left/Right step through the folder's files,
 * Ctrl/Cmd+S downloads.
 */
import { useEffect, useRef, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { Resource } from '../../api/resources';
import { isTypingTarget } from '../../lib/keyboard';
import { usePrompts } from '../../stores/prompts';
import { FileScreenToolbar } from './FileScreenToolbar';
import { ImageViewer } from './ImageViewer';
import { isMediaTarget, isScrollingTarget } from './keys';
import { MediaViewer } from './MediaViewer';
import { isExtractable } from '../jobs/useExtractAction';
import { ArchiveViewer } from './ArchiveViewer';
import { PdfViewer } from './PdfViewer';
import { PreviewCard } from './PreviewCard';
import { useFileActions } from './useFileActions';
import './preview.css';

const leaveFreely = () => Promise.resolve(true);

export default function PreviewScreen({ file }: { file: Resource }) {
  const { t } = useTranslation();
  const actions = useFileActions(file, leaveFreely);
  const promptOpen = usePrompts((s) => s.stack.length > 0);

  const latest = useRef(actions);
  useEffect(() => {
    latest.current = actions;
  });
  useEffect(() => {
    if (promptOpen) return;
    function handleKeyDown(e: KeyboardEvent) {
      const a = latest.current;
      if ((e.ctrlKey || e.metaKey) && !e.shiftKey && e.key.toLowerCase() === 's') {
        e.preventDefault();
        if (a.can.download) a.download();
        return;
      }
      if (e.ctrlKey || e.metaKey || e.altKey || e.shiftKey || isTypingTarget(e.target)) return;
      // Left and right follow the reading direction: in Arabic or Hebrew the next file is on the left.
      const rtl = document.documentElement.dir === 'rtl';
      if (e.key === 'Escape') void a.close();
      else if (isMediaTarget(e.target) || isScrollingTarget(e.target)) return;
      else if (e.key === 'ArrowLeft') void a.goTo(rtl ? a.neighbours.next : a.neighbours.previous);
      else if (e.key === 'ArrowRight') void a.goTo(rtl ? a.neighbours.previous : a.neighbours.next);
      else return;
      e.preventDefault();
    }
    window.addEventListener('keydown', handleKeyDown);
    return () => window.removeEventListener('keydown', handleKeyDown);
  }, [promptOpen]);

  const toolbar = <FileScreenToolbar actions={actions} keyboard />;
  const props = { file, actions };
  let viewer: ReactNode;
  // Every in-page viewer reads the file's bytes, which needs the download permission (S10).
  if (!actions.can.download)
    viewer = (
      <>
        {toolbar}
        <PreviewCard file={file} message={t('preview.noDownload')} />
      </>
    );
  else if (file.type === 'image') viewer = <ImageViewer key={file.path} {...props} />;
  else if (file.type === 'video' || file.type === 'audio') viewer = <MediaViewer key={file.path} {...props} />;
  else if (file.type === 'pdf') viewer = <PdfViewer key={file.path} {...props} />;
  else if (isExtractable({ name: file.name, isDir: false }))
    viewer = (
      <>
        {toolbar}
        <ArchiveViewer key={file.path} file={file} />
      </>
    );
  else
    viewer = (
      <>
        {toolbar}
        <PreviewCard file={file} />
      </>
    );
  return <div className="file-screen">{viewer}</div>;
}
