// The YAML view of a test (issue 30). The API has no endpoint that answers the RestoreTest object
// itself, so the view is the API's TestResponse (every field the form edits, defaults applied) in
// YAML, headed by a comment that says so and names the kubectl command for the object.
import { toYaml } from './export.js';
import type { TestResponse } from './format.js';

/** The test as YAML, with a comment naming where it comes from; parses back to `test`. */
export function testYaml(test: TestResponse): string {
  return (
    `# ${test.namespace}/${test.name} as GET /api/v1/tests/${test.name}?namespace=${test.namespace} answers it\n` +
    `# (defaults applied). The RestoreTest object: kubectl get restoretest ${test.name} -n ${test.namespace} -o yaml\n` +
    toYaml(test)
  );
}

/** The file the YAML view downloads to. */
export function testYamlFileName(test: Pick<TestResponse, 'name' | 'namespace'>): string {
  return `${test.namespace}-${test.name}.yaml`;
}
