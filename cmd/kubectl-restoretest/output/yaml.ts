// -o yaml: the API's objects exactly as received (a sequence for lists). Loaded on demand: the
// yaml package is only needed for this format and for reading -f files.
export async function renderYaml(value: unknown): Promise<string> {
  const { stringify } = await import('yaml');
  return stringify(value, { lineWidth: 0 });
}
