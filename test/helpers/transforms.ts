// Restore transforms for provider tests that are not about them.
import { DEFAULT_TRANSFORM_IDS, resolveTransforms, type RestoreTransforms } from '../../server/domain/run/restore-transforms.js';

/** Every default removed, nothing added: the Restore as Rehearsal built it before issue 28. */
export const NO_TRANSFORMS: RestoreTransforms = resolveTransforms({ removeDefaults: [...DEFAULT_TRANSFORM_IDS] });
/** The defaults, as a test without spec.restore gets them. */
export const DEFAULT_TRANSFORMS_ONLY: RestoreTransforms = resolveTransforms(undefined);
