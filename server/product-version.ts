// The Rehearsal version printed on PDFs and attestations. A constant (not read from package.json at
// run time: the built image need not ship it); test/unit/evidence/product-version.test.ts fails
// when it drifts from package.json.
export const PRODUCT_VERSION = '0.1.0';
