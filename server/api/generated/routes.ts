/* tslint:disable */
/* eslint-disable */
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import type { TsoaRoute } from '@tsoa/runtime';
import {  fetchMiddlewares, ExpressTemplateService } from '@tsoa/runtime';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { TestsController } from './../tests.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { TestDraftsController } from './../test-drafts.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { SchedulesController } from './../schedules.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { SandboxesController } from './../sandboxes.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { RunDetailsController } from './../run-details.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { ReportsController } from './../reports.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { CompliancePdfController } from './../pdf.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { TestReportPdfController } from './../pdf.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { LicenseController } from './../license.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { HealthController } from './../health.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { EvidenceController } from './../evidence.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { DashboardController } from './../dashboard.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { CoverageController } from './../coverage.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { ComplianceController } from './../compliance.controller.js';
// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
import { ComplianceOverviewController } from './../compliance.controller.js';
import { expressAuthentication } from './../auth/authentication.js';
// @ts-ignore - no great way to install types from subpackage
import { iocContainer } from './../ioc.js';
import type { IocContainer, IocContainerFactory } from '@tsoa/runtime';
import type { Request as ExRequest, Response as ExResponse, RequestHandler, Router } from 'express';

const expressAuthenticationRecasted = expressAuthentication as (req: ExRequest, securityName: string, scopes?: string[], res?: ExResponse) => Promise<any>;


// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

const models: TsoaRoute.Models = {
    "FieldProblem": {
        "dataType": "refObject",
        "properties": {
            "field": {"dataType":"string","required":true},
            "message": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "PermissionDescriptor": {
        "dataType": "refObject",
        "properties": {
            "verb": {"dataType":"string","required":true},
            "group": {"dataType":"string","required":true},
            "resource": {"dataType":"string","required":true},
            "subresource": {"dataType":"string"},
            "namespace": {"dataType":"string"},
            "name": {"dataType":"string"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ProblemDetails": {
        "dataType": "refObject",
        "properties": {
            "type": {"dataType":"string","required":true},
            "title": {"dataType":"string","required":true},
            "status": {"dataType":"integer","required":true},
            "detail": {"dataType":"string","required":true},
            "instance": {"dataType":"string","required":true},
            "errors": {"dataType":"array","array":{"dataType":"refObject","ref":"FieldProblem"}},
            "missingPermissions": {"dataType":"array","array":{"dataType":"refObject","ref":"PermissionDescriptor"}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "BackupSelectStrategy": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["latest"]},{"dataType":"enum","enums":["randomWithin"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "BackupSelectInput": {
        "dataType": "refObject",
        "properties": {
            "strategy": {"ref":"BackupSelectStrategy","required":true},
            "within": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"pattern":{"value":"^((?=[0-9hms]*[1-9])([0-9]{1,9}h)?([0-9]{1,9}m)?([0-9]{1,9}s)?)?$"},"maxLength":{"value":32}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LabelValue": {
        "dataType": "refAlias",
        "type": {"dataType":"string","validators":{"pattern":{"value":"^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$"},"maxLength":{"value":63}}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LabelSelectorRequirementInput": {
        "dataType": "refObject",
        "properties": {
            "key": {"dataType":"string","required":true,"validators":{"pattern":{"value":"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\\/)?[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$"},"maxLength":{"value":317}}},
            "operator": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["In"]},{"dataType":"enum","enums":["NotIn"]},{"dataType":"enum","enums":["Exists"]},{"dataType":"enum","enums":["DoesNotExist"]}],"required":true},
            "values": {"dataType":"array","array":{"dataType":"refAlias","ref":"LabelValue"},"validators":{"maxItems":{"value":16}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LabelSelectorInput": {
        "dataType": "refObject",
        "properties": {
            "matchLabels": {"dataType":"nestedObjectLiteral","nestedProperties":{},"additionalProperties":{"ref":"LabelValue"}},
            "matchExpressions": {"dataType":"array","array":{"dataType":"refObject","ref":"LabelSelectorRequirementInput"},"validators":{"maxItems":{"value":16}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ResourceTypeInput": {
        "dataType": "refObject",
        "properties": {
            "group": {"dataType":"string","validators":{"pattern":{"value":"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"},"maxLength":{"value":253}}},
            "version": {"dataType":"string","required":true,"validators":{"pattern":{"value":"^v[0-9]+((alpha|beta)[0-9]+)?$"},"maxLength":{"value":20}}},
            "kind": {"dataType":"string","required":true,"validators":{"pattern":{"value":"^[A-Z][A-Za-z0-9]*$"},"maxLength":{"value":63}}},
            "resource": {"dataType":"string","required":true,"validators":{"pattern":{"value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"value":63}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RestorePatchTarget": {
        "dataType": "refObject",
        "properties": {
            "group": {"dataType":"string","validators":{"pattern":{"value":"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"},"maxLength":{"value":253}}},
            "version": {"dataType":"string","required":true,"validators":{"pattern":{"value":"^v[0-9]+((alpha|beta)[0-9]+)?$"},"maxLength":{"value":20}}},
            "kind": {"dataType":"string","required":true,"validators":{"pattern":{"value":"^[A-Z][A-Za-z0-9]*$"},"maxLength":{"value":63}}},
            "resource": {"dataType":"string","required":true,"validators":{"pattern":{"value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"value":63}}},
            "name": {"dataType":"string","validators":{"pattern":{"value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$"},"maxLength":{"value":253}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RestorePatchCondition": {
        "dataType": "refObject",
        "properties": {
            "path": {"dataType":"string","required":true,"validators":{"pattern":{"value":"^/"},"maxLength":{"value":256}}},
            "value": {"dataType":"any","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RestorePatchOperationInput": {
        "dataType": "refObject",
        "properties": {
            "op": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["add"]},{"dataType":"enum","enums":["replace"]},{"dataType":"enum","enums":["remove"]},{"dataType":"enum","enums":["copy"]},{"dataType":"enum","enums":["move"]}],"required":true},
            "path": {"dataType":"string","required":true,"validators":{"pattern":{"value":"^/"},"maxLength":{"value":256}}},
            "from": {"dataType":"string","validators":{"pattern":{"value":"^/"},"maxLength":{"value":256}}},
            "value": {"dataType":"any"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RestorePatchInput": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true,"validators":{"pattern":{"value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"value":50}}},
            "target": {"ref":"RestorePatchTarget","required":true},
            "when": {"dataType":"array","array":{"dataType":"refObject","ref":"RestorePatchCondition"},"validators":{"maxItems":{"value":8}}},
            "operations": {"dataType":"array","array":{"dataType":"refObject","ref":"RestorePatchOperationInput"},"required":true,"validators":{"minItems":{"value":1},"maxItems":{"value":16}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DefaultTransformId": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["suspend-cronjobs"]},{"dataType":"enum","enums":["hold-jobs"]},{"dataType":"enum","enums":["services-cluster-ip"]},{"dataType":"enum","enums":["drop-external-dns-annotations"]},{"dataType":"enum","enums":["unbind-claims"]},{"dataType":"enum","enums":["exclude-host-routes"]},{"dataType":"enum","enums":["exclude-external-callers"]},{"dataType":"enum","enums":["exclude-gitops"]},{"dataType":"enum","enums":["exclude-network-policies"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "PodSecurityLevel": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["privileged"]},{"dataType":"enum","enums":["baseline"]},{"dataType":"enum","enums":["restricted"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RestoreInput": {
        "dataType": "refObject",
        "properties": {
            "exclude": {"dataType":"array","array":{"dataType":"refObject","ref":"ResourceTypeInput"},"validators":{"maxItems":{"value":32}}},
            "patches": {"dataType":"array","array":{"dataType":"refObject","ref":"RestorePatchInput"},"validators":{"maxItems":{"value":16}}},
            "removeDefaults": {"dataType":"array","array":{"dataType":"refAlias","ref":"DefaultTransformId"},"validators":{"maxItems":{"value":8}}},
            "podSecurity": {"ref":"PodSecurityLevel"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LogContainers": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["failing"]},{"dataType":"enum","enums":["all"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LogCollectionResponse": {
        "dataType": "refObject",
        "properties": {
            "lines": {"dataType":"integer","required":true},
            "containers": {"ref":"LogContainers","required":true},
            "initContainers": {"dataType":"boolean","required":true},
            "previous": {"dataType":"boolean","required":true},
            "events": {"dataType":"boolean","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "PreflightProblemResponse": {
        "dataType": "refObject",
        "properties": {
            "check": {"dataType":"string","required":true},
            "severity": {"dataType":"string","required":true},
            "message": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "PreflightResponse": {
        "dataType": "refObject",
        "properties": {
            "backupName": {"dataType":"string","required":true},
            "checkedAt": {"dataType":"string","required":true},
            "result": {"dataType":"string","required":true},
            "summary": {"dataType":"string","required":true},
            "problems": {"dataType":"array","array":{"dataType":"refObject","ref":"PreflightProblemResponse"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "TestResponse": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true},
            "namespace": {"dataType":"string","required":true},
            "provider": {"dataType":"string","required":true},
            "schedule": {"dataType":"string","required":true},
            "phase": {"dataType":"string","required":true},
            "lastScore": {"dataType":"integer","required":true},
            "lastResult": {"dataType":"string","required":true},
            "lastRunAt": {"dataType":"string","required":true},
            "nextRunAt": {"dataType":"string","required":true},
            "sourceNamespaces": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "rtoTarget": {"dataType":"string","required":true},
            "backupName": {"dataType":"string"},
            "backupSelect": {"ref":"BackupSelectInput"},
            "timezone": {"dataType":"string"},
            "onBackup": {"dataType":"boolean"},
            "everyNthBackup": {"dataType":"integer"},
            "namespacePrefix": {"dataType":"string"},
            "ttl": {"dataType":"string"},
            "networkIsolation": {"dataType":"string"},
            "healthCheckPolicy": {"dataType":"string"},
            "rpoTarget": {"dataType":"string"},
            "alertOnExceed": {"dataType":"boolean"},
            "historyLimit": {"dataType":"integer"},
            "labelSelector": {"ref":"LabelSelectorInput"},
            "includedResources": {"dataType":"array","array":{"dataType":"refObject","ref":"ResourceTypeInput"}},
            "restore": {"ref":"RestoreInput"},
            "logCollection": {"ref":"LogCollectionResponse"},
            "preflight": {"ref":"PreflightResponse"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Provider": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["velero"]},{"dataType":"enum","enums":["kasten"]},{"dataType":"enum","enums":["trilio"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "NamespaceName": {
        "dataType": "refAlias",
        "type": {"dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LogCollectionInput": {
        "dataType": "refObject",
        "properties": {
            "lines": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"default":100,"validators":{"minimum":{"value":1},"maximum":{"value":1000}}},
            "containers": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["failing"]},{"dataType":"enum","enums":["all"]},{"dataType":"enum","enums":[null]}]},
            "initContainers": {"dataType":"union","subSchemas":[{"dataType":"boolean"},{"dataType":"enum","enums":[null]}],"default":true},
            "previous": {"dataType":"union","subSchemas":[{"dataType":"boolean"},{"dataType":"enum","enums":[null]}],"default":true},
            "events": {"dataType":"union","subSchemas":[{"dataType":"boolean"},{"dataType":"enum","enums":[null]}],"default":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CreateTestInput": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true,"validators":{"pattern":{"value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"value":63}}},
            "namespace": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"pattern":{"value":"^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$"},"maxLength":{"value":63}}},
            "provider": {"ref":"Provider","required":true},
            "backupName": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"default":"latest","validators":{"pattern":{"value":"^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)?$"},"maxLength":{"value":253}}},
            "backupSelect": {"ref":"BackupSelectInput"},
            "sourceNamespaces": {"dataType":"array","array":{"dataType":"refAlias","ref":"NamespaceName"},"required":true,"validators":{"minItems":{"value":1},"maxItems":{"value":20},"uniqueItems":{"errorMsg":"must not list a namespace twice"}}},
            "cron": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"pattern":{"value":"^\\x20*(\\x40(yearly|annually|monthly|weekly|daily|midnight|hourly)|[0-9A-Za-z*,/-]+(\\x20+[0-9A-Za-z*,/-]+){4})\\x20*$"},"minLength":{"value":1},"maxLength":{"value":128}}},
            "onBackup": {"dataType":"union","subSchemas":[{"dataType":"boolean"},{"dataType":"enum","enums":[null]}],"default":false},
            "everyNthBackup": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"validators":{"minimum":{"value":1},"maximum":{"value":1000}}},
            "timezone": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"default":"UTC","validators":{"pattern":{"value":"^([A-Z][A-Za-z0-9_+-]*(/[A-Za-z0-9_+-]+)*)?$"},"maxLength":{"value":64}}},
            "namespacePrefix": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"default":"rehearsal","validators":{"pattern":{"value":"^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$"},"maxLength":{"value":20}}},
            "ttl": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"default":"1h","validators":{"pattern":{"value":"^((?=[0-9hms]*[1-9])([0-9]{1,9}h)?([0-9]{1,9}m)?([0-9]{1,9}s)?)?$"}}},
            "networkIsolation": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["strict"]},{"dataType":"enum","enums":["none"]},{"dataType":"enum","enums":[""]},{"dataType":"enum","enums":[null]}]},
            "healthCheckPolicy": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"pattern":{"value":"^([a-z0-9]([-a-z0-9]*[a-z0-9])?)?$"},"maxLength":{"value":63}}},
            "maxRTO": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"pattern":{"value":"^((?=[0-9hms]*[1-9])([0-9]{1,9}h)?([0-9]{1,9}m)?([0-9]{1,9}s)?)?$"}}},
            "maxRPO": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"validators":{"pattern":{"value":"^((?=[0-9hms]*[1-9])([0-9]{1,9}h)?([0-9]{1,9}m)?([0-9]{1,9}s)?)?$"}}},
            "alertOnExceed": {"dataType":"union","subSchemas":[{"dataType":"boolean"},{"dataType":"enum","enums":[null]}],"default":false},
            "historyLimit": {"dataType":"union","subSchemas":[{"dataType":"integer"},{"dataType":"enum","enums":[null]}],"default":90,"validators":{"minimum":{"value":1},"maximum":{"value":1000}}},
            "labelSelector": {"ref":"LabelSelectorInput"},
            "includedResources": {"dataType":"array","array":{"dataType":"refObject","ref":"ResourceTypeInput"},"validators":{"maxItems":{"value":32}}},
            "restore": {"ref":"RestoreInput"},
            "logCollection": {"ref":"LogCollectionInput"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Record_string.string_": {
        "dataType": "refAlias",
        "type": {"dataType":"nestedObjectLiteral","nestedProperties":{},"additionalProperties":{"dataType":"string"},"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LabelSelectorOperator": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["In"]},{"dataType":"enum","enums":["NotIn"]},{"dataType":"enum","enums":["Exists"]},{"dataType":"enum","enums":["DoesNotExist"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LabelSelector": {
        "dataType": "refObject",
        "properties": {
            "matchLabels": {"ref":"Record_string.string_"},
            "matchExpressions": {"dataType":"array","array":{"dataType":"nestedObjectLiteral","nestedProperties":{"values":{"dataType":"array","array":{"dataType":"string"}},"operator":{"ref":"LabelSelectorOperator","required":true},"key":{"dataType":"string","required":true}}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ResourceTypeRef": {
        "dataType": "refObject",
        "properties": {
            "group": {"dataType":"string"},
            "version": {"dataType":"string","required":true},
            "kind": {"dataType":"string","required":true},
            "resource": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "NetworkIsolation": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["strict"]},{"dataType":"enum","enums":["none"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Record_string.unknown_": {
        "dataType": "refAlias",
        "type": {"dataType":"nestedObjectLiteral","nestedProperties":{},"additionalProperties":{"dataType":"any"},"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CheckKind": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["podsReady"]},{"dataType":"enum","enums":["httpGet"]},{"dataType":"enum","enums":["tcpSocket"]},{"dataType":"enum","enums":["sqlQuery"]},{"dataType":"enum","enums":["resourceExists"]},{"dataType":"enum","enums":["exec"]},{"dataType":"enum","enums":["file"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "PodsReadyCheck": {
        "dataType": "refObject",
        "properties": {
            "selector": {"ref":"Record_string.string_"},
            "minReady": {"dataType":"double"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "HttpGetCheck": {
        "dataType": "refObject",
        "properties": {
            "service": {"dataType":"string","required":true},
            "port": {"dataType":"double","required":true},
            "path": {"dataType":"string"},
            "scheme": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["http"]},{"dataType":"enum","enums":["https"]}]},
            "expectedStatus": {"dataType":"double"},
            "bodyMatch": {"dataType":"string"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "TcpSocketCheck": {
        "dataType": "refObject",
        "properties": {
            "service": {"dataType":"string","required":true},
            "port": {"dataType":"double","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SqlQueryCheck": {
        "dataType": "refObject",
        "properties": {
            "engine": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["postgres"]},{"dataType":"enum","enums":["mysql"]}],"required":true},
            "service": {"dataType":"string","required":true},
            "port": {"dataType":"double"},
            "database": {"dataType":"string","required":true},
            "credentialsSecret": {"dataType":"nestedObjectLiteral","nestedProperties":{"passwordKey":{"dataType":"string"},"usernameKey":{"dataType":"string"},"name":{"dataType":"string","required":true}},"required":true},
            "query": {"dataType":"string","required":true},
            "expectedMinRows": {"dataType":"double"},
            "expectedValue": {"dataType":"string"},
            "freshness": {"dataType":"boolean"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ResourceExistsCheck": {
        "dataType": "refObject",
        "properties": {
            "apiVersion": {"dataType":"string","required":true},
            "kind": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "sourceNamespace": {"dataType":"string"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ExecCheck": {
        "dataType": "refObject",
        "properties": {
            "selector": {"ref":"Record_string.string_"},
            "container": {"dataType":"string"},
            "command": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "expectedExitCode": {"dataType":"double"},
            "freshness": {"dataType":"boolean"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "FileFreshnessSource": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["modificationTime"]},{"dataType":"enum","enums":["content"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "FileCheck": {
        "dataType": "refObject",
        "properties": {
            "claim": {"dataType":"string","required":true},
            "path": {"dataType":"string","required":true},
            "exists": {"dataType":"boolean"},
            "size": {"dataType":"double"},
            "sha256": {"dataType":"string"},
            "contains": {"dataType":"string"},
            "freshness": {"dataType":"boolean"},
            "freshnessSource": {"ref":"FileFreshnessSource"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "HealthCheck": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true},
            "kind": {"ref":"CheckKind","required":true},
            "timeout": {"dataType":"string"},
            "sourceNamespace": {"dataType":"string"},
            "critical": {"dataType":"boolean"},
            "podsReady": {"ref":"PodsReadyCheck"},
            "httpGet": {"ref":"HttpGetCheck"},
            "tcpSocket": {"ref":"TcpSocketCheck"},
            "sqlQuery": {"ref":"SqlQueryCheck"},
            "resourceExists": {"ref":"ResourceExistsCheck"},
            "exec": {"ref":"ExecCheck"},
            "file": {"ref":"FileCheck"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "PatchedObjects": {
        "dataType": "refObject",
        "properties": {
            "group": {"dataType":"string"},
            "version": {"dataType":"string","required":true},
            "kind": {"dataType":"string","required":true},
            "resource": {"dataType":"string","required":true},
            "name": {"dataType":"string"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RestorePatchOperation": {
        "dataType": "refObject",
        "properties": {
            "op": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["add"]},{"dataType":"enum","enums":["replace"]},{"dataType":"enum","enums":["remove"]},{"dataType":"enum","enums":["copy"]},{"dataType":"enum","enums":["move"]}],"required":true},
            "path": {"dataType":"string","required":true},
            "from": {"dataType":"string"},
            "value": {"dataType":"any"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RestorePatch": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true},
            "target": {"ref":"PatchedObjects","required":true},
            "when": {"dataType":"array","array":{"dataType":"nestedObjectLiteral","nestedProperties":{"value":{"dataType":"any","required":true},"path":{"dataType":"string","required":true}}}},
            "operations": {"dataType":"array","array":{"dataType":"refObject","ref":"RestorePatchOperation"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RestoreSpec": {
        "dataType": "refObject",
        "properties": {
            "exclude": {"dataType":"array","array":{"dataType":"refObject","ref":"ResourceTypeRef"}},
            "patches": {"dataType":"array","array":{"dataType":"refObject","ref":"RestorePatch"}},
            "removeDefaults": {"dataType":"array","array":{"dataType":"refAlias","ref":"DefaultTransformId"}},
            "podSecurity": {"ref":"PodSecurityLevel"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "NotificationChannelType": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["slack"]},{"dataType":"enum","enums":["webhook"]},{"dataType":"enum","enums":["cloudevents"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SecretKeySelector": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true},
            "key": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "NotificationChannel": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true},
            "type": {"ref":"NotificationChannelType","required":true},
            "urlSecretRef": {"ref":"SecretKeySelector","required":true},
            "signingKeySecretRef": {"ref":"SecretKeySelector"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "NotificationsSpec": {
        "dataType": "refObject",
        "properties": {
            "onFailure": {"dataType":"boolean"},
            "onPartial": {"dataType":"boolean"},
            "onSuccess": {"dataType":"boolean"},
            "onSLAExceeded": {"dataType":"boolean"},
            "onRegression": {"dataType":"boolean"},
            "channels": {"dataType":"array","array":{"dataType":"refObject","ref":"NotificationChannel"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LogCollectionSpec": {
        "dataType": "refObject",
        "properties": {
            "lines": {"dataType":"double"},
            "containers": {"ref":"LogContainers"},
            "initContainers": {"dataType":"boolean"},
            "previous": {"dataType":"boolean"},
            "events": {"dataType":"boolean"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RestoreTestSpec": {
        "dataType": "refObject",
        "properties": {
            "provider": {"ref":"Provider","required":true},
            "backupSource": {"dataType":"nestedObjectLiteral","nestedProperties":{"includedResources":{"dataType":"array","array":{"dataType":"refObject","ref":"ResourceTypeRef"}},"labelSelector":{"ref":"LabelSelector"},"providerNamespace":{"dataType":"string"},"namespaces":{"dataType":"array","array":{"dataType":"nestedObjectLiteral","nestedProperties":{"name":{"dataType":"string","required":true}}},"required":true},"select":{"dataType":"nestedObjectLiteral","nestedProperties":{"within":{"dataType":"string"},"strategy":{"ref":"BackupSelectStrategy","required":true}}},"backupName":{"dataType":"string"}},"required":true},
            "schedule": {"dataType":"nestedObjectLiteral","nestedProperties":{"onBackup":{"dataType":"nestedObjectLiteral","nestedProperties":{"everyNth":{"dataType":"integer"}}},"suspend":{"dataType":"boolean"},"timezone":{"dataType":"string"},"cron":{"dataType":"string"}},"required":true},
            "sandbox": {"dataType":"nestedObjectLiteral","nestedProperties":{"limitRange":{"dataType":"nestedObjectLiteral","nestedProperties":{"limits":{"dataType":"array","array":{"dataType":"refAlias","ref":"Record_string.unknown_"},"required":true}}},"resourceQuota":{"dataType":"nestedObjectLiteral","nestedProperties":{"hard":{"ref":"Record_string.string_","required":true}}},"networkIsolation":{"ref":"NetworkIsolation"},"ttl":{"dataType":"string"},"namespacePrefix":{"dataType":"string"}}},
            "sla": {"dataType":"nestedObjectLiteral","nestedProperties":{"alertOnExceed":{"dataType":"boolean"},"maxRPO":{"dataType":"string"},"maxRTO":{"dataType":"string"}}},
            "healthCheckPolicy": {"dataType":"string"},
            "healthChecks": {"dataType":"nestedObjectLiteral","nestedProperties":{"checks":{"dataType":"array","array":{"dataType":"refObject","ref":"HealthCheck"},"required":true}}},
            "restore": {"ref":"RestoreSpec"},
            "historyLimit": {"dataType":"double"},
            "notifications": {"ref":"NotificationsSpec"},
            "logCollection": {"ref":"LogCollectionSpec"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DraftedRestoreTest": {
        "dataType": "refObject",
        "properties": {
            "apiVersion": {"dataType":"string","required":true},
            "kind": {"dataType":"string","required":true},
            "metadata": {"dataType":"nestedObjectLiteral","nestedProperties":{"annotations":{"ref":"Record_string.string_","required":true},"namespace":{"dataType":"string","required":true},"name":{"dataType":"string","required":true}},"required":true},
            "spec": {"ref":"RestoreTestSpec","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "TestDraftView": {
        "dataType": "refObject",
        "properties": {
            "namespace": {"dataType":"string","required":true},
            "test": {"ref":"DraftedRestoreTest","required":true},
            "notes": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "todo": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "yaml": {"dataType":"string"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SkipReason": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["forbidden"]},{"dataType":"enum","enums":["not-backed-up"]},{"dataType":"enum","enums":["unreadable"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SkippedNamespace": {
        "dataType": "refObject",
        "properties": {
            "namespace": {"dataType":"string","required":true},
            "reason": {"ref":"SkipReason","required":true},
            "message": {"dataType":"string","required":true},
            "missingPermissions": {"dataType":"array","array":{"dataType":"refObject","ref":"PermissionDescriptor"}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "TestDraftsResponse": {
        "dataType": "refObject",
        "properties": {
            "generatedAt": {"dataType":"string","required":true},
            "testNamespace": {"dataType":"string","required":true},
            "drafts": {"dataType":"array","array":{"dataType":"refObject","ref":"TestDraftView"},"required":true},
            "skipped": {"dataType":"array","array":{"dataType":"refObject","ref":"SkippedNamespace"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ScheduleInfo": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true},
            "cron": {"dataType":"string","required":true},
            "namespaces": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "lastBackup": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SandboxState": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["in-use"]},{"dataType":"enum","enums":["kept"]},{"dataType":"enum","enums":["expired"]},{"dataType":"enum","enums":["orphaned"]},{"dataType":"enum","enums":["unrecorded"]},{"dataType":"enum","enums":["unrecognised"]},{"dataType":"enum","enums":["deleting"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "SandboxInfo": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true},
            "uid": {"dataType":"string","required":true},
            "test": {"dataType":"string","required":true},
            "testNamespace": {"dataType":"string","required":true},
            "run": {"dataType":"string","required":true},
            "state": {"ref":"SandboxState","required":true},
            "orphaned": {"dataType":"boolean","required":true},
            "createdAt": {"dataType":"string"},
            "expiresAt": {"dataType":"string"},
            "message": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "HintCode": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["image-pull-secret-missing"]},{"dataType":"enum","enums":["image-pull-failed"]},{"dataType":"enum","enums":["crash-loop"]},{"dataType":"enum","enums":["oom-killed"]},{"dataType":"enum","enums":["secret-missing"]},{"dataType":"enum","enums":["configmap-missing"]},{"dataType":"enum","enums":["unschedulable-resources"]},{"dataType":"enum","enums":["unschedulable-placement"]},{"dataType":"enum","enums":["storage-class-missing"]},{"dataType":"enum","enums":["pvc-pending"]},{"dataType":"enum","enums":["quota-exceeded"]},{"dataType":"enum","enums":["storage-quota-exceeded"]},{"dataType":"enum","enums":["pod-security-refused"]},{"dataType":"enum","enums":["externalname-unrestored"]},{"dataType":"enum","enums":["externalname-to-source"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Hint": {
        "dataType": "refObject",
        "properties": {
            "code": {"ref":"HintCode","required":true},
            "title": {"dataType":"string","required":true},
            "remediation": {"dataType":"string","required":true},
            "objects": {"dataType":"array","array":{"dataType":"string"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ObservedContainer": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true},
            "ready": {"dataType":"boolean","required":true},
            "restartCount": {"dataType":"integer","required":true},
            "state": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["waiting"]},{"dataType":"enum","enums":["running"]},{"dataType":"enum","enums":["terminated"]},{"dataType":"enum","enums":["unknown"]}],"required":true},
            "reason": {"dataType":"string"},
            "message": {"dataType":"string"},
            "exitCode": {"dataType":"integer"},
            "lastTerminationReason": {"dataType":"string"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ObservedPod": {
        "dataType": "refObject",
        "properties": {
            "namespace": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "phase": {"dataType":"string","required":true},
            "ready": {"dataType":"boolean","required":true},
            "unscheduled": {"dataType":"nestedObjectLiteral","nestedProperties":{"message":{"dataType":"string","required":true},"reason":{"dataType":"string","required":true}}},
            "containers": {"dataType":"array","array":{"dataType":"refObject","ref":"ObservedContainer"},"required":true},
            "imagePullSecrets": {"dataType":"array","array":{"dataType":"string"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ObservedEvent": {
        "dataType": "refObject",
        "properties": {
            "namespace": {"dataType":"string","required":true},
            "reason": {"dataType":"string","required":true},
            "message": {"dataType":"string","required":true},
            "object": {"dataType":"string","required":true},
            "count": {"dataType":"integer","required":true},
            "lastSeen": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ObservedClaim": {
        "dataType": "refObject",
        "properties": {
            "namespace": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "phase": {"dataType":"string","required":true},
            "storageClass": {"dataType":"string"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ContainerLog": {
        "dataType": "refObject",
        "properties": {
            "namespace": {"dataType":"string","required":true},
            "pod": {"dataType":"string","required":true},
            "container": {"dataType":"string","required":true},
            "init": {"dataType":"boolean"},
            "previous": {"dataType":"boolean"},
            "lines": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "truncated": {"dataType":"boolean"},
            "omittedLines": {"dataType":"integer"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LogCollectionSettings": {
        "dataType": "refObject",
        "properties": {
            "lines": {"dataType":"double","required":true},
            "containers": {"ref":"LogContainers","required":true},
            "initContainers": {"dataType":"boolean","required":true},
            "previous": {"dataType":"boolean","required":true},
            "events": {"dataType":"boolean","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RunDiagnosis": {
        "dataType": "refObject",
        "properties": {
            "test": {"dataType":"nestedObjectLiteral","nestedProperties":{"namespace":{"dataType":"string","required":true},"name":{"dataType":"string","required":true}},"required":true},
            "runId": {"dataType":"string","required":true},
            "report": {"dataType":"string","required":true},
            "result": {"dataType":"string","required":true},
            "collectedAt": {"dataType":"string","required":true},
            "sandboxes": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "hints": {"dataType":"array","array":{"dataType":"refObject","ref":"Hint"},"required":true},
            "pods": {"dataType":"array","array":{"dataType":"refObject","ref":"ObservedPod"},"required":true},
            "events": {"dataType":"array","array":{"dataType":"refObject","ref":"ObservedEvent"},"required":true},
            "claims": {"dataType":"array","array":{"dataType":"refObject","ref":"ObservedClaim"},"required":true},
            "logs": {"dataType":"array","array":{"dataType":"refObject","ref":"ContainerLog"},"required":true},
            "logsNote": {"dataType":"string"},
            "logCollection": {"ref":"LogCollectionSettings"},
            "truncated": {"dataType":"boolean","required":true},
            "redacted": {"dataType":"boolean"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "NotificationEvent": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["failed"]},{"dataType":"enum","enums":["partial"]},{"dataType":"enum","enums":["succeeded"]},{"dataType":"enum","enums":["slaexceeded"]},{"dataType":"enum","enums":["regressed"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RunNotification": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "event": {"ref":"NotificationEvent","required":true},
            "type": {"dataType":"string","required":true},
            "summary": {"dataType":"string","required":true},
            "test": {"dataType":"nestedObjectLiteral","nestedProperties":{"namespace":{"dataType":"string","required":true},"name":{"dataType":"string","required":true}},"required":true},
            "run": {"dataType":"nestedObjectLiteral","nestedProperties":{"failedChecks":{"dataType":"array","array":{"dataType":"nestedObjectLiteral","nestedProperties":{"message":{"dataType":"string","required":true},"status":{"dataType":"string","required":true},"kind":{"dataType":"string","required":true},"name":{"dataType":"string","required":true}}},"required":true},"failure":{"dataType":"nestedObjectLiteral","nestedProperties":{"message":{"dataType":"string","required":true},"reason":{"dataType":"string","required":true}}},"rto":{"dataType":"nestedObjectLiteral","nestedProperties":{"withinSLA":{"dataType":"boolean"},"target":{"dataType":"string"},"measured":{"dataType":"string"}},"required":true},"backup":{"dataType":"string","required":true},"sandboxNamespaces":{"dataType":"array","array":{"dataType":"string"},"required":true},"sourceNamespaces":{"dataType":"array","array":{"dataType":"string"},"required":true},"previousScore":{"dataType":"integer"},"score":{"dataType":"integer","required":true},"result":{"dataType":"string","required":true},"completedAt":{"dataType":"string","required":true},"startedAt":{"dataType":"string","required":true},"trigger":{"dataType":"string","required":true},"report":{"dataType":"string","required":true},"id":{"dataType":"string","required":true}},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RunEvent": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["failed"]},{"dataType":"enum","enums":["partial"]},{"dataType":"enum","enums":["succeeded"]},{"dataType":"enum","enums":["slaexceeded"]},{"dataType":"enum","enums":["regressed"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "OwnerReference": {
        "dataType": "refObject",
        "properties": {
            "apiVersion": {"dataType":"string","required":true},
            "kind": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "uid": {"dataType":"string","required":true},
            "controller": {"dataType":"boolean"},
            "blockOwnerDeletion": {"dataType":"boolean"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ObjectMeta": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true},
            "namespace": {"dataType":"string"},
            "uid": {"dataType":"string"},
            "resourceVersion": {"dataType":"string"},
            "generation": {"dataType":"integer"},
            "creationTimestamp": {"dataType":"string"},
            "deletionTimestamp": {"dataType":"string"},
            "labels": {"ref":"Record_string.string_"},
            "annotations": {"ref":"Record_string.string_"},
            "ownerReferences": {"dataType":"array","array":{"dataType":"refObject","ref":"OwnerReference"}},
            "finalizers": {"dataType":"array","array":{"dataType":"string"}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RunTrigger": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["schedule"]},{"dataType":"enum","enums":["manual"]},{"dataType":"enum","enums":["backup"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "BackupSelectionRecord": {
        "dataType": "refObject",
        "properties": {
            "strategy": {"dataType":"enum","enums":["randomWithin"],"required":true},
            "within": {"dataType":"string","required":true},
            "windowStart": {"dataType":"string","required":true},
            "windowEnd": {"dataType":"string","required":true},
            "seed": {"dataType":"string","required":true},
            "candidates": {"dataType":"integer","required":true},
            "chosen": {"dataType":"integer"},
            "fallback": {"dataType":"boolean"},
            "reason": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RunResult": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["pass"]},{"dataType":"enum","enums":["partial"]},{"dataType":"enum","enums":["fail"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ScoreLevelName": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["restoreIntegrity"]},{"dataType":"enum","enums":["completeness"]},{"dataType":"enum","enums":["podStartup"]},{"dataType":"enum","enums":["healthChecks"]},{"dataType":"enum","enums":["crossNamespace"]},{"dataType":"enum","enums":["rtoWithinSLA"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ScoreLevel": {
        "dataType": "refObject",
        "properties": {
            "name": {"ref":"ScoreLevelName","required":true},
            "points": {"dataType":"integer","required":true},
            "maxPoints": {"dataType":"integer","required":true},
            "tested": {"dataType":"boolean","required":true},
            "detail": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CheckStatus": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["pass"]},{"dataType":"enum","enums":["fail"]},{"dataType":"enum","enums":["skip"]},{"dataType":"enum","enums":["error"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CheckResult": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true},
            "kind": {"ref":"CheckKind","required":true},
            "status": {"ref":"CheckStatus","required":true},
            "message": {"dataType":"string","required":true},
            "duration": {"dataType":"string","required":true},
            "newestData": {"dataType":"string"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "KindCompleteness": {
        "dataType": "refObject",
        "properties": {
            "kind": {"dataType":"string","required":true},
            "backedUp": {"dataType":"integer","required":true},
            "restored": {"dataType":"integer","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DependencyEntry": {
        "dataType": "refObject",
        "properties": {
            "from": {"dataType":"string","required":true},
            "to": {"dataType":"string","required":true},
            "status": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["restored"]},{"dataType":"enum","enums":["reachable"]},{"dataType":"enum","enums":["missing"]},{"dataType":"enum","enums":["unreachable"]},{"dataType":"enum","enums":["production"]}],"required":true},
            "message": {"dataType":"string"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "AppliedTransform": {
        "dataType": "refObject",
        "properties": {
            "transform": {"dataType":"string","required":true},
            "kind": {"dataType":"string","required":true},
            "namespace": {"dataType":"string","required":true},
            "name": {"dataType":"string","required":true},
            "change": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RestoreTransformsReport": {
        "dataType": "refObject",
        "properties": {
            "applied": {"dataType":"array","array":{"dataType":"refObject","ref":"AppliedTransform"},"required":true},
            "more": {"dataType":"integer"},
            "removedDefaults": {"dataType":"array","array":{"dataType":"refAlias","ref":"DefaultTransformId"}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "PodSecurityReport": {
        "dataType": "refObject",
        "properties": {
            "floor": {"ref":"PodSecurityLevel","required":true},
            "namespaces": {"dataType":"array","array":{"dataType":"nestedObjectLiteral","nestedProperties":{"level":{"ref":"PodSecurityLevel","required":true},"sourceLevel":{"ref":"PodSecurityLevel"},"source":{"dataType":"string","required":true}}},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "VolumeRestoreMethod": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["file-system"]},{"dataType":"enum","enums":["csi-data-mover"]},{"dataType":"enum","enums":["csi-snapshot"]},{"dataType":"enum","enums":["provider-data-mover"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "VolumeRestoreReport": {
        "dataType": "refObject",
        "properties": {
            "namespace": {"dataType":"string","required":true},
            "pod": {"dataType":"string"},
            "volume": {"dataType":"string"},
            "claim": {"dataType":"string"},
            "method": {"ref":"VolumeRestoreMethod","required":true},
            "phase": {"dataType":"string","required":true},
            "dataRestored": {"dataType":"boolean","required":true},
            "bytes": {"dataType":"integer"},
            "durationSeconds": {"dataType":"integer"},
            "message": {"dataType":"string"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ResultCap": {
        "dataType": "refObject",
        "properties": {
            "check": {"dataType":"string","required":true},
            "critical": {"dataType":"boolean","required":true},
            "result": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["partial"]},{"dataType":"enum","enums":["fail"]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RestoreReportSpec": {
        "dataType": "refObject",
        "properties": {
            "testRef": {"dataType":"nestedObjectLiteral","nestedProperties":{"uid":{"dataType":"string"},"namespace":{"dataType":"string","required":true},"name":{"dataType":"string","required":true}},"required":true},
            "runId": {"dataType":"string","required":true},
            "trigger": {"ref":"RunTrigger","required":true},
            "scheduledAt": {"dataType":"string","required":true},
            "startedAt": {"dataType":"string","required":true},
            "completedAt": {"dataType":"string","required":true},
            "sourceNamespaces": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "backup": {"dataType":"nestedObjectLiteral","nestedProperties":{"selection":{"ref":"BackupSelectionRecord"},"age":{"dataType":"string"},"completedAt":{"dataType":"string"},"name":{"dataType":"string","required":true},"provider":{"ref":"Provider","required":true}},"required":true},
            "sandboxNamespaces": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "restore": {"dataType":"nestedObjectLiteral","nestedProperties":{"subset":{"dataType":"string"},"itemsRestored":{"dataType":"integer"},"errors":{"dataType":"integer","required":true},"warnings":{"dataType":"integer","required":true},"phase":{"dataType":"string","required":true},"namespace":{"dataType":"string","required":true},"name":{"dataType":"string","required":true}}},
            "score": {"dataType":"integer","required":true},
            "result": {"ref":"RunResult","required":true},
            "levels": {"dataType":"array","array":{"dataType":"refObject","ref":"ScoreLevel"},"required":true},
            "checks": {"dataType":"array","array":{"dataType":"refObject","ref":"CheckResult"},"required":true},
            "checkSummary": {"dataType":"string"},
            "completeness": {"dataType":"array","array":{"dataType":"refObject","ref":"KindCompleteness"},"required":true},
            "dependencies": {"dataType":"array","array":{"dataType":"refObject","ref":"DependencyEntry"}},
            "transforms": {"ref":"RestoreTransformsReport"},
            "podSecurity": {"ref":"PodSecurityReport"},
            "volumes": {"dataType":"array","array":{"dataType":"refObject","ref":"VolumeRestoreReport"}},
            "rpo": {"dataType":"nestedObjectLiteral","nestedProperties":{"withinSLA":{"dataType":"boolean"},"target":{"dataType":"string"},"measuredSeconds":{"dataType":"integer","required":true},"measured":{"dataType":"string","required":true},"newestData":{"dataType":"string","required":true},"check":{"dataType":"string","required":true}}},
            "rto": {"dataType":"nestedObjectLiteral","nestedProperties":{"phases":{"dataType":"nestedObjectLiteral","nestedProperties":{"checksCompletedAt":{"dataType":"string"},"podsReadyAt":{"dataType":"string"},"restoreCompletedAt":{"dataType":"string"},"restoreRequestedAt":{"dataType":"string"}},"required":true},"withinSLA":{"dataType":"boolean"},"target":{"dataType":"string"},"measuredSeconds":{"dataType":"double"},"measured":{"dataType":"string"}},"required":true},
            "sandboxExpiresAt": {"dataType":"string"},
            "resultCap": {"ref":"ResultCap"},
            "failure": {"dataType":"nestedObjectLiteral","nestedProperties":{"message":{"dataType":"string","required":true},"reason":{"dataType":"string","required":true}}},
            "evidence": {"dataType":"nestedObjectLiteral","nestedProperties":{"canonicalization":{"dataType":"enum","enums":["RFC8785"],"required":true},"algorithm":{"dataType":"enum","enums":["Ed25519"],"required":true},"keyId":{"dataType":"string","required":true},"signature":{"dataType":"string","required":true},"sequence":{"dataType":"integer"},"previousDigest":{"dataType":"string"},"digest":{"dataType":"string","required":true}}},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "RestoreReportResource": {
        "dataType": "refObject",
        "properties": {
            "apiVersion": {"dataType":"string","required":true},
            "kind": {"dataType":"enum","enums":["RestoreReport"],"required":true},
            "metadata": {"ref":"ObjectMeta","required":true},
            "spec": {"ref":"RestoreReportSpec","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "FrameworkId": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["soc2"]},{"dataType":"enum","enums":["iso27001"]},{"dataType":"enum","enums":["hipaa"]},{"dataType":"enum","enums":["dora"]},{"dataType":"enum","enums":["pcidss"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "LicenseResponse": {
        "dataType": "refObject",
        "properties": {
            "tier": {"dataType":"string","required":true},
            "expiresAt": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "trialEndsAt": {"dataType":"union","subSchemas":[{"dataType":"string"},{"dataType":"enum","enums":[null]}],"required":true},
            "isExpired": {"dataType":"boolean","required":true},
            "isTrialing": {"dataType":"boolean","required":true},
            "trialDaysLeft": {"dataType":"integer","required":true},
            "features": {"dataType":"array","array":{"dataType":"string"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "HealthResponse": {
        "dataType": "refObject",
        "properties": {
            "status": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["ok"]},{"dataType":"enum","enums":["starting"]}],"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "EvidencePublicKey": {
        "dataType": "refObject",
        "properties": {
            "keyId": {"dataType":"string","required":true},
            "algorithm": {"dataType":"enum","enums":["Ed25519"],"required":true},
            "publicKeyPem": {"dataType":"string","required":true},
            "createdAt": {"dataType":"string","required":true},
            "status": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["current"]},{"dataType":"enum","enums":["retired"]}],"required":true},
            "retiredAt": {"dataType":"string"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Summary": {
        "dataType": "refObject",
        "properties": {
            "averageScore": {"dataType":"integer","required":true},
            "totalTests": {"dataType":"integer","required":true},
            "testsLastNight": {"dataType":"integer","required":true},
            "totalFailures": {"dataType":"integer","required":true},
            "totalPartial": {"dataType":"integer","required":true},
            "averageRTO": {"dataType":"string","required":true},
            "namespacesCovered": {"dataType":"integer","required":true},
            "namespacesBackedUpUntested": {"dataType":"integer"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "DailySummary": {
        "dataType": "refObject",
        "properties": {
            "date": {"dataType":"string","required":true},
            "score": {"dataType":"integer","required":true},
            "tests": {"dataType":"integer","required":true},
            "failures": {"dataType":"integer","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "Alert": {
        "dataType": "refObject",
        "properties": {
            "timestamp": {"dataType":"string","required":true},
            "testName": {"dataType":"string","required":true},
            "namespace": {"dataType":"string","required":true},
            "score": {"dataType":"integer","required":true},
            "prevScore": {"dataType":"integer","required":true},
            "result": {"dataType":"string","required":true},
            "message": {"dataType":"string","required":true},
            "kind": {"dataType":"string"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "UpcomingTest": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true},
            "namespace": {"dataType":"string","required":true},
            "nextRunAt": {"dataType":"string","required":true},
            "onNextBackup": {"dataType":"boolean"},
            "lastScore": {"dataType":"integer","required":true},
            "overdue": {"dataType":"boolean"},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CoverageStatus": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["tested"]},{"dataType":"enum","enums":["stale"]},{"dataType":"enum","enums":["untested"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "NamespaceCoverage": {
        "dataType": "refObject",
        "properties": {
            "namespace": {"dataType":"string","required":true},
            "status": {"ref":"CoverageStatus","required":true},
            "backedUpBy": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "lastBackupAt": {"dataType":"string","required":true},
            "window": {"dataType":"string","required":true},
            "tests": {"dataType":"array","array":{"dataType":"string"},"required":true},
            "lastPassedAt": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "CoverageResponse": {
        "dataType": "refObject",
        "properties": {
            "generatedAt": {"dataType":"string","required":true},
            "backedUp": {"dataType":"integer","required":true},
            "tested": {"dataType":"integer","required":true},
            "untested": {"dataType":"integer","required":true},
            "namespaces": {"dataType":"array","array":{"dataType":"refObject","ref":"NamespaceCoverage"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ControlStatus": {
        "dataType": "refAlias",
        "type": {"dataType":"union","subSchemas":[{"dataType":"enum","enums":["satisfied"]},{"dataType":"enum","enums":["at_risk"]},{"dataType":"enum","enums":["not_tested"]}],"validators":{}},
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ComplianceControl": {
        "dataType": "refObject",
        "properties": {
            "id": {"dataType":"string","required":true},
            "title": {"dataType":"string","required":true},
            "status": {"ref":"ControlStatus","required":true},
            "evidence": {"dataType":"string","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ComplianceResponse": {
        "dataType": "refObject",
        "properties": {
            "framework": {"dataType":"string","required":true},
            "period": {"dataType":"integer","required":true},
            "generatedAt": {"dataType":"string","required":true},
            "totalTests": {"dataType":"integer","required":true},
            "passRate": {"dataType":"double","required":true},
            "avgScore": {"dataType":"integer","required":true},
            "slaCompliance": {"dataType":"double","required":true},
            "namespacesCovered": {"dataType":"integer","required":true},
            "controls": {"dataType":"array","array":{"dataType":"refObject","ref":"ComplianceControl"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "TestPassRate": {
        "dataType": "refObject",
        "properties": {
            "name": {"dataType":"string","required":true},
            "namespace": {"dataType":"string","required":true},
            "passRate": {"dataType":"double","required":true},
            "runs": {"dataType":"integer","required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
    "ComplianceOverview": {
        "dataType": "refObject",
        "properties": {
            "period": {"dataType":"integer","required":true},
            "generatedAt": {"dataType":"string","required":true},
            "frameworks": {"dataType":"array","array":{"dataType":"refObject","ref":"ComplianceResponse"},"required":true},
            "tests": {"dataType":"array","array":{"dataType":"refObject","ref":"TestPassRate"},"required":true},
        },
        "additionalProperties": false,
    },
    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
};
const templateService = new ExpressTemplateService(models, {"noImplicitAdditionalProperties":"throw-on-extras","bodyCoercion":false});

// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa




export function RegisterRoutes(app: Router) {

    // ###########################################################################################################
    //  NOTE: If you do not see routes for all of your controllers in this file, then you might not have informed tsoa of where to look
    //      Please look into the "controllerPathGlobs" config option described in the readme: https://github.com/lukeautry/tsoa
    // ###########################################################################################################


    
        const argsTestsController_listTests: Record<string, TsoaRoute.ParameterSchema> = {
                request: {"in":"request","name":"request","required":true,"dataType":"object"},
                namespace: {"in":"query","name":"namespace","dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
        };
        app.get('/api/v1/tests',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(TestsController)),
            ...(fetchMiddlewares<RequestHandler>(TestsController.prototype.listTests)),

            async function TestsController_listTests(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsTestsController_listTests, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<TestsController>(TestsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listTests',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsTestsController_getTest: Record<string, TsoaRoute.ParameterSchema> = {
                name: {"in":"path","name":"name","required":true,"dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
                request: {"in":"request","name":"request","required":true,"dataType":"object"},
                namespace: {"in":"query","name":"namespace","dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
        };
        app.get('/api/v1/tests/:name',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(TestsController)),
            ...(fetchMiddlewares<RequestHandler>(TestsController.prototype.getTest)),

            async function TestsController_getTest(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsTestsController_getTest, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<TestsController>(TestsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getTest',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsTestsController_createTest: Record<string, TsoaRoute.ParameterSchema> = {
                body: {"in":"body","name":"body","required":true,"ref":"CreateTestInput"},
                request: {"in":"request","name":"request","required":true,"dataType":"object"},
                namespace: {"in":"query","name":"namespace","dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
        };
        app.post('/api/v1/tests',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(TestsController)),
            ...(fetchMiddlewares<RequestHandler>(TestsController.prototype.createTest)),

            async function TestsController_createTest(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsTestsController_createTest, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<TestsController>(TestsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'createTest',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 201,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsTestsController_replaceTest: Record<string, TsoaRoute.ParameterSchema> = {
                name: {"in":"path","name":"name","required":true,"dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
                body: {"in":"body","name":"body","required":true,"ref":"CreateTestInput"},
                request: {"in":"request","name":"request","required":true,"dataType":"object"},
                namespace: {"in":"query","name":"namespace","dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
        };
        app.put('/api/v1/tests/:name',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(TestsController)),
            ...(fetchMiddlewares<RequestHandler>(TestsController.prototype.replaceTest)),

            async function TestsController_replaceTest(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsTestsController_replaceTest, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<TestsController>(TestsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'replaceTest',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsTestsController_deleteTest: Record<string, TsoaRoute.ParameterSchema> = {
                name: {"in":"path","name":"name","required":true,"dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
                request: {"in":"request","name":"request","required":true,"dataType":"object"},
                namespace: {"in":"query","name":"namespace","dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
        };
        app.delete('/api/v1/tests/:name',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(TestsController)),
            ...(fetchMiddlewares<RequestHandler>(TestsController.prototype.deleteTest)),

            async function TestsController_deleteTest(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsTestsController_deleteTest, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<TestsController>(TestsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'deleteTest',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsTestsController_triggerTest: Record<string, TsoaRoute.ParameterSchema> = {
                name: {"in":"path","name":"name","required":true,"dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
                request: {"in":"request","name":"request","required":true,"dataType":"object"},
                namespace: {"in":"query","name":"namespace","dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
        };
        app.post('/api/v1/tests/:name/trigger',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(TestsController)),
            ...(fetchMiddlewares<RequestHandler>(TestsController.prototype.triggerTest)),

            async function TestsController_triggerTest(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsTestsController_triggerTest, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<TestsController>(TestsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'triggerTest',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsTestDraftsController_draftTests: Record<string, TsoaRoute.ParameterSchema> = {
                request: {"in":"request","name":"request","required":true,"dataType":"object"},
                namespace: {"in":"query","name":"namespace","dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
                sourceNamespace: {"in":"query","name":"sourceNamespace","dataType":"array","array":{"dataType":"refAlias","ref":"NamespaceName"},"validators":{"maxItems":{"errorMsg":"must name at most 100 namespaces","value":100}}},
                yaml: {"default":false,"in":"query","name":"yaml","dataType":"boolean","validators":{"isBoolean":{"errorMsg":"must be true or false"}}},
        };
        app.get('/api/v1/test-drafts',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(TestDraftsController)),
            ...(fetchMiddlewares<RequestHandler>(TestDraftsController.prototype.draftTests)),

            async function TestDraftsController_draftTests(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsTestDraftsController_draftTests, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<TestDraftsController>(TestDraftsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'draftTests',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsTestDraftsController_createDraftedTest: Record<string, TsoaRoute.ParameterSchema> = {
                sourceNamespace: {"in":"path","name":"sourceNamespace","required":true,"dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
                request: {"in":"request","name":"request","required":true,"dataType":"object"},
                namespace: {"in":"query","name":"namespace","dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
        };
        app.post('/api/v1/test-drafts/:sourceNamespace',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(TestDraftsController)),
            ...(fetchMiddlewares<RequestHandler>(TestDraftsController.prototype.createDraftedTest)),

            async function TestDraftsController_createDraftedTest(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsTestDraftsController_createDraftedTest, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<TestDraftsController>(TestDraftsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'createDraftedTest',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 201,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSchedulesController_listSchedules: Record<string, TsoaRoute.ParameterSchema> = {
        };
        app.get('/api/v1/schedules',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(SchedulesController)),
            ...(fetchMiddlewares<RequestHandler>(SchedulesController.prototype.listSchedules)),

            async function SchedulesController_listSchedules(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSchedulesController_listSchedules, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<SchedulesController>(SchedulesController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listSchedules',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSandboxesController_listSandboxes: Record<string, TsoaRoute.ParameterSchema> = {
                orphaned: {"default":false,"in":"query","name":"orphaned","dataType":"boolean","validators":{"isBoolean":{"errorMsg":"must be true or false"}}},
        };
        app.get('/api/v1/sandboxes',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(SandboxesController)),
            ...(fetchMiddlewares<RequestHandler>(SandboxesController.prototype.listSandboxes)),

            async function SandboxesController_listSandboxes(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSandboxesController_listSandboxes, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<SandboxesController>(SandboxesController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listSandboxes',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsSandboxesController_removeOrphanedSandbox: Record<string, TsoaRoute.ParameterSchema> = {
                name: {"in":"path","name":"name","required":true,"dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
                uid: {"in":"query","name":"uid","dataType":"string","validators":{"pattern":{"errorMsg":"must be a UID (hexadecimal digits and \"-\")","value":"^[0-9a-fA-F-]+$"},"maxLength":{"errorMsg":"must be at most 64 characters","value":64}}},
        };
        app.delete('/api/v1/sandboxes/:name',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(SandboxesController)),
            ...(fetchMiddlewares<RequestHandler>(SandboxesController.prototype.removeOrphanedSandbox)),

            async function SandboxesController_removeOrphanedSandbox(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsSandboxesController_removeOrphanedSandbox, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<SandboxesController>(SandboxesController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'removeOrphanedSandbox',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 204,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsRunDetailsController_getRunDiagnosis: Record<string, TsoaRoute.ParameterSchema> = {
                request: {"in":"request","name":"request","required":true,"dataType":"object"},
                name: {"in":"path","name":"name","required":true,"dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
                namespace: {"in":"query","name":"namespace","dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
                run: {"in":"query","name":"run","dataType":"string","validators":{"pattern":{"errorMsg":"must be a run id (lower-case letters and digits)","value":"^[a-z0-9]{1,16}$"}}},
        };
        app.get('/api/v1/tests/:name/diagnosis',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(RunDetailsController)),
            ...(fetchMiddlewares<RequestHandler>(RunDetailsController.prototype.getRunDiagnosis)),

            async function RunDetailsController_getRunDiagnosis(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsRunDetailsController_getRunDiagnosis, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<RunDetailsController>(RunDetailsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getRunDiagnosis',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsRunDetailsController_previewRunNotification: Record<string, TsoaRoute.ParameterSchema> = {
                name: {"in":"path","name":"name","required":true,"dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
                event: {"default":"failed","in":"query","name":"event","ref":"RunEvent"},
                namespace: {"in":"query","name":"namespace","dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
                run: {"in":"query","name":"run","dataType":"string","validators":{"pattern":{"errorMsg":"must be a run id (lower-case letters and digits)","value":"^[a-z0-9]{1,16}$"}}},
        };
        app.get('/api/v1/tests/:name/notification-preview',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(RunDetailsController)),
            ...(fetchMiddlewares<RequestHandler>(RunDetailsController.prototype.previewRunNotification)),

            async function RunDetailsController_previewRunNotification(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsRunDetailsController_previewRunNotification, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<RunDetailsController>(RunDetailsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'previewRunNotification',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsReportsController_listReports: Record<string, TsoaRoute.ParameterSchema> = {
                request: {"in":"request","name":"request","required":true,"dataType":"object"},
                test: {"in":"query","name":"test","dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
                namespace: {"in":"query","name":"namespace","dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
                days: {"default":30,"in":"query","name":"days","dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"errorMsg":"must be between 1 and 3650","value":1},"maximum":{"errorMsg":"must be between 1 and 3650","value":3650}}},
                latest: {"default":false,"in":"query","name":"latest","dataType":"boolean","validators":{"isBoolean":{"errorMsg":"must be true or false"}}},
                limit: {"default":500,"in":"query","name":"limit","dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"errorMsg":"must be between 1 and 5000","value":1},"maximum":{"errorMsg":"must be between 1 and 5000","value":5000}}},
                continueToken: {"in":"query","name":"continue","dataType":"string","validators":{"minLength":{"errorMsg":"must not be empty","value":1},"maxLength":{"errorMsg":"is not a token of this list","value":1024}}},
                result: {"in":"query","name":"result","ref":"RunResult"},
        };
        app.get('/api/v1/reports',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(ReportsController)),
            ...(fetchMiddlewares<RequestHandler>(ReportsController.prototype.listReports)),

            async function ReportsController_listReports(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsReportsController_listReports, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<ReportsController>(ReportsController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listReports',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsCompliancePdfController_getCompliancePdf: Record<string, TsoaRoute.ParameterSchema> = {
                framework: {"in":"query","name":"framework","required":true,"ref":"FrameworkId"},
                period: {"in":"query","name":"period","required":true,"dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"errorMsg":"must be between 1 and 3650","value":1},"maximum":{"errorMsg":"must be between 1 and 3650","value":3650}}},
        };
        app.get('/api/v1/compliance/pdf',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(CompliancePdfController)),
            ...(fetchMiddlewares<RequestHandler>(CompliancePdfController.prototype.getCompliancePdf)),

            async function CompliancePdfController_getCompliancePdf(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsCompliancePdfController_getCompliancePdf, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<CompliancePdfController>(CompliancePdfController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getCompliancePdf',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsTestReportPdfController_getTestReportPdf: Record<string, TsoaRoute.ParameterSchema> = {
                name: {"in":"path","name":"name","required":true,"dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
                period: {"default":90,"in":"query","name":"period","dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"errorMsg":"must be between 1 and 3650","value":1},"maximum":{"errorMsg":"must be between 1 and 3650","value":3650}}},
                namespace: {"in":"query","name":"namespace","dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
        };
        app.get('/api/restore-tests/:name/report.pdf',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(TestReportPdfController)),
            ...(fetchMiddlewares<RequestHandler>(TestReportPdfController.prototype.getTestReportPdf)),

            async function TestReportPdfController_getTestReportPdf(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsTestReportPdfController_getTestReportPdf, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<TestReportPdfController>(TestReportPdfController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getTestReportPdf',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsLicenseController_getLicense: Record<string, TsoaRoute.ParameterSchema> = {
        };
        app.get('/api/v1/license',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(LicenseController)),
            ...(fetchMiddlewares<RequestHandler>(LicenseController.prototype.getLicense)),

            async function LicenseController_getLicense(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsLicenseController_getLicense, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<LicenseController>(LicenseController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getLicense',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsHealthController_getHealth: Record<string, TsoaRoute.ParameterSchema> = {
        };
        app.get('/api/v1/health',
            ...(fetchMiddlewares<RequestHandler>(HealthController)),
            ...(fetchMiddlewares<RequestHandler>(HealthController.prototype.getHealth)),

            async function HealthController_getHealth(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsHealthController_getHealth, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<HealthController>(HealthController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getHealth',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsEvidenceController_listEvidenceKeys: Record<string, TsoaRoute.ParameterSchema> = {
        };
        app.get('/api/v1/evidence/keys',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(EvidenceController)),
            ...(fetchMiddlewares<RequestHandler>(EvidenceController.prototype.listEvidenceKeys)),

            async function EvidenceController_listEvidenceKeys(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsEvidenceController_listEvidenceKeys, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<EvidenceController>(EvidenceController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listEvidenceKeys',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsDashboardController_getSummary: Record<string, TsoaRoute.ParameterSchema> = {
                request: {"in":"request","name":"request","required":true,"dataType":"object"},
                namespace: {"in":"query","name":"namespace","dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
        };
        app.get('/api/v1/summary',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(DashboardController)),
            ...(fetchMiddlewares<RequestHandler>(DashboardController.prototype.getSummary)),

            async function DashboardController_getSummary(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsDashboardController_getSummary, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<DashboardController>(DashboardController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getSummary',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsDashboardController_getDailySummary: Record<string, TsoaRoute.ParameterSchema> = {
                request: {"in":"request","name":"request","required":true,"dataType":"object"},
                days: {"default":30,"in":"query","name":"days","dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"errorMsg":"must be between 1 and 3650","value":1},"maximum":{"errorMsg":"must be between 1 and 3650","value":3650}}},
                namespace: {"in":"query","name":"namespace","dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
        };
        app.get('/api/v1/summary/daily',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(DashboardController)),
            ...(fetchMiddlewares<RequestHandler>(DashboardController.prototype.getDailySummary)),

            async function DashboardController_getDailySummary(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsDashboardController_getDailySummary, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<DashboardController>(DashboardController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getDailySummary',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsDashboardController_listAlerts: Record<string, TsoaRoute.ParameterSchema> = {
                request: {"in":"request","name":"request","required":true,"dataType":"object"},
                hours: {"default":48,"in":"query","name":"hours","dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"errorMsg":"must be between 1 and 87600","value":1},"maximum":{"errorMsg":"must be between 1 and 87600","value":87600}}},
                namespace: {"in":"query","name":"namespace","dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
        };
        app.get('/api/v1/alerts',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(DashboardController)),
            ...(fetchMiddlewares<RequestHandler>(DashboardController.prototype.listAlerts)),

            async function DashboardController_listAlerts(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsDashboardController_listAlerts, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<DashboardController>(DashboardController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listAlerts',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsDashboardController_listUpcoming: Record<string, TsoaRoute.ParameterSchema> = {
                request: {"in":"request","name":"request","required":true,"dataType":"object"},
                namespace: {"in":"query","name":"namespace","dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
        };
        app.get('/api/v1/upcoming',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(DashboardController)),
            ...(fetchMiddlewares<RequestHandler>(DashboardController.prototype.listUpcoming)),

            async function DashboardController_listUpcoming(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsDashboardController_listUpcoming, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<DashboardController>(DashboardController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'listUpcoming',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsCoverageController_getCoverage: Record<string, TsoaRoute.ParameterSchema> = {
                request: {"in":"request","name":"request","required":true,"dataType":"object"},
                namespace: {"in":"query","name":"namespace","dataType":"string","validators":{"pattern":{"errorMsg":"must be an RFC 1123 label: lower-case letters, digits and \"-\", starting and ending with a letter or digit","value":"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$"},"maxLength":{"errorMsg":"must be at most 63 characters","value":63}}},
        };
        app.get('/api/v1/coverage',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(CoverageController)),
            ...(fetchMiddlewares<RequestHandler>(CoverageController.prototype.getCoverage)),

            async function CoverageController_getCoverage(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsCoverageController_getCoverage, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<CoverageController>(CoverageController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getCoverage',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: 200,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsComplianceController_getCompliance: Record<string, TsoaRoute.ParameterSchema> = {
                request: {"in":"request","name":"request","required":true,"dataType":"object"},
                framework: {"in":"query","name":"framework","required":true,"ref":"FrameworkId"},
                period: {"in":"query","name":"period","required":true,"dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"errorMsg":"must be between 1 and 3650","value":1},"maximum":{"errorMsg":"must be between 1 and 3650","value":3650}}},
        };
        app.get('/api/v1/compliance',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(ComplianceController)),
            ...(fetchMiddlewares<RequestHandler>(ComplianceController.prototype.getCompliance)),

            async function ComplianceController_getCompliance(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsComplianceController_getCompliance, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<ComplianceController>(ComplianceController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getCompliance',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        const argsComplianceOverviewController_getComplianceOverview: Record<string, TsoaRoute.ParameterSchema> = {
                request: {"in":"request","name":"request","required":true,"dataType":"object"},
                period: {"default":90,"in":"query","name":"period","dataType":"integer","validators":{"isInt":{"errorMsg":"must be an integer"},"minimum":{"errorMsg":"must be between 1 and 3650","value":1},"maximum":{"errorMsg":"must be between 1 and 3650","value":3650}}},
        };
        app.get('/api/compliance',
            authenticateMiddleware([{"kubernetes":[]}]),
            ...(fetchMiddlewares<RequestHandler>(ComplianceOverviewController)),
            ...(fetchMiddlewares<RequestHandler>(ComplianceOverviewController.prototype.getComplianceOverview)),

            async function ComplianceOverviewController_getComplianceOverview(request: ExRequest, response: ExResponse, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            let validatedArgs: any[] = [];
            try {
                validatedArgs = templateService.getValidatedArgs({ args: argsComplianceOverviewController_getComplianceOverview, request, response });

                const container: IocContainer = typeof iocContainer === 'function' ? (iocContainer as IocContainerFactory)(request) : iocContainer;

                const controller: any = await container.get<ComplianceOverviewController>(ComplianceOverviewController);
                if (typeof controller['setStatus'] === 'function') {
                controller.setStatus(undefined);
                }

              await templateService.apiHandler({
                methodName: 'getComplianceOverview',
                controller,
                response,
                next,
                validatedArgs,
                successStatus: undefined,
              });
            } catch (err) {
                return next(err);
            }
        });
        // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa


    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

    function authenticateMiddleware(security: TsoaRoute.Security[] = []) {
        return async function runAuthenticationMiddleware(request: any, response: any, next: any) {

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            // keep track of failed auth attempts so we can hand back the most
            // recent one.  This behavior was previously existing so preserving it
            // here
            const failedAttempts: any[] = [];
            const pushAndRethrow = (error: any) => {
                failedAttempts.push(error);
                throw error;
            };

            const secMethodOrPromises: Promise<any>[] = [];
            for (const secMethod of security) {
                if (Object.keys(secMethod).length > 1) {
                    const secMethodAndPromises: Promise<any>[] = [];

                    for (const name in secMethod) {
                        secMethodAndPromises.push(
                            expressAuthenticationRecasted(request, name, secMethod[name], response)
                                .catch(pushAndRethrow)
                        );
                    }

                    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

                    secMethodOrPromises.push(Promise.all(secMethodAndPromises)
                        .then(users => { return users[0]; }));
                } else {
                    for (const name in secMethod) {
                        secMethodOrPromises.push(
                            expressAuthenticationRecasted(request, name, secMethod[name], response)
                                .catch(pushAndRethrow)
                        );
                    }
                }
            }

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa

            try {
                request['user'] = await Promise.any(secMethodOrPromises);

                // Response was sent in middleware, abort
                if (response.writableEnded) {
                    return;
                }

                next();
            }
            catch(err) {
                // Show most recent error as response
                const error = failedAttempts.pop();
                error.status = error.status || 401;

                // Response was sent in middleware, abort
                if (response.writableEnded) {
                    return;
                }
                next(error);
            }

            // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
        }
    }

    // WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
}

// WARNING: This file was auto-generated with tsoa. Please do not modify it. Re-run tsoa to re-generate this file: https://github.com/lukeautry/tsoa
