/**
 * The jobs panel (docs/client.md §2 "Jobs panel"): the user's jobs on the server (extract,
 * compress) with a bar each, cancel while they wait or run, the reason when one failed and a link
 * to what a finished one made. It asks the server every second while a job is unfinished; closing
 * it forgets the ended jobs. A job that finishes refreshes the listings.
 */
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Job } from '@coffer/protocol';
import { cancelJob, forgetJob, listJobs } from '../../api/jobs';
import { queryKeys } from '../../api/queryKeys';
import { Icon } from '../../components/Icon';
import { IconButton } from '../../components/IconButton';
import { useFormat } from '../../i18n/useFormat';
import { filesRoute } from '../../lib/paths';
import { isUnfinished, jobDetail, jobPercent, jobTitle } from './label';
import '../upload/upload.css';

/** How often the list is asked for while a job is unfinished. */
export const JOBS_POLL_MS = 1000;

export function JobsPanel() {
  const { t } = useTranslation();
  const client = useQueryClient();
  const titleId = useId();
  const listId = useId();
  const [collapsed, setCollapsed] = useState(false);
  const { data } = useQuery({
    queryKey: queryKeys.jobs(),
    queryFn: ({ signal }) => listJobs(signal),
    refetchInterval: (q) => (q.state.data?.some(isUnfinished) ? JOBS_POLL_MS : false),
  });
  const jobs = data ?? [];

  // A job that ended since the first answer changed files: the listings are read again. Counted
  // by the ended jobs seen, not by jobs seen running: a quick job may be done by its first answer.
  const ended = useRef<Set<string> | null>(null);
  useEffect(() => {
    if (!data) return;
    const now = data.filter((j) => !isUnfinished(j)).map((j) => j.id);
    const seen = ended.current;
    ended.current = new Set(now);
    if (seen && now.some((id) => !seen.has(id)))
      void client.invalidateQueries({ queryKey: queryKeys.resources() });
  }, [data, client]);

  if (jobs.length === 0) return null;
  const running = jobs.filter(isUnfinished).length;
  const refresh = () => client.invalidateQueries({ queryKey: queryKeys.jobs() });

  async function cancel(job: Job) {
    await cancelJob(job.id).catch(() => undefined); // ended meanwhile (409): the refresh shows how
    await refresh();
  }

  async function dismiss() {
    await Promise.all(
      jobs.filter((j) => !isUnfinished(j)).map((j) => forgetJob(j.id).catch(() => undefined)),
    );
    await refresh();
  }

  return (
    <section className="upload-panel jobs-panel" aria-labelledby={titleId}>
      <div className="upload-panel__head">
        <h2 id={titleId} className="upload-panel__title">
          {t('jobs.heading')}
          {running > 0 ? (
            <span className="upload-panel__count">{t('jobs.running', { count: running })}</span>
          ) : null}
        </h2>
        {running === 0 ? (
          <IconButton icon="close" label={t('jobs.close')} onClick={() => void dismiss()} />
        ) : null}
        <IconButton
          className={collapsed ? 'upload-panel__toggle' : 'upload-panel__toggle upload-panel__toggle--open'}
          icon="chevronDown"
          label={t(collapsed ? 'jobs.expand' : 'jobs.collapse')}
          onClick={() => setCollapsed((c) => !c)}
          aria-expanded={!collapsed}
          aria-controls={listId}
        />
      </div>
      <ul id={listId} className="upload-panel__files" hidden={collapsed}>
        {jobs.map((job) => (
          <JobRow key={job.id} job={job} onCancel={() => void cancel(job)} />
        ))}
      </ul>
    </section>
  );
}

const ROW_STATE = {
  queued: 'queued',
  running: 'running',
  done: 'done',
  failed: 'failed',
  cancelled: 'failed',
} as const;

function JobRow({ job, onCancel }: { job: Job; onCancel: () => void }) {
  const { t } = useTranslation();
  const format = useFormat();
  const title = jobTitle(job, t);
  const percent = jobPercent(job);
  const failed = job.state === 'failed';
  return (
    <li className={`upload-file upload-file--${ROW_STATE[job.state]} job`} data-state={job.state}>
      <div className="upload-file__line">
        {failed ? <Icon name="error" size={18} /> : null}
        {job.state === 'done' ? <Icon name="check" size={18} /> : null}
        <span className="upload-file__name" dir="auto" title={title}>
          {title}
        </span>
        {isUnfinished(job) ? (
          <button
            type="button"
            className="button job__cancel"
            onClick={onCancel}
            aria-label={t('jobs.cancelOne', { name: title })}
          >
            {t('jobs.cancel')}
          </button>
        ) : null}
        {job.state === 'done' && job.result?.path ? (
          <Link className="button job__open" to={filesRoute(job.result.path)}>
            {t('jobs.open')}
          </Link>
        ) : null}
      </div>
      {isUnfinished(job) ? (
        <div
          className="upload-file__bar"
          role="progressbar"
          aria-label={title}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={percent}
        >
          <div className="upload-file__fill" style={{ inlineSize: `${percent}%` }} />
        </div>
      ) : null}
      <div className="upload-file__detail" role={failed ? 'alert' : undefined} dir="auto">
        {jobDetail(job, t, format.size)}
      </div>
    </li>
  );
}
