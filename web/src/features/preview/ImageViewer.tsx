/**
 * An image: the server's 1080 px preview while it fits the screen (when preview resizing is on),
 * the original when zoomed or when the preview fails; zoom with buttons, +/-/0 and double click.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { Resource } from '../../api/resources';
import { config } from '../../config';
import { useFormat } from '../../i18n/useFormat';
import { isTypingTarget } from '../../lib/keyboard';
import { usePrompts } from '../../stores/prompts';
import { inlineUrl } from '../files/api';
import { bigPreviewUrl } from './fileScreen';
import { ToolbarButton, type ToolbarAction } from '../../components/OverflowToolbar';
import { CONTROL_LEAVE, FileScreenToolbar } from './FileScreenToolbar';
import type { FileActions } from './useFileActions';
import { PreviewCard } from './PreviewCard';
import { fitScale, nextZoom, type Size, type Zoom } from './zoom';

type Source = 'preview' | 'original' | 'failed';

/** The original's pixel size, read without showing it. */
async function naturalSize(url: string): Promise<Size> {
  const img = new Image();
  img.src = url;
  await img.decode();
  return { width: img.naturalWidth, height: img.naturalHeight };
}

export interface ViewerProps {
  file: Resource;
  /** What the screen's toolbar offers (FileScreenToolbar), with the viewer's own controls. */
  actions: FileActions;
}

export function ImageViewer({ file, actions }: ViewerProps) {
  const { t } = useTranslation();
  const { locale } = useFormat();
  const stage = useRef<HTMLDivElement>(null);
  const [source, setSource] = useState<Source>(config.ResizePreview ? 'preview' : 'original');
  const [zoom, setZoom] = useState<Zoom>('fit');
  const [natural, setNatural] = useState<Size | null>(null);
  const original = inlineUrl(file.path);
  const showOriginal = source === 'original' || zoom !== 'fit';
  const src = showOriginal ? original : bigPreviewUrl(file.path, file.modified);

  const zoomBy = useCallback(
    async (direction: 1 | -1) => {
      let size = natural;
      if (!size) {
        try {
          size = await naturalSize(original);
        } catch {
          return;
        }
        setNatural(size);
      }
      const box = stage.current;
      const base =
        zoom === 'fit'
          ? fitScale(size, {
              width: box?.clientWidth ?? size.width,
              height: box?.clientHeight ?? size.height,
            })
          : zoom;
      setZoom(nextZoom(base, direction));
    },
    [natural, original, zoom],
  );

  const toggleFit = useCallback(() => setZoom((z) => (z === 'fit' ? 1 : 'fit')), []);
  const promptOpen = usePrompts((s) => s.stack.length > 0);
  useEffect(() => {
    if (promptOpen) return;
    function handleKeyDown(e: KeyboardEvent) {
      if (isTypingTarget(e.target) || e.ctrlKey || e.metaKey || e.altKey) return;
      if (e.key === '+' || e.key === '=') void zoomBy(1);
      else if (e.key === '-') void zoomBy(-1);
      else if (e.key === '0') setZoom('fit');
      else return;
      e.preventDefault();
    }
    window.addEventListener('keydown', handleKeyDown);
    return () => window.removeEventListener('keydown', handleKeyDown);
  }, [promptOpen, zoomBy]);

  if (source === 'failed') {
    return (
      <>
        <FileScreenToolbar actions={actions} keyboard />
        <PreviewCard file={file} message={t('preview.imageError')} />
      </>
    );
  }

  const percent = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 0 });
  const zoomed = zoom !== 'fit' && natural;
  const readout = zoom === 'fit' ? t('preview.fitShort') : percent.format(zoom);
  const zoomOut: ToolbarAction = {
    id: 'zoomOut',
    icon: 'zoomOut',
    label: t('preview.zoomOut'),
    onRun: () => void zoomBy(-1),
    shortcut: '-',
    iconOnly: true,
  };
  const zoomIn: ToolbarAction = {
    id: 'zoomIn',
    icon: 'zoomIn',
    label: t('preview.zoomIn'),
    onRun: () => void zoomBy(1),
    shortcut: '+',
    iconOnly: true,
  };
  return (
    <>
      <FileScreenToolbar
        actions={actions}
        keyboard
        controls={[
          {
            id: 'zoom',
            // The buttons are icons: only the readout changes the group's width.
            measure: readout,
            render: () => (
              <span className="file-toolbar__group" role="group" aria-label={t('preview.zoom')}>
                <ToolbarButton action={zoomOut} />
                <output className="file-toolbar__zoom" aria-live="polite">
                  {readout}
                </output>
                <ToolbarButton action={zoomIn} />
              </span>
            ),
            menu: [zoomOut, zoomIn],
            leave: CONTROL_LEAVE.zoom,
          },
          {
            action: {
              id: 'fit',
              icon: 'fit',
              label: zoom === 'fit' ? t('preview.actualSize') : t('preview.fit'),
              onRun: toggleFit,
              shortcut: zoom === 'fit' ? undefined : '0',
              iconOnly: true,
            },
            leave: CONTROL_LEAVE.fit,
          },
        ]}
      />
      <div
        ref={stage}
        className={zoomed ? 'image-stage image-stage--zoomed' : 'image-stage'}
        role="group"
        aria-label={file.name}
        // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- a zoomed image scrolls: keyboard users scroll it with the arrow keys once it has focus
        tabIndex={zoomed ? 0 : undefined}
      >
        <img
          key={src}
          className="image-stage__image"
          src={src}
          alt={file.name}
          style={zoomed ? { inlineSize: natural.width * zoom, blockSize: natural.height * zoom } : undefined}
          onDoubleClick={toggleFit}
          onLoad={(e) => {
            if (showOriginal) {
              const img = e.currentTarget;
              setNatural({ width: img.naturalWidth, height: img.naturalHeight });
            }
          }}
          onError={() => setSource(showOriginal ? 'failed' : 'original')}
        />
      </div>
    </>
  );
}
