/**
 * Image previews (docs/api.md §9, S82) with sharp (libvips): `thumb` is a 256×256 cover crop as JPEG,
 * `big` fits inside 1080×1080 without enlarging, EXIF orientation applied first. Sources above
 * 50 MiB or 100 megapixels are refused (413), undecodable ones are 415; at most `imgProcessors`
 * resizes run at once; results are cached on disk under `cacheDir` keyed by real path, size,
 * mtime and variant. Videos (with ffmpeg, video.ts): a frame becomes the same `thumb` and `big`;
 * at most `videoConcurrency` ffmpeg processes at once; a video without a frame is 415.
 */
import { createHash } from 'node:crypto';
import sharp, { type FormatEnum, type Metadata } from 'sharp';
import type { DiskCache } from '../../fs/cache.js';
import { readWhole } from '../../fs/read.js';
import type { ScopedPath } from '../../fs/resolve.js';
import { HttpError, PayloadTooLarge } from '../../http/errors.js';
import { Limiter } from './limiter.js';
import { videoFrame, VideoFrameError, type Ffmpeg } from './video.js';

export type PreviewSize = 'thumb' | 'big';

/** S82 bounds. */
export const MAX_SOURCE_BYTES = 50 * 1024 * 1024;
export const MAX_SOURCE_PIXELS = 100_000_000;

const THUMB = 256;
const BIG = 1080;

// libvips keeps decoded images in a cache of its own; previews are cached on disk instead.
sharp.cache(false);

/** For tests and metrics: resizes running now and the most seen at once. */
export const previewStats = { active: 0, peak: 0 };

export interface Preview {
  data: Buffer;
  contentType: string;
}

const OUTPUT_TYPE: Record<string, string> = {
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
  gif: 'image/gif',
};

export class UnsupportedImage extends HttpError {
  constructor() {
    super(415);
  }
}

function cacheKey(p: ScopedPath, variant: string): string {
  const st = p.stat!;
  return createHash('sha1').update(`${p.real}\0${st.size}\0${st.mtimeMs}\0${variant}`).digest('hex');
}

/**
 * Preview requests that may wait for a turn (images; videos, whose ffmpeg runs take longer). A
 * mosaic asks for the tiles it shows; beyond these the server answers 503 with Retry-After at once
 * instead of holding an unbounded line of sockets, and the client asks again later.
 */
export const PREVIEW_QUEUE = 64;
export const VIDEO_QUEUE = 16;

export function createPreviewService(opts: {
  concurrency: number;
  cache?: DiskCache;
  /** ffmpeg when it was found at start: video thumbnails on. */
  ffmpeg?: Ffmpeg | null;
  videoConcurrency?: number;
  /** Requests that may wait for a turn, images and videos; one more is answered 503 + Retry-After. */
  queue?: number;
  videoQueue?: number;
}) {
  const limiter = new Limiter(Math.max(1, opts.concurrency), opts.queue ?? PREVIEW_QUEUE);
  const videoLimiter = new Limiter(Math.max(1, opts.videoConcurrency ?? 2), opts.videoQueue ?? VIDEO_QUEUE);
  const ffmpeg = opts.ffmpeg ?? null;

  /** `make()` once per key: from the cache when it is there, stored in it after. */
  async function cached(key: string, make: () => Promise<Preview>): Promise<Preview & { cached: boolean }> {
    if (opts.cache) {
      const hit = await opts.cache.get(key);
      if (hit) return { data: hit, contentType: sniffOutput(hit), cached: true };
    }
    const result = await make();
    if (opts.cache) await opts.cache.put(key, result.data);
    return { ...result, cached: false };
  }

  async function counted<T>(task: () => Promise<T>): Promise<T> {
    previewStats.active++;
    previewStats.peak = Math.max(previewStats.peak, previewStats.active);
    try {
      return await task();
    } finally {
      previewStats.active--;
    }
  }

  async function render(source: Buffer, size: PreviewSize): Promise<Preview> {
    let meta: Metadata;
    try {
      meta = await sharp(source, { limitInputPixels: false }).metadata();
    } catch {
      throw new UnsupportedImage();
    }
    const pages = meta.pages ?? 1;
    if (
      (meta.width ?? 0) * (meta.height ?? 0) > MAX_SOURCE_PIXELS ||
      pages * (meta.width ?? 0) * (meta.height ?? 0) > 4 * MAX_SOURCE_PIXELS
    ) {
      throw new PayloadTooLarge('image too large to preview');
    }
    const img = sharp(source, { limitInputPixels: MAX_SOURCE_PIXELS, failOn: 'error' }).rotate();
    try {
      if (size === 'thumb') {
        const data = await img
          .resize(THUMB, THUMB, { fit: 'cover', position: 'centre', kernel: 'cubic' })
          .jpeg({ quality: 70, mozjpeg: false })
          .toBuffer();
        return { data, contentType: 'image/jpeg' };
      }
      const resized = img.resize(BIG, BIG, { fit: 'inside', withoutEnlargement: true });
      const source = String(meta.format ?? '');
      const format = OUTPUT_TYPE[source] && source !== 'gif' ? source : meta.hasAlpha ? 'png' : 'jpeg';
      const out =
        format === 'jpeg'
          ? resized.jpeg({ quality: 80 })
          : resized.toFormat(format as keyof FormatEnum, { quality: 80 });
      return { data: await out.toBuffer(), contentType: OUTPUT_TYPE[format]! };
    } catch (err) {
      if (/pixel limit/i.test((err as Error).message))
        throw new PayloadTooLarge('image too large to preview');
      throw new UnsupportedImage();
    }
  }

  return {
    limiter,
    /** The resized image for `p` (a regular image file), from the cache when it is there. */
    async preview(p: ScopedPath, size: PreviewSize, signal?: AbortSignal): Promise<Preview & { cached: boolean }> {
      const st = p.stat!;
      if (st.size > MAX_SOURCE_BYTES) throw new PayloadTooLarge('image too large to preview');
      return cached(cacheKey(p, size), () =>
        limiter.run(() => counted(async () => render(await readWhole(p, st.size), size)), signal),
      );
    },
    /** Whether videos get thumbnails and posters (ffmpeg was found at start). */
    videos: ffmpeg !== null,
    /** A frame of the video `p` as `size`, from the cache when it is there; 415 without a frame. */
    async videoPreview(p: ScopedPath, size: PreviewSize, signal?: AbortSignal): Promise<Preview & { cached: boolean }> {
      if (!ffmpeg) throw new HttpError(501);
      return cached(cacheKey(p, `video-${size}`), () =>
        videoLimiter.run(() =>
          counted(async () => {
            let frame: Buffer;
            try {
              frame = await videoFrame(ffmpeg, p);
            } catch (err) {
              if (err instanceof VideoFrameError) throw new UnsupportedImage();
              throw err;
            }
            return render(frame, size);
          }),
          signal,
        ),
      );
    },
  };
}

/** The type of a cached preview, from its first bytes. */
function sniffOutput(b: Buffer): string {
  if (b[0] === 0xff && b[1] === 0xd8) return 'image/jpeg';
  if (b.subarray(0, 4).toString('latin1') === '\x89PNG') return 'image/png';
  if (b.subarray(0, 4).toString('latin1') === 'RIFF') return 'image/webp';
  if (b.subarray(0, 3).toString('latin1') === 'GIF') return 'image/gif';
  return 'image/avif';
}

export type PreviewService = ReturnType<typeof createPreviewService>;
