/** Jobs: long work on the server with progress (docs/api.md §18). */
import { Type, type Static } from 'typebox';

export const JOB_STATES = ['queued', 'running', 'done', 'failed', 'cancelled'] as const;
export type JobState = (typeof JOB_STATES)[number];
export const JobStateSchema = Type.Unsafe<JobState>({ type: 'string', enum: [...JOB_STATES] });

export const Job = Type.Object({
  id: Type.String({ description: '32 hex digits' }),
  kind: Type.String({ description: 'what the job does, e.g. "extract"' }),
  userId: Type.Integer(),
  username: Type.String(),
  inputs: Type.Record(Type.String(), Type.Unknown(), { description: 'what the job was asked to do' }),
  state: JobStateSchema,
  progress: Type.Object({
    done: Type.Number({ description: 'units done (bytes for extraction)' }),
    total: Type.Number({ description: 'units in all; 0 while unknown' }),
  }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'why it failed (failed, cancelled)' }),
  result: Type.Union([
    Type.Object({
      path: Type.Optional(Type.String({ description: 'what it made, a path in the owner\'s scope' })),
      skipped: Type.Optional(Type.Array(Type.Object({ name: Type.String(), reason: Type.String() }), { description: 'entries left out and why (the first 1,000)' })),
      skippedTotal: Type.Optional(Type.Integer({ description: 'entries left out in all, when more than skipped lists' })),
    }),
    Type.Null(),
  ]),
  created: Type.String({ format: 'date-time' }),
  updated: Type.String({ format: 'date-time' }),
  finished: Type.Union([Type.String({ format: 'date-time' }), Type.Null()]),
});
export type Job = Static<typeof Job>;
export type JobResult = NonNullable<Job['result']>;

/** Archive formats a compress job writes (the `algo` names of docs/api.md §8.2). */
export const COMPRESS_FORMATS = ['zip', 'tar', 'targz', 'tarbz2', 'tarxz', 'tarlz4', 'tarsz', 'tarbr', 'tarzst'] as const;
export type CompressFormat = (typeof COMPRESS_FORMATS)[number];

/** POST /api/compress/{folder} (docs/api.md §18 E12). */
export const CompressBody = Type.Object({
  files: Type.Optional(
    Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), {
      maxItems: 10_000,
      description: 'names in {folder} to put in the archive (not percent-encoded); missing or empty: the folder itself',
    }),
  ),
  destination: Type.String({ minLength: 1, maxLength: 4096, description: 'an existing folder in the scope, where the archive is made' }),
  name: Type.String({ minLength: 1, maxLength: 255, description: 'the archive file name (one segment; it must not exist yet)' }),
  algo: Type.Optional(Type.Unsafe<CompressFormat>({ type: 'string', enum: [...COMPRESS_FORMATS], description: 'the archive format; zip by default' })),
});
export type CompressBody = Static<typeof CompressBody>;

/** One line of GET /api/archive-entries/{path} (docs/api.md §18 E13). */
export const ArchiveEntryLine = Type.Object({
  name: Type.Optional(Type.String({ description: 'the name as the archive holds it (folders may end in "/")' })),
  size: Type.Optional(Type.Number({ description: 'bytes unpacked (0 for folders and links)' })),
  modified: Type.Optional(Type.String({ format: 'date-time' })),
  isDir: Type.Optional(Type.Boolean()),
  error: Type.Optional(Type.String({ description: 'the last line when the list could not be read to its end' })),
});
export type ArchiveEntryLine = Static<typeof ArchiveEntryLine>;
