/**
 * @module The limiter's public contract: rules in, one {@link Decision} out. The edge proxy
 * (src/middleware) depends only on these types and on `createLimiter`, never on an algorithm.
 */

/** The algorithms, by the names `RATE_LIMIT_ALGORITHM` and `ROUTES[].rules[].algorithm` accept. */
export type AlgorithmName = "fixed-window" | "sliding-log" | "sliding-window" | "sliding-window-approx" | "token-bucket";

/** One limit, normalized: what `parseConfig` produces from `"<count>/<window>"`. */
export interface Rule {
  /** Names the rule in keys (when a route has several) and in the `RateLimit-Policy` header. */
  name: string;
  algorithm: AlgorithmName;
  /** Requests allowed per window (for `token-bucket`: refilled per window). Integer ≥ 1. */
  limit: number;
  /** Window length in milliseconds. Integer ≥ 1. */
  windowMs: number;
  /**
   * `token-bucket` only (a rule of another algorithm with one is refused): the bucket size, i.e.
   * how many requests may arrive at once.
   * @default limit
   */
  burst?: number;
  /**
   * `sliding-window` only: sub-windows per window, 2 to 100. More decide closer to an exact log and
   * cost 3 to 4 bytes each per client (its count and two times, packed in one string; more for
   * a limit of 65,535 or more).
   * @default 32
   */
  buckets?: number;
}

/** What one rule said about one request. */
export interface RuleOutcome {
  /** {@link Rule.name} */
  rule: string;
  /** {@link Rule.limit} (for `token-bucket`, the burst). */
  limit: number;
  /** Requests still allowed now, after this request was counted (if it was). Integer ≥ 0. */
  remaining: number;
  /** When the quota is fully available again (a fixed window's end, spent or not), in ms since the epoch. */
  resetAt: number;
  /** Window length in ms, for `RateLimit-Policy`'s `w`. */
  windowMs: number;
}

/**
 * Why a decision was not taken by the rules: Redis failed (`redis-timeout`, `redis-error`), it
 * came from isolate memory (`block-cache`), or the client's list entry decided (`deny-list`,
 * `allow-list`: set through the admin API, read in the same script call).
 */
export type DecisionReason = "redis-timeout" | "redis-error" | "block-cache" | "deny-list" | "allow-list";

/** The answer for one request, across all of its route's rules. */
export interface Decision {
  /** True when every rule admitted the request; then every rule was charged its cost. */
  allowed: boolean;
  /**
   * The deciding rule: when refused, the refusing rule that lets a retry through last (the first
   * of them on a tie), so that it names the wait `retryAfter` gives; otherwise the rule with the
   * fewest `remaining` (the one a client should watch).
   */
  rule: string;
  /** One outcome per rule, in the route's order. Empty when `reason` is set and Redis gave none. */
  rules: RuleOutcome[];
  /** When refused: seconds until a retry can succeed, rounded up, ≥ 1. */
  retryAfter?: number;
  /**
   * When refused by the limiter: the first instant (ms since the epoch) at which the same request
   * would pass every rule, if nothing else is charged meanwhile (for a cost above a rule's limit,
   * which never passes: when that rule is full again). `retryAfter` is this, rounded up to seconds
   * from `now`. Absent when the decision came from a cache.
   */
  retryAt?: number;
  /** Set only when the rules did not decide (see {@link DecisionReason}). */
  reason?: DecisionReason;
  /** On a route with tiers: the tier whose rules decided (the client's, else the default). */
  tier?: string;
  /** With `reason` `deny-list` or `allow-list`: when the entry expires (ms since the epoch), if it does. */
  listExpiresAt?: number;
  /** With {@link LimitRequest.clients}: the client of the deciding rule (absent when a list entry decided). */
  client?: string;
  /**
   * With {@link LimitRequest.clients}, when the rules refused: each refused client once, with its
   * refusing rule that lets it through last and when that is.
   * Another request of this client is refused until then, whatever its other clients.
   */
  refusedClients?: readonly RefusedClient[];
}

/** One client a multi-key decision refused (see {@link Decision.refusedClients}). */
export interface RefusedClient {
  client: string;
  rule: string;
  /** ms since the epoch. */
  retryAt: number;
}

/**
 * The narrowest view of Redis the limiter needs (upstash narrows its client the same way).
 * KEYS and ARGV are strings; the reply is whatever the script returned.
 */
export interface ScriptRunner {
  /**
   * Rejects with Redis's reply as the message when the script is unknown (`NOSCRIPT …`, as
   * ioredis's ReplyError has it), or a `RedisRestError` of kind `reply`: only then does the
   * limiter send EVAL (src/limiter/run-script.ts).
   */
  evalsha(sha1: string, keys: string[], args: string[]): Promise<unknown>;
  /**
   * @param startedAt when the EVALSHA this EVAL follows was sent (`Date.now()`): a runner with a
   *   time bound counts it from then, so that both calls share one bound.
   */
  eval(script: string, keys: string[], args: string[], startedAt?: number): Promise<unknown>;
}

/** What the middleware asks for one request. */
export interface LimitRequest {
  /** The client's identifier, already normalized and safe for a key (see src/keys). */
  client: string;
  /**
   * On a route whose rules count different clients (a rule with its own `key`): each rule's
   * client, in the route's order; `client` is then not used. The keys then carry the route as
   * their hash tag (docs/architecture.md, "Keys and hash tags"). Not for tiered limiters.
   */
  clients?: readonly string[];
  /** Separates one route's counters from another's; empty for the default route. */
  scope: string;
  /** Units this request costs. Integer ≥ 1. @default 1 */
  cost?: number;
  /** The current time in ms since the epoch, from the injected clock. */
  now: number;
}

/** Decides requests for one route's rules in one atomic round trip. */
export interface Limiter {
  readonly rules: readonly Rule[];
  limit(request: LimitRequest): Promise<Decision>;
  /**
   * What {@link limit} would say of `request` now, without charging anything or moving a TTL
   * (one round trip). `allowed` tells whether a request of `request.cost` would pass.
   */
  status(request: LimitRequest): Promise<Decision>;
  /**
   * Deletes the client's counters for every rule, or for the rules named in `only` (one round
   * trip); resolves with how many keys existed.
   */
  reset(request: LimitRequest, only?: readonly string[]): Promise<number>;
}
