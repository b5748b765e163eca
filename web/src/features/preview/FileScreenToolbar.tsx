/**
 * The bar above an open file: close, previous/next in the folder, the screen's own controls, and
 * download, share, info, rename and delete as the user's permissions allow. It stays on one line:
 * what does not fit goes into a "More" menu (OverflowToolbar), the file's actions first, then the
 * screen's controls; close, previous/next and the editor's Save always stay.
 */
import { useTranslation } from 'react-i18next';
import {
  OverflowToolbar,
  ToolbarButton,
  type ToolbarAction,
  type ToolbarItem,
} from '../../components/OverflowToolbar';
import { useNarrow } from '../../lib/useNarrow';
import type { FileActions } from './useFileActions';

/** When the screen's controls leave for the More menu: after the file's actions (0 to 4). */
export const CONTROL_LEAVE = { fit: 5, zoom: 6, openInNewTab: 7 } as const;

export interface FileScreenToolbarProps {
  actions: FileActions;
  /** Controls of the screen (zoom, save), placed after the navigation. */
  controls?: ToolbarItem[];
  /** The preview answers Escape and the arrow keys; the editor keeps them for the text. */
  keyboard?: boolean;
}

export function FileScreenToolbar({ actions, controls = [], keyboard = false }: FileScreenToolbarProps) {
  const { t, i18n } = useTranslation();
  // On a phone the bar is icons (tooltips, accessible names) and a More menu, as the listing's.
  const narrow = useNarrow();
  const { neighbours, can } = actions;
  // Previous sits at the start of the line: on the right in right-to-left languages.
  const [back, forward] = i18n.dir() === 'rtl' ? ['ArrowRight', 'ArrowLeft'] : ['ArrowLeft', 'ArrowRight'];
  const step = (which: 'previous' | 'next', key: string): ToolbarAction => ({
    id: which,
    icon: which,
    label: t(which === 'previous' ? 'preview.previous' : 'preview.next'),
    onRun: () => void actions.goTo(neighbours[which]),
    disabled: !neighbours[which],
    shortcut: keyboard ? key : undefined,
    iconOnly: true,
  });
  const previous = step('previous', back);
  const next = step('next', forward);
  const position =
    neighbours.position > 0
      ? t('preview.position', { position: neighbours.position, count: neighbours.count })
      : '';

  const items: (ToolbarItem | false)[] = [
    {
      action: {
        id: 'close',
        icon: 'close',
        label: t('preview.close'),
        onRun: () => void actions.close(),
        shortcut: keyboard ? 'Escape' : undefined,
      },
      primary: !narrow,
      leave: null,
    },
    neighbours.count > 1 && {
      id: 'nav',
      measure: [previous.label, next.label, position].join('\u0000'),
      render: () => (
        <span className="file-toolbar__nav">
          <ToolbarButton action={previous} />
          {position ? <span className="file-toolbar__position">{position}</span> : null}
          <ToolbarButton action={next} />
        </span>
      ),
    },
    ...controls,
    // The file's own actions, at the end of the line; they leave for the menu first.
    can.download && {
      action: {
        id: 'download',
        icon: 'download',
        label: t('files.actions.download'),
        onRun: actions.download,
        shortcut: keyboard ? 'Control+S' : undefined,
      },
      primary: !narrow,
      leave: 4,
      end: true,
    },
    can.share && {
      action: { id: 'share', icon: 'share', label: t('files.actions.share'), onRun: actions.share },
      leave: 1,
      end: true,
    },
    {
      action: { id: 'info', icon: 'info', label: t('preview.info'), onRun: actions.info },
      leave: 0,
      end: true,
    },
    can.rename && {
      action: {
        id: 'rename',
        icon: 'rename',
        label: t('files.actions.rename'),
        onRun: () => void actions.rename(),
      },
      leave: 2,
      end: true,
    },
    can.delete && {
      action: {
        id: 'delete',
        icon: 'trash',
        label: t('files.actions.delete'),
        onRun: () => void actions.remove(),
        danger: true,
      },
      leave: 3,
      end: true,
    },
  ];
  return (
    <OverflowToolbar
      label={t('preview.actions')}
      className="file-toolbar"
      items={items.filter((item): item is ToolbarItem => !!item)}
    />
  );
}
