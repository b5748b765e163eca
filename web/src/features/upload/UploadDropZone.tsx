/**
 * Files and folders dropped from outside the browser upload into the folder shown, or into the
 * folder item they are dropped on (docs/client.md §2; create permission). The listing is outlined and a
 * hint names the target while files are dragged over the page. Without the permission a drop is
 * refused (and never opens the file in the tab).
 */
import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Icon } from '../../components/Icon';
import { usePrompts } from '../../stores/prompts';
import { carriesFiles, sourcesFromDrop } from './entries';
import { uploadInto } from './upload';
import './upload.css';

const TARGET_ATTR = 'data-drop-target';

export interface UploadDropZoneProps {
  /** The folder shown (ends in `/`). */
  folder: string;
  enabled: boolean;
  children: ReactNode;
}

export function UploadDropZone({ folder, enabled, children }: UploadDropZoneProps) {
  const { t } = useTranslation();
  const folderName = folder === '/' ? t('titles.myFiles') : (folder.slice(0, -1).split('/').pop() ?? '');
  const client = useQueryClient();
  const ref = useRef<HTMLDivElement>(null);
  /** While files are dragged over the page: the name of the target (a folder item or the folder). */
  const [target, setTarget] = useState<string | null>(null);

  useEffect(() => {
    let depth = 0;
    let marked: HTMLElement | null = null;
    const refused = () => !enabled || usePrompts.getState().stack.length > 0;
    function mark(el: HTMLElement | null) {
      if (marked === el) return;
      marked?.removeAttribute(TARGET_ATTR);
      marked = el;
      marked?.setAttribute(TARGET_ATTR, '');
    }
    /** The folder item under the pointer, when it is one of this listing's. */
    function folderItem(e: DragEvent): HTMLElement | null {
      const el =
        e.target instanceof Element
          ? e.target.closest<HTMLElement>('[role="option"][data-dir="true"]')
          : null;
      return el && ref.current?.contains(el) ? el : null;
    }
    /** A folder item's name: the text of the element that names the option. */
    const nameOf = (item: HTMLElement | null) =>
      item
        ? (document.getElementById(item.getAttribute('aria-labelledby') ?? '')?.textContent ?? null)
        : null;
    function reset() {
      depth = 0;
      mark(null);
      setTarget(null);
    }
    function handleDragEnter(e: DragEvent) {
      if (!carriesFiles(e.dataTransfer)) return;
      depth += 1;
    }
    function handleDragOver(e: DragEvent) {
      if (!carriesFiles(e.dataTransfer) || !e.dataTransfer) return;
      e.preventDefault();
      if (refused()) {
        e.dataTransfer.dropEffect = 'none';
        return;
      }
      e.dataTransfer.dropEffect = 'copy';
      const item = folderItem(e);
      mark(item);
      setTarget(nameOf(item) ?? folderName);
    }
    function handleDragLeave() {
      if (depth === 0) return;
      depth -= 1;
      if (depth === 0) reset();
    }
    function handleDrop(e: DragEvent) {
      if (!carriesFiles(e.dataTransfer) || !e.dataTransfer) return;
      e.preventDefault();
      const item = folderItem(e);
      reset();
      if (refused()) return;
      const name = nameOf(item);
      const into = name ? `${folder}${name}/` : folder;
      void sourcesFromDrop(e.dataTransfer).then((sources) => uploadInto(into, sources, client));
    }
    document.addEventListener('dragenter', handleDragEnter);
    document.addEventListener('dragover', handleDragOver);
    document.addEventListener('dragleave', handleDragLeave);
    document.addEventListener('drop', handleDrop);
    return () => {
      document.removeEventListener('dragenter', handleDragEnter);
      document.removeEventListener('dragover', handleDragOver);
      document.removeEventListener('dragleave', handleDragLeave);
      document.removeEventListener('drop', handleDrop);
      mark(null);
    };
  }, [enabled, folder, folderName, client]);

  return (
    <div ref={ref} className={target === null ? 'upload-zone' : 'upload-zone upload-zone--over'}>
      {children}
      {target !== null ? (
        <p className="upload-zone__hint" role="status">
          <Icon name="upload" size={20} />
          <span dir="auto">{t('upload.dropHint', { name: target })}</span>
        </p>
      ) : null}
    </div>
  );
}
