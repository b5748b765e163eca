/** Types of redis.mjs, for the tests that start a Redis. */
export declare const REDIS_SERVER: string;
export declare function freePort(): Promise<number>;
export interface TestRedis {
  port: number;
  url: string;
  start(): Promise<void>;
  stop(): Promise<void>;
}
export declare function startRedis(): Promise<TestRedis>;
