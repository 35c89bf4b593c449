// -o json: the API's objects exactly as received (an array for lists), indented like kubectl.
export function renderJson(value: unknown): string {
  return `${JSON.stringify(value, null, 4)}\n`;
}
