/**
 * @module Every limiter script by name: for `npm run hash-scripts` and the pinned-SHA1 test.
 */
import type { LimiterScript } from "./assemble-script";
import { deleteEntry, setEntry } from "./entries/script";
import * as multiRule from "./multi-rule/script";
import * as reset from "./reset/script";
import * as status from "./status/script";
import { algorithmSpecs } from "./catalog";

/** Each script the limiter can send: every algorithm's own, by its registry name, then the multi-rule one, and the admin API's status, reset and entry scripts. */
export const limiterScripts: Readonly<Record<string, LimiterScript>> = {
  ...Object.fromEntries(Object.entries(algorithmSpecs).map(([name, algorithm]) => [name, algorithm.script])),
  "multi-rule": multiRule,
  status,
  reset,
  "set-entry": setEntry,
  "delete-entry": deleteEntry,
};
