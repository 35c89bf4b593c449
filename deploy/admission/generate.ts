// Writes deploy/base/restoretest-admission.yaml from the domain's rule (server/domain/
// restore-admission-policy.ts): `npm run admission:generate`. A unit test fails when the committed
// file differs from what this renders.
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderAdmissionYaml } from './render.js';

const target = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../base/restoretest-admission.yaml');
writeFileSync(target, renderAdmissionYaml());
console.log(`wrote ${target}`);
