import { randomBytes } from 'node:crypto';
import { availableParallelism } from 'node:os';
import { hash as argonHash, verify as argonVerify } from '@node-rs/argon2';
import { verify as bcryptVerify } from '@node-rs/bcrypt';
import { COMMON_PASSWORDS } from './common-passwords.js';
import { shareOf } from '../cluster/budget.js';
import { BadRequest } from '../http/errors.js';

// OWASP's argon2id baseline (19 MiB, 2 passes); hashing runs on libuv's pool, off the event loop.
const ARGON_OPTIONS = { algorithm: 2 /* Algorithm.Argon2id */, memoryCost: 19456, timeCost: 2, parallelism: 1 };
export const MAX_PASSWORD_BYTES = 1024; // S32

/**
 * Hashing runs on libuv's pool (4 threads by default), which file I/O shares. Letting every
 * pool thread hash at once on a small machine starves the event loop and the disk work of other
 * requests (bench/login), so at most cores-1 hashes (1 to 3) run at a time on the box; the rest queue.
 * With `--workers N` each request process runs its part of them (cluster/budget.ts).
 */
export const MAX_CONCURRENT_HASHES = Math.max(1, Math.min(3, availableParallelism() - 1));
let hashing = 0;
const waiting: (() => void)[] = [];

async function limited<T>(work: () => Promise<T>): Promise<T> {
  if (hashing < shareOf(MAX_CONCURRENT_HASHES)) hashing++;
  else await new Promise<void>((resolve) => waiting.push(resolve)); // the slot is handed over
  try {
    return await work();
  } finally {
    const next = waiting.shift();
    if (next) next();
    else hashing--;
  }
}

/**
 * The password hash of a user made by an OIDC or proxy sign-in: no password verifies against it
 * (verifyPassword knows only argon2 and bcrypt), and it marks the user as having no local password
 * (features/signin/methods/confirm.ts). Setting a password replaces it.
 */
export const NO_LOCAL_PASSWORD = '!no-local-password';

export function hasLocalPassword(hash: string): boolean {
  return hash !== NO_LOCAL_PASSWORD;
}

export function hashPassword(plain: string): Promise<string> {
  return limited(() => argonHash(plain, ARGON_OPTIONS));
}

export function isBcrypt(hash: string): boolean {
  return /^\$2[abxy]\$\d\d\$/.test(hash);
}

/**
 * Hashes brought in from elsewhere (imports) are verified at every sign-in attempt of their user,
 * so their cost is bounded: a planted bcrypt cost 31 or argon2 m=4 GiB would hold a hashing slot
 * (or the memory) for as long as the hash says. File Browser hashes with bcrypt cost 10; Coffer's
 * own argon2id is m=19 MiB, t=2, p=1.
 */
export const MAX_BCRYPT_COST = 14;
export const MAX_ARGON2 = { memoryKiB: 256 * 1024, time: 16, parallelism: 8 } as const;
const BCRYPT_FULL = /^\$2[abxy]\$(\d\d)\$[./A-Za-z0-9]{53}$/;
const ARGON2_FULL = /^\$argon2(?:id|i|d)\$(?:v=\d+\$)?m=(\d{1,10}),t=(\d{1,10}),p=(\d{1,10})\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;

/** A bcrypt or argon2 hash of bounded cost, or the reason it is refused (no hash text in it). */
export function importedHashProblem(hash: unknown): string | null {
  if (typeof hash !== 'string' || hash === '') return 'no password hash';
  const b = BCRYPT_FULL.exec(hash);
  if (b) {
    const cost = Number(b[1]);
    return cost < 4 || cost > MAX_BCRYPT_COST ? `the bcrypt cost ${cost} is outside 4–${MAX_BCRYPT_COST}` : null;
  }
  const a = ARGON2_FULL.exec(hash);
  if (a) {
    const [m, t, p] = [Number(a[1]), Number(a[2]), Number(a[3])];
    if (m > MAX_ARGON2.memoryKiB) return `the argon2 memory cost ${m} KiB is above ${MAX_ARGON2.memoryKiB} KiB`;
    if (t < 1 || t > MAX_ARGON2.time) return `the argon2 time cost ${t} is outside 1–${MAX_ARGON2.time}`;
    if (p < 1 || p > MAX_ARGON2.parallelism) return `the argon2 parallelism ${p} is outside 1–${MAX_ARGON2.parallelism}`;
    return null;
  }
  return 'the password must be an argon2 or bcrypt hash';
}

/** Verifies argon2id or (imported) bcrypt hashes; never throws on a malformed hash. */
export async function verifyPassword(hash: string, plain: string): Promise<boolean> {
  if (Buffer.byteLength(plain) > MAX_PASSWORD_BYTES) return false;
  try {
    if (isBcrypt(hash)) return await limited(() => bcryptVerify(plain, hash));
    if (hash.startsWith('$argon2')) return await limited(() => argonVerify(hash, plain));
  } catch {
    return false;
  }
  return false;
}

let dummy: Promise<string> | undefined;
/** A fixed hash to verify against for unknown users, so timing matches a wrong password (S31). */
export function dummyHash(): Promise<string> {
  dummy ??= hashPassword(randomBytes(16).toString('hex'));
  return dummy;
}

export function randomPassword(length = 20): string {
  const alphabet = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
  const bytes = randomBytes(length * 2);
  let out = '';
  for (const b of bytes) {
    if (b < 256 - (256 % alphabet.length)) out += alphabet[b % alphabet.length];
    if (out.length === length) break;
  }
  return out;
}

/** docs/api.md §2.9 password rules; throws BadRequest with File Browser's wording. */
export function checkPasswordPolicy(password: string, minimumLength: number): void {
  if (password === '') throw new BadRequest('password is empty');
  if (Buffer.byteLength(password) > MAX_PASSWORD_BYTES) throw new BadRequest(`password is too long, maximum length is ${MAX_PASSWORD_BYTES}`);
  const min = minimumLength > 0 ? minimumLength : 12;
  if (Buffer.byteLength(password) < min) throw new BadRequest(`password is too short, minimum length is ${min}`);
  if (COMMON_PASSWORDS.has(password)) throw new BadRequest('password is too easy');
}
