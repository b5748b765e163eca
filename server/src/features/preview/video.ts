/**
 * One frame of a video with ffmpeg (docs/api.md §9): the thumbnail and the player's poster. ffmpeg
 * is optional and found at start (`--ffmpeg-path`); without it videos get no thumbnails.
 *
 * ffmpeg runs without a shell, with an argument array and `-nostdin`, under a time limit and an
 * output cap. It never sees a name: the file is opened through `fs/` (the very file the resolver
 * checked) and handed over as descriptor 3, read as `file:/proc/self/fd/3`, so a name starting
 * with `-` or holding `concat:`/`http:` cannot become an option or a protocol. Only the `file`
 * protocol and real video containers are allowed, so a playlist disguised as a video (HLS, concat)
 * cannot make ffmpeg read other files or the network; frames over MAX_PIXELS are not decoded.
 */
import { spawn } from 'node:child_process';
import { findProgram } from '../../fs/host.js';
import { openForChild, type Readable_ } from '../../fs/read.js';

export interface Ffmpeg {
  /** Real path of the binary. */
  path: string;
  /** First line of `ffmpeg -version`, for the start-up log. */
  version: string;
}

/** Containers of the `video` type (docs/api.md §7.4); playlists and concat lists are not among them. */
const DEMUXERS = 'mov,matroska,avi,mpeg,mpegts,flv,asf,ogg,mxf,dv,nut,rm';
/**
 * Pixels of a frame ffmpeg may decode (8192×8192: every 8K video). A frame is held whole before it
 * is scaled, and a small file can declare a huge one (a 1.5 MB MJPEG of 16000×16000 decodes into
 * ~440 MiB; 16-bit RGBA, gigabytes): larger ones are refused, and the video gets the file icon.
 */
const MAX_PIXELS = 8192 * 8192;
/** A frame is never larger than the big preview. */
const MAX_SIDE = 1080;
/** Where the frame is taken, seconds in (early frames are often black); shorter videos: the first. */
const FRAME_AT = 1;
const TIME_LIMIT_MS = 20_000;
const MAX_OUTPUT = 16 * 1024 * 1024;

/** Finds ffmpeg (`configured`: a path, or a name looked up on PATH; "" = none) and checks it runs. */
export async function detectFfmpeg(configured: string, searchPath = process.env.PATH ?? ''): Promise<Ffmpeg | null> {
  if (!configured) return null;
  const found = await findProgram(configured, process.cwd(), searchPath);
  if (!found) return null;
  try {
    const out = await run(found, ['-hide_banner', '-version'], undefined, 10_000);
    if (out.code !== 0) return null;
    return { path: found, version: out.stdout.toString('utf8').split('\n', 1)[0]!.trim() };
  } catch {
    return null;
  }
}

export class VideoFrameError extends Error {}

/**
 * A JPEG of one frame of `p` (a resolved regular file), fitting inside 1080×1080 and upright.
 * Throws VideoFrameError when ffmpeg finds no frame (a broken or audio-only file), runs out of
 * time or writes too much.
 */
export async function videoFrame(ffmpeg: Ffmpeg, p: Readable_): Promise<Buffer> {
  const fh = await openForChild(p);
  try {
    for (const at of [FRAME_AT, 0]) {
      const out = await run(ffmpeg.path, frameArgs(at), fh.fd, TIME_LIMIT_MS);
      if (out.code !== 0) throw new VideoFrameError(`ffmpeg failed (${out.code ?? out.signal})`);
      if (out.stdout.length > 0) return out.stdout;
      // Shorter than FRAME_AT: ffmpeg succeeds with no output; take the first frame instead.
    }
    throw new VideoFrameError('no video frame');
  } finally {
    await fh.close();
  }
}

export function frameArgs(at: number): string[] {
  return [
    '-nostdin',
    '-hide_banner',
    '-loglevel',
    'error',
    '-protocol_whitelist',
    'file',
    '-format_whitelist',
    DEMUXERS,
    '-max_pixels',
    String(MAX_PIXELS),
    '-ss',
    String(at),
    '-i',
    'file:/proc/self/fd/3',
    '-map',
    '0:v:0',
    '-frames:v',
    '1',
    '-an',
    '-sn',
    '-dn',
    '-vf',
    `scale=w='min(${MAX_SIDE},iw)':h='min(${MAX_SIDE},ih)':force_original_aspect_ratio=decrease:force_divisible_by=2,format=yuvj420p`,
    '-f',
    'image2pipe',
    '-c:v',
    'mjpeg',
    '-q:v',
    '2',
    'pipe:1',
  ];
}

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
}

/** Runs `file` with `args` (no shell); `input` becomes its descriptor 3. Killed after `timeoutMs` or past MAX_OUTPUT. */
function run(file: string, args: string[], input: number | undefined, timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, {
      shell: false,
      stdio: input === undefined ? ['ignore', 'pipe', 'ignore'] : ['ignore', 'pipe', 'ignore', input],
      env: { PATH: '/usr/bin:/bin' },
    });
    const chunks: Buffer[] = [];
    let bytes = 0;
    let failure: Error | undefined;
    const kill = (why: string) => {
      failure ??= new VideoFrameError(why);
      child.kill('SIGKILL');
    };
    const timer = setTimeout(() => kill('ffmpeg took too long'), timeoutMs);
    child.stdout!.on('data', (c: Buffer) => {
      bytes += c.length;
      if (bytes > MAX_OUTPUT) return kill('ffmpeg wrote too much');
      chunks.push(c);
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (failure) reject(failure);
      else resolve({ code, signal, stdout: Buffer.concat(chunks) });
    });
  });
}
