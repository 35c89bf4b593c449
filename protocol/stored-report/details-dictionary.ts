// The preset dictionary of spec.details form "z1" (stored-report.ts): text that typical reports
// repeat — field names in the order the report builder writes them, level names, the builder's
// and the checks' phrases, the evidence block's fixed parts. Deflate then stores a report's details
// as references into it, ~3× smaller than deflate alone. The server deflates against it, every
// reader (the server, the plugin's verify) inflates against it: one copy, here.
// FROZEN: reports stored with "z1:" are read with exactly this text, forever. To change it, add a
// new form ("z2:" and a second dictionary) and keep this one.
export const DETAILS_DICTIONARY_Z1 =
  '{"trigger":"manual","scheduledAt":"","sourceNamespaces":[],"backup":{"provider":"kasten","name":"latest"},' +
  '"sandboxNamespaces":[],"levels":[{"name":"restoreIntegrity","points":0,"maxPoints":25,"tested":false,' +
  '"detail":"not tested: the restore failed (RestoreFailed)"},{"name":"completeness","points":0,"maxPoints":20,' +
  '"tested":false,"detail":"not tested: the provider reported no per-kind object counts"},' +
  '"completenessNote":"per-kind list unavailable: ","provider":"trilio","restore partially failed: ' +
  ' errors and  warnings in  items; at most  points after errors","incomplete: ",' +
  '"not tested: no health check ran (1 skipped)","; not passed: ","(fail)","(error)","cross-namespace dependencies satisfied; not satisfied: ",' +
  '"no references to other namespaces in the restored objects","RTO ; no RTO target (no SLA)"," exceeds target ",' +
  '"checks":[],"completeness":[],"dependencies":[{"from":"","to":"","status":"unresolved"}],"sandboxExpiresAt":"",' +
  '"kind":"sqlQuery","status":"fail","message":"query returned 0, expected at least 1","duration":"1s"},' +
  '{"name":"","kind":"exec","status":"error","message":"the check failed unexpectedly: ","duration":"0s"},' +
  '{"name":"","kind":"resourceExists","status":"skipped","message":" not found","duration":"0s"},' +
  '"phase":"PartiallyFailed","warnings":1,"errors":2,"phase":"Failed","itemsRestored":0},' +
  '"rto":{"phases":{"restoreRequestedAt":""}},"evidence":{"sequence":1,"digest":"sha256:",' +
  '"signature":"","keyId":"","algorithm":"Ed25519","canonicalization":"RFC8785"}}' +
  '{"trigger":"schedule","scheduledAt":"2026-01-01T00:00:00Z","sourceNamespaces":["app","app-db"],' +
  '"backup":{"provider":"velero","name":"daily-20260101000000","completedAt":"2026-01-01T00:00:00Z","age":"2h0m0s"},' +
  '"sandboxNamespaces":["rehearsal-app-","rehearsal-app-db-"],"restore":{"name":"-nightly-","namespace":"velero",' +
  '"phase":"Completed","warnings":0,"errors":0,"itemsRestored":31},"levels":[{"name":"restoreIntegrity",' +
  '"points":25,"maxPoints":25,"tested":true,"detail":"restore completed: 31 items, 0 warnings, 0 errors"},' +
  '{"name":"completeness","points":20,"maxPoints":20,"tested":true,"detail":"1/1 kinds complete"},' +
  '{"name":"podStartup","points":20,"maxPoints":20,"tested":true,"detail":"6/6 pods ready"},' +
  '{"name":"healthChecks","points":20,"maxPoints":20,"tested":true,"detail":"3/3 checks passed"},' +
  '{"name":"crossNamespace","points":0,"maxPoints":10,"tested":false,' +
  '"detail":"not tested: the restored objects were not read for references"},' +
  '{"name":"rtoWithinSLA","points":5,"maxPoints":5,"tested":true,"detail":"RTO 10m0s within target 15m"}],' +
  '"checks":[{"name":"pods-ready","kind":"podsReady","status":"pass","message":"6/6 pods ready","duration":"1s"},' +
  '{"name":"api-health","kind":"httpGet","status":"pass","message":"GET http://api:8080/healthz returned 200",' +
  '"duration":"12s"},{"name":"db-port","kind":"tcpSocket","status":"pass","message":"connected","duration":"0s"}],' +
  '"completeness":[{"kind":"all","backedUp":31,"restored":31}],"rto":{"measuredSeconds":600,"target":"15m",' +
  '"withinSLA":true,"phases":{"restoreRequestedAt":"2026-01-01T00:00:00Z","restoreCompletedAt":"2026-01-01T00:00:00Z",' +
  '"podsReadyAt":"2026-01-01T00:00:00Z","checksCompletedAt":"2026-01-01T00:00:00.000Z"}},' +
  '"evidence":{"sequence":2,"digest":"sha256:","signature":"","keyId":"","algorithm":"Ed25519",' +
  '"canonicalization":"RFC8785","previousDigest":"sha256:"}}';
