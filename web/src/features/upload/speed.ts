/**
 * Upload speed and remaining time (docs/client.md §2 "Upload progress panel", §9): the speed is the average
 * of the last 5 one-second samples, blended 20/80 with the previous value.
 */
import { SPEED_BLEND, SPEED_SAMPLES } from '../../lib/limits';

export interface SpeedState {
  /** Bytes per second of the latest samples, oldest first (at most SPEED_SAMPLES). */
  samples: readonly number[];
  /** Smoothed bytes per second; null before the first sample. */
  speed: number | null;
}

export const NO_SPEED: SpeedState = { samples: [], speed: null };

/** Adds one sample (bytes per second). The first sample has nothing to blend with and is taken as is. */
export function nextSpeed(state: SpeedState, sample: number): SpeedState {
  const samples = [...state.samples, Math.max(0, sample)].slice(-SPEED_SAMPLES);
  const average = samples.reduce((sum, s) => sum + s, 0) / samples.length;
  const speed = state.speed === null ? average : SPEED_BLEND * average + (1 - SPEED_BLEND) * state.speed;
  return { samples, speed };
}

/** Seconds left at `speed` bytes per second; null when unknown (no speed yet, or stalled). */
export function remainingSeconds(remainingBytes: number, speed: number | null): number | null {
  if (speed === null || !(speed > 0) || !Number.isFinite(speed)) return null;
  return Math.max(0, Math.ceil(remainingBytes / speed));
}

const pad = (n: number) => String(n).padStart(2, '0');

/** hh:mm:ss, or "--:--:--" when unknown. Hours keep growing past 99. */
export function formatRemaining(seconds: number | null): string {
  if (seconds === null || !Number.isFinite(seconds)) return '--:--:--';
  const s = Math.max(0, Math.round(seconds));
  return `${pad(Math.floor(s / 3600))}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}`;
}

/** Whole percent done, never 100 before everything is sent; 0 for an empty total. */
export function percentDone(sent: number, total: number): number {
  if (!(total > 0)) return 0;
  if (sent >= total) return 100;
  return Math.min(99, Math.floor((Math.max(0, sent) / total) * 100));
}
