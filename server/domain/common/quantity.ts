// Kubernetes quantities (k8s.io/apimachinery resource.Quantity): a decimal number, then a binary
// suffix (Ki … Ei), a decimal suffix (m k M G T P E) or a decimal exponent. Pure.

const QUANTITY = /^(\d+(?:\.\d*)?|\.\d+)(Ki|Mi|Gi|Ti|Pi|Ei|m|k|M|G|T|P|E|[eE][+-]?\d+)?$/;
const MULTIPLIER: Readonly<Record<string, number>> = {
  '': 1,
  m: 1e-3,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

/** A quantity ("500m" → 0.5, "1Gi" → 1073741824, "1.5e9") in base units; undefined when it is not one. */
export function quantityValue(value: number | string | undefined): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  const match = QUANTITY.exec(value.trim());
  if (!match) return undefined;
  const [, number, suffix = ''] = match;
  const multiplier = /^[eE]/.test(suffix) ? 10 ** Number(suffix.slice(1)) : MULTIPLIER[suffix];
  const result = Number(number) * (multiplier ?? NaN);
  return Number.isFinite(result) ? result : undefined;
}

/** A quantity (1073741824, "1Gi", "512M", "1.5e9") as whole bytes; undefined when it is not one. */
export function quantityBytes(value: number | string | undefined): number | undefined {
  const bytes = quantityValue(value);
  return bytes !== undefined && bytes <= Number.MAX_SAFE_INTEGER ? Math.floor(bytes) : undefined;
}
