// The shapes of Rehearsal's own custom resources (group rehearsal.dev, version v1alpha1), one file
// per kind. crds/*.yaml is the source of truth; test/unit/crd-types.test.ts fails when these types
// and the CRD schemas drift apart. Pure types only: nothing here performs I/O.
// Import from here: the kinds refer to each other, and one entry point spares every importer from
// knowing which file holds which field type.
export * from './resource-common.js';
export * from './health-check-policy.resource.js';
export * from './restore-test.resource.js';
export * from './restore-report.resource.js';
