// The full entry's guard over wasm-bindgen's exports (index.js, and the
// suites' entry testing.js): whether the module is instantiated, the exports
// it must have, and each export wrapped so that a call before init() says
// so and a call whose allocation the module's memory could not hold answers
// a BackendTargetsError (the next call gets a fresh instance).
import * as glue from './backend_targets.js';
import { takeOutOfMemory } from './boundary.js';
import { backendError, notInitialised, raise } from './early.js';

/** The entry's instance: whether init() has run, and the module's exports
 *  the entry calls (a module lacking one is refused). */
export const instance = { instantiated: false, names: ['probe', 'detect', 'callWith'] };

/** wasm-bindgen's export `name`, guarded. */
export function guarded(name) {
  instance.names.push(name);
  const call = glue[name];
  return (...args) => {
    if (!instance.instantiated) raise(notInitialised());
    try {
      return call(...args);
    } catch (error) {
      // The module ended its instance for an allocation it could not hold
      // (crates/browser/src/api.rs); the glue starts a fresh one for the next call.
      if (takeOutOfMemory()) {
        raise(backendError('limit-exceeded', 'the module ran out of memory (its 2 GiB) for this call; it starts afresh '
          + 'for the next one. Lower the limits the request was allowed (outputBytes, work, configs, requestBytes), '
          + 'or plan it with the command'));
      }
      raise(error);
    } finally {
      takeOutOfMemory();
    }
  };
}
