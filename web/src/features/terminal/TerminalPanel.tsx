/**
 * The shell panel (docs/client.md §2 "Shell panel"): a terminal docked at the bottom of the page, a divider
 * that resizes it by pointer or keyboard, the output of past commands and one input line.
 * Rendered by the layout whenever it is open and allowed; the file browser's toggle opens it.
 */
import {
  useCallback,
  useEffect,
  useId,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type FormEvent,
  type KeyboardEvent,
  type PointerEvent,
} from 'react';
import { useTranslation } from 'react-i18next';
import { Icon } from '../../components/Icon';
import { IconButton } from '../../components/IconButton';
import { throttle } from '../../lib/throttle';
import { useTerminalAllowed } from './access';
import {
  clampHeight,
  DEFAULT_HEIGHT_EM,
  DRAG_THROTTLE_MS,
  heightAtPointer,
  heightForKey,
  heightLimits,
  type HeightLimits,
} from './height';
import { freshCursor, step, type HistoryCursor } from './history';
import {
  hideTerminal,
  setTerminalHeight,
  stopCommand,
  submitLine,
  useTerminal,
  type Entry,
} from './store';
import { NotAllowedHint } from './NotAllowedHint';
import { TOGGLE_ID } from './TerminalToggle';
import './terminal.css';

/** docs/client.md §9: window resizes are handled at most every 100 ms. */
const RESIZE_THROTTLE_MS = 100;
/** Output keeps following new lines while the reader is this close to the bottom. */
const FOLLOW_PX = 24;
/** What the root element carries while the panel is shown (room kept under the page). */
const ROOT_CLASS = 'has-terminal';
const SPACE_VAR = '--terminal-space';

function EntryView({ entry }: { entry: Entry }) {
  const { t, i18n } = useTranslation();
  const note =
    entry.end === 'notAllowed'
      ? t('terminal.notAllowed')
      : entry.end === 'failed'
        ? t('terminal.failed')
        : entry.end === 'unreachable'
          ? t('terminal.unreachable')
          : entry.end === 'stopped'
            ? t('terminal.stopped')
            : null;
  const problem = entry.end === 'notAllowed' || entry.end === 'unreachable';
  return (
    <div className="terminal__entry">
      <div className="terminal__command">
        <span className="terminal__prompt">{entry.folder} $</span> {entry.command}
      </div>
      {entry.dropped > 0 ? (
        <p className="terminal__note" dir={i18n.dir()}>
          {t('terminal.dropped', { count: entry.dropped })}
        </p>
      ) : null}
      {entry.lines.length > 0 ? <pre className="terminal__output">{entry.lines.join('\n')}</pre> : null}
      {note ? (
        <p
          className={problem ? 'terminal__note terminal__note--problem' : 'terminal__note'}
          dir={i18n.dir()}
        >
          {note}
        </p>
      ) : null}
      {entry.end === 'notAllowed' ? <NotAllowedHint /> : null}
    </div>
  );
}

function TerminalPanel({ folder }: { folder: string }) {
  const { t } = useTranslation();
  const entries = useTerminal((s) => s.entries);
  const history = useTerminal((s) => s.history);
  const running = useTerminal((s) => s.running);
  const storedHeight = useTerminal((s) => s.height);
  const [value, setValue] = useState('');
  const [limits, setLimits] = useState<HeightLimits>({ min: 2.75, max: DEFAULT_HEIGHT_EM });
  const [dragging, setDragging] = useState(false);
  const cursor = useRef<HistoryCursor>(freshCursor(history));
  const panelRef = useRef<HTMLElement>(null);
  const barRef = useRef<HTMLDivElement>(null);
  const logRef = useRef<HTMLDivElement>(null);
  const inputRef = useRef<HTMLInputElement>(null);
  const follow = useRef(true);
  const emPx = useRef(16);
  const promptId = useId();
  const height = clampHeight(storedHeight ?? DEFAULT_HEIGHT_EM, limits);

  // The em of the panel, the divider's height and the window decide the limits (docs/client.md §2).
  const measure = useCallback(() => {
    const panel = panelRef.current;
    if (!panel) return;
    emPx.current = Number.parseFloat(getComputedStyle(panel).fontSize) || 16;
    setLimits(heightLimits(window.innerHeight, emPx.current, barRef.current?.offsetHeight ?? 0));
  }, []);
  useLayoutEffect(() => {
    measure();
    const onResize = throttle(measure, RESIZE_THROTTLE_MS);
    window.addEventListener('resize', onResize);
    return () => {
      onResize.cancel();
      window.removeEventListener('resize', onResize);
    };
  }, [measure]);

  // Room under the page so its end is never hidden behind the panel.
  useLayoutEffect(() => {
    const panel = panelRef.current;
    const root = document.documentElement;
    if (!panel) return;
    root.classList.add(ROOT_CLASS);
    const observer = new ResizeObserver(() => root.style.setProperty(SPACE_VAR, `${panel.offsetHeight}px`));
    observer.observe(panel);
    return () => {
      observer.disconnect();
      root.classList.remove(ROOT_CLASS);
      root.style.removeProperty(SPACE_VAR);
    };
  }, []);

  // Closing the panel (or leaving the page it is on) ends a running command.
  useEffect(() => () => stopCommand(), []);

  useEffect(() => {
    inputRef.current?.focus();
  }, []);

  // Input comes back when a command ends; give it the focus if the user was in the panel.
  useEffect(() => {
    if (running) return;
    const active = document.activeElement;
    if (!active || active === document.body || panelRef.current?.contains(active)) inputRef.current?.focus();
  }, [running]);

  useLayoutEffect(() => {
    const log = logRef.current;
    if (log && follow.current) log.scrollTop = log.scrollHeight;
  }, [entries, height]);

  function handleScroll() {
    const log = logRef.current;
    if (log) follow.current = log.scrollHeight - log.scrollTop - log.clientHeight < FOLLOW_PX;
  }

  function handleSubmit(e: FormEvent) {
    e.preventDefault();
    const line = value;
    if (line.trim() === '' || running) return;
    const exit = line.trim() === 'exit';
    setValue('');
    follow.current = true;
    submitLine(line, folder);
    cursor.current = freshCursor(useTerminal.getState().history);
    if (exit) document.getElementById(TOGGLE_ID)?.focus();
  }

  function handleKeyDown(e: KeyboardEvent<HTMLInputElement>) {
    if (e.key !== 'ArrowUp' && e.key !== 'ArrowDown') return;
    const moved = step(history, cursor.current, value, e.key === 'ArrowUp' ? -1 : 1);
    e.preventDefault();
    if (!moved) return;
    cursor.current = moved.cursor;
    setValue(moved.value);
  }

  const drag = useMemo(
    () =>
      throttle((clientY: number, em: number, current: HeightLimits) => {
        setTerminalHeight(clampHeight(heightAtPointer(clientY, window.innerHeight, em), current));
      }, DRAG_THROTTLE_MS),
    [],
  );
  useEffect(() => () => drag.cancel(), [drag]);

  function handlePointerDown(e: PointerEvent<HTMLDivElement>) {
    if (e.button !== 0) return;
    e.preventDefault();
    e.currentTarget.setPointerCapture(e.pointerId);
    setDragging(true);
  }

  function handlePointerMove(e: PointerEvent<HTMLDivElement>) {
    if (dragging) drag(e.clientY, emPx.current, limits);
  }

  function handlePointerUp(e: PointerEvent<HTMLDivElement>) {
    if (!dragging) return;
    drag(e.clientY, emPx.current, limits);
    setDragging(false);
  }

  function handleDividerKey(e: KeyboardEvent<HTMLDivElement>) {
    const next = heightForKey(e.key, height, limits);
    if (next === null) return;
    e.preventDefault();
    setTerminalHeight(next);
  }

  function handleClose() {
    hideTerminal();
    document.getElementById(TOGGLE_ID)?.focus();
  }

  const rounded = (n: number) => Math.round(n * 100) / 100;
  return (
    <section
      id="terminal"
      ref={panelRef}
      className={dragging ? 'terminal terminal--dragging' : 'terminal'}
      style={{ blockSize: `${height}em` }}
      aria-label={t('terminal.title')}
    >
      <div ref={barRef} className="terminal__bar">
        <span className="terminal__title" aria-hidden="true">
          <Icon name="terminal" size={16} />
          {t('terminal.title')}
        </span>
        {/* A focusable separator is the WAI-ARIA window splitter: it takes pointer and arrow keys. */}
        {/* eslint-disable-next-line jsx-a11y/no-noninteractive-element-interactions */}
        <div
          className="terminal__divider"
          role="separator"
          aria-orientation="horizontal"
          aria-label={t('terminal.resize')}
          aria-valuemin={rounded(limits.min)}
          aria-valuemax={rounded(limits.max)}
          aria-valuenow={rounded(height)}
          aria-controls="terminal"
          // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex
          tabIndex={0}
          onPointerDown={handlePointerDown}
          onPointerMove={handlePointerMove}
          onPointerUp={handlePointerUp}
          onPointerCancel={handlePointerUp}
          onKeyDown={handleDividerKey}
        >
          <span className="terminal__grip" />
        </div>
        <IconButton small icon="close" label={t('terminal.close')} onClick={handleClose} />
      </div>
      <div className="terminal__body" dir="ltr">
        <div
          ref={logRef}
          className="terminal__log"
          role="log"
          aria-label={t('terminal.output')}
          // Scrollable output must be reachable by keyboard to scroll it.
          // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex
          tabIndex={0}
          onScroll={handleScroll}
        >
          {entries.map((entry) => (
            <EntryView key={entry.id} entry={entry} />
          ))}
        </div>
        <form className="terminal__line" onSubmit={handleSubmit}>
          <span id={promptId} className="terminal__prompt">
            {folder} $
          </span>
          <input
            ref={inputRef}
            className="terminal__input"
            aria-label={t('terminal.input')}
            aria-describedby={promptId}
            value={value}
            disabled={running}
            autoComplete="off"
            autoCapitalize="off"
            autoCorrect="off"
            spellCheck={false}
            enterKeyHint="send"
            onChange={(e) => setValue(e.target.value)}
            onKeyDown={handleKeyDown}
          />
          {running ? (
            <button type="button" className="terminal__stop" onClick={stopCommand}>
              {t('terminal.stop')}
            </button>
          ) : null}
        </form>
      </div>
    </section>
  );
}

/** The panel when it is open and allowed (docs/client.md §2); nothing otherwise. */
export function TerminalDock({ folder }: { folder: string }) {
  const allowed = useTerminalAllowed();
  const open = useTerminal((s) => s.open);
  if (!allowed || !open) return null;
  return <TerminalPanel folder={folder} />;
}
