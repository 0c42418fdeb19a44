/**
 * @module The validated settings: what `readSettings(env)` makes of README.md's configuration
 * table. Every field is normalized (numbers are numbers, windows are ms) and carries its default.
 */
import type { Rule } from "../limiter/types.ts";

/** The values `MODE` and `ROUTES[].mode` accept. */
export const MODES = ["enforce", "shadow"] as const;

/** `enforce` refuses over-limit requests; `shadow` counts, logs and sends headers, never refuses. */
export type Mode = (typeof MODES)[number];

/** The values `ANALYTICS_CLIENT` accepts: how decision events name the client. */
export const ANALYTICS_CLIENTS = ["hashed", "plain", "none"] as const;

/** Which rate-limit headers answers carry (see src/headers). */
export type HeaderStyle = "draft" | "legacy" | "both" | "none";

/**
 * One source of a client's identity: the address, a header (lowercase name), a cookie or a query
 * parameter (names as written: they are case-sensitive), or Cloudflare's `cf.asn`/`cf.country`.
 */
export type KeyPart =
  | { kind: "ip" }
  | { kind: "header"; name: string }
  | { kind: "cookie"; name: string }
  | { kind: "query"; name: string }
  | { kind: "cf"; field: "asn" | "country" };

/** Who a request is counted against: one source, or 2 to 4 of them hashed into one identity. */
export type KeySource = KeyPart | { kind: "composite"; parts: readonly KeyPart[] };

/**
 * One entry of `ALLOW`, `DENY` or a route's `allow`/`deny`, normalized: a CIDR range with its
 * host bits clear (a bare address is a /32 or /128; IPv4-mapped IPv6 is IPv4), an uppercase
 * country code as Cloudflare's `cf.country` gives it (`T1` is Tor, `XX` unknown), or an AS number.
 */
export type ListEntry =
  | { kind: "ipv4"; network: number; prefix: number }
  | { kind: "ipv6"; network: bigint; prefix: number }
  | { kind: "country"; code: string }
  | { kind: "asn"; asn: number };

/** A rule of `ROUTES`: a limiter rule, and the key source it counts when it is not the route's. */
export interface RouteRule extends Rule {
  /** Who this rule counts; absent: the route's `key`. Never set on a tier's rules. */
  key?: KeySource;
}

/** One entry of `ROUTES`, normalized. */
export interface RouteSettings {
  /** The wrangler-style pattern, as written (see src/routing). */
  pattern: string;
  /** Separates this route's counters from other routes'. @default the pattern */
  scope: string;
  /** Where allowed requests go. @default ORIGIN_URL, else the request's own URL */
  origin?: string;
  /** Every rule must admit a request (all-or-nothing). Empty when `unlimited`; with tiers, the default tier's. */
  rules: RouteRule[];
  /** Set by `"tiers": "<default tier>"`: each client is decided by its tier's rules (from `TIERS`). */
  tiers?: { defaultTier: string; tiers: Readonly<Record<string, Rule[]>> };
  /** Requests on this route are never counted. @default false */
  unlimited: boolean;
  /** @default { kind: "ip" } */
  key: KeySource;
  /** Units one request costs. @default 1 */
  cost: number;
  /** @default MODE */
  mode: Mode;
  /** The methods the route applies to (uppercase); others fall through to the next matching route. @default every method */
  methods?: readonly string[];
  /** Which answers are charged: every one, or only those with these statuses (checked before forwarding). @default "all" */
  count: "all" | readonly number[];
  /** Clients this route forwards uncounted; checked before `ALLOW`/`DENY`. @default [] */
  allow: readonly ListEntry[];
  /** Clients this route refuses (403); beats the route's own `allow`. @default [] */
  deny: readonly ListEntry[];
}

/** Everything the Worker and the middleware read from env vars. */
export interface Settings {
  redis: {
    url: string;
    /** A secret: never logged, never in a message, never forwarded. */
    token: string;
    /** Bound on one decision's Redis call. @default 500 (`DEFAULTS.REDIS_TIMEOUT_MS`; see README, "Failure modes") */
    timeoutMs: number;
  };
  /** Unmatched requests: `RATE_LIMIT` with `RATE_LIMIT_ALGORITHM`, `MODE`, `ORIGIN_URL`. */
  defaultRoute: RouteSettings;
  /** `TIERS`: rule sets by name, for routes with `tiers`. @default {} */
  tiers: Readonly<Record<string, Rule[]>>;
  /** `ROUTES`, in declaration order. @default [] */
  routes: RouteSettings[];
  /** @default "open": a Redis outage should not take the site down with it */
  failureMode: "open" | "closed";
  /** First segment of every key. @default "rate" */
  keyPrefix: string;
  /** @default "draft" */
  headers: HeaderStyle;
  /** IPv6 clients are counted per prefix of this length. @default 64 */
  ipv6Subnet: number;
  /**
   * How many proxies in front of the Worker append to `X-Forwarded-For`; 0 ignores the header
   * (it is client-controlled) and uses `CF-Connecting-IP`. @default 0
   */
  trustedProxies: number;
  /** Bound on the origin's answer (to the response headers). @default 30000 */
  originTimeoutMs: number;
  /** A secret: set, it turns on the admin API under `/__ratewall/`. @default unset (no admin API) */
  adminToken?: string;
  analytics: {
    /**
     * How decision events carry the client: `hashed` (SHA-256, the default: an address is
     * personal data), `plain`, or `none`.
     */
    client: (typeof ANALYTICS_CLIENTS)[number];
  };
  /** `ALLOW`: clients forwarded uncounted on every route, unless a route's own lists decide. @default [] */
  allow: readonly ListEntry[];
  /** `DENY`: clients refused (403) on every route; beats `ALLOW`. @default [] */
  deny: readonly ListEntry[];
}
