/**
 * @module Every limiter script by name: for `npm run hash-scripts` and the pinned-SHA1 test.
 */
import type { LimiterScript } from "./assemble-script.ts";
import { deleteEntry, indexEntry, readEntry, readIndex, recordCopyRoutes, setEntry, setEntryIfAbsent, unindexEntry } from "./entries/script.ts";
import * as multiRule from "./multi-rule/script.ts";
import * as reset from "./reset/script.ts";
import * as status from "./status/script.ts";
import { algorithmSpecs } from "./catalog.ts";

/** Each script the limiter can send: every algorithm's own, by its registry name, then the multi-rule one, and the admin API's status, reset and entry scripts. */
export const limiterScripts: Readonly<Record<string, LimiterScript>> = {
  ...Object.fromEntries(Object.entries(algorithmSpecs).map(([name, algorithm]) => [name, algorithm.script])),
  "multi-rule": multiRule,
  status,
  reset,
  "set-entry": setEntry,
  "delete-entry": deleteEntry,
  "set-entry-if-absent": setEntryIfAbsent,
  "read-entry": readEntry,
  "index-entry": indexEntry,
  "unindex-entry": unindexEntry,
  "read-index": readIndex,
  "record-copy-routes": recordCopyRoutes,
};
