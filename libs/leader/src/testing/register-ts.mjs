// `node --import ./register-ts.mjs entry.mjs`: installs ts-hooks.mjs.
import { register } from 'node:module';
register('./ts-hooks.mjs', import.meta.url);
