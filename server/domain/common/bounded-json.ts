// JSON.parse for text someone else could have written (a tenant's ConfigMap, an object in a bucket,
// a backup tool's file): the length is checked before anything is allocated, and so is the nesting
// depth. V8's JSON.parse is iterative and survives any depth, but whatever walks the value next
// (JSON.stringify in a response, canonical JSON, a recursive check) does not: 100,000 nested "["
// parse fine and then overflow the stack of the first reader, far from where they came in.
// Callers that inflate cap the inflated size themselves (zlib's maxOutputLength): this module is
// pure and sees only text.

export class BoundedJsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BoundedJsonError';
  }
}

export interface JsonLimits {
  /** Most UTF-16 code units of text accepted (the caller bounds bytes before decoding). */
  maxLength: number;
  /** Most nested arrays/objects (a top-level object is depth 1). */
  maxDepth: number;
}

/** The deepest nesting of arrays and objects in `text`, stopping as soon as it exceeds `limit`. */
function depthExceeds(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (inString) {
      if (code === 0x5c /* \ */) index += 1;
      else if (code === 0x22 /* " */) inString = false;
      continue;
    }
    if (code === 0x22) inString = true;
    else if (code === 0x5b /* [ */ || code === 0x7b /* { */) {
      depth += 1;
      if (depth > limit) return true;
    } else if (code === 0x5d /* ] */ || code === 0x7d /* } */) depth -= 1;
  }
  return false;
}

/** Parses `text` or throws BoundedJsonError (too long, too deep, or not JSON). */
export function parseBoundedJson(text: string, limits: JsonLimits): unknown {
  if (text.length > limits.maxLength) {
    throw new BoundedJsonError(`JSON text of ${text.length} characters is longer than the ${limits.maxLength} accepted`);
  }
  if (depthExceeds(text, limits.maxDepth)) {
    throw new BoundedJsonError(`JSON nested deeper than ${limits.maxDepth} levels`);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new BoundedJsonError(`not JSON: ${(error as Error).message}`);
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
