/**
 * @module The ratewall Worker's entry point: the app with its real dependencies. Settings are
 * read from `env` on the first request and cached per env object, i.e. once per isolate.
 */
import { createApp } from "./app.ts";

export default createApp() satisfies ExportedHandler<Env>;
