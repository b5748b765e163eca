/**
 * The search overlay (docs/client.md §2 "Search overlay"): Enter searches the current folder, chips add
 * type filters, results stream in and show 50 at a time, Escape closes (prompt stack).
 */
import { useEffect, useRef, useState, type FormEvent, type UIEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { search, type SearchResult } from '../../api/search';
import { Icon } from '../../components/Icon';
import { Spinner } from '../../components/Spinner';
import { frameBatches, type FrameBatches } from '../../lib/frameBatches';
import { SEARCH_PAGE } from '../../lib/limits';
import { openPrompt, type PromptProps } from '../../stores/prompts';
import { PromptCard } from '../prompts/PromptCard';
import { filesRoute } from '../../lib/paths';

const TYPES = ['image', 'audio', 'video', 'pdf'] as const;
const NEAR_BOTTOM_PX = 100; // docs/client.md §2: 50 more when scrolled within 100 px of the bottom

type State =
  | { phase: 'idle' }
  | { phase: 'running' | 'done'; results: SearchResult[] }
  | { phase: 'failed'; message: string };

function SearchPrompt({ dir, resolve }: PromptProps<true> & { dir: string }) {
  const { t } = useTranslation();
  const [text, setText] = useState('');
  const [state, setState] = useState<State>({ phase: 'idle' });
  const [shown, setShown] = useState(SEARCH_PAGE);
  const abort = useRef<AbortController | null>(null);
  const batches = useRef<FrameBatches<SearchResult> | null>(null);
  const input = useRef<HTMLInputElement>(null);

  useEffect(
    () => () => {
      abort.current?.abort();
      batches.current?.cancel();
    },
    [],
  );

  function handleSubmit(e: FormEvent) {
    e.preventDefault();
    const query = text.trim();
    if (!query) return; // docs/client.md §5: empty text does nothing
    abort.current?.abort();
    batches.current?.cancel();
    const controller = new AbortController();
    abort.current = controller;
    // Results stream in by the thousand: they join the list once per frame, not one copy each.
    const batch = frameBatches<SearchResult>((items) =>
      setState((s) => (s.phase === 'running' ? { phase: 'running', results: s.results.concat(items) } : s)),
    );
    batches.current = batch;
    setShown(SEARCH_PAGE);
    setState({ phase: 'running', results: [] });
    search(dir, query, batch.push, controller.signal)
      .then(() => {
        if (controller.signal.aborted) return;
        batch.flush();
        setState((s) => (s.phase === 'running' ? { phase: 'done', results: s.results } : s));
      })
      .catch((err: unknown) => {
        batch.cancel();
        if (controller.signal.aborted) return;
        setState({ phase: 'failed', message: err instanceof Error ? err.message : String(err) });
      });
  }

  function addType(type: (typeof TYPES)[number]) {
    const token = `type:${type}`;
    setText((v) => (v.includes(token) ? v : `${token} ${v}`.trim() + ' '));
    // Back to the box: the user goes on typing, or presses Enter to search (issue 17). The caret
    // goes to the end once React has written the new text.
    const box = input.current;
    box?.focus();
    requestAnimationFrame(() => box?.setSelectionRange(box.value.length, box.value.length));
  }

  function handleScroll(e: UIEvent<HTMLElement>) {
    const el = e.currentTarget;
    if (el.scrollHeight - el.scrollTop - el.clientHeight < NEAR_BOTTOM_PX) setShown((n) => n + SEARCH_PAGE);
  }

  const base = dir.endsWith('/') ? dir : `${dir}/`;
  return (
    <PromptCard title={t('search.title')} wide>
      <form role="search" onSubmit={handleSubmit} className="search">
        <div className="search__box">
          <Icon name="search" />
          <input
            ref={input}
            className="search__input"
            type="search"
            data-autofocus
            aria-label={t('search.placeholder')}
            placeholder={t('search.placeholder')}
            value={text}
            onChange={(e) => setText(e.target.value)}
          />
        </div>
        <div className="chips" role="group" aria-label={t('search.types.label')}>
          {TYPES.map((type) => (
            <button key={type} type="button" className="chip" onClick={() => addType(type)}>
              {t(`search.types.${type}`)}
            </button>
          ))}
        </div>
      </form>
      <section
        className="search__results"
        onScroll={handleScroll}
        aria-live="polite"
        aria-busy={state.phase === 'running'}
      >
        {state.phase === 'idle' ? <p className="muted">{t('search.hint')}</p> : null}
        {state.phase === 'failed' ? <p role="alert">{state.message}</p> : null}
        {state.phase === 'running' || state.phase === 'done' ? (
          <>
            <ul className="search__list">
              {state.results.slice(0, shown).map((r) => (
                <li key={r.path}>
                  <Link
                    className="search__item"
                    to={filesRoute(base + r.path + (r.dir ? '/' : ''))}
                    onClick={() => resolve(true)}
                  >
                    <Icon name={r.dir ? 'folder' : 'file'} size={20} />
                    <span dir="auto">{r.path}</span>
                  </Link>
                </li>
              ))}
            </ul>
            {state.phase === 'running' ? <Spinner inline label={t('search.searching')} /> : null}
            {state.phase === 'done' && state.results.length === 0 ? (
              <p className="muted">{t('search.noResults')}</p>
            ) : null}
          </>
        ) : null}
      </section>
    </PromptCard>
  );
}

/** Opens search in `dir` (a folder path). */
export function openSearch(dir: string): Promise<true | null> {
  return openPrompt<true>((props) => <SearchPrompt {...props} dir={dir} />);
}
