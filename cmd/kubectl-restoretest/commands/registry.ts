// Every verb of kubectl restoretest, in the order --help lists them. A new verb is one file in
// commands/ (defineCommand: syntax, description, -o formats, examples, options, run) plus one line
// here. Planned (the API endpoints exist; the typed client already knows them):
//   license                 GET /api/v1/license (tier, expiry, features)
//   report NAME --pdf FILE  GET /api/restore-tests/{name}/report.pdf (enterprise, pdfReports)
//   compliance --pdf FILE   an option of compliance.ts: GET /api/v1/compliance/pdf (enterprise)
//   verify FILE             offline check of a PDF's signed attestation (no API call)
// Binary answers (PDF) need the connection's fetch rather than the JSON client: see
// RehearsalApi.serverVersion for a call outside the typed paths.
import { alertsCommand } from './alerts.js';
import type { PluginCommand } from './command.js';
import { complianceCommand } from './compliance.js';
import { createCommand } from './create.js';
import { dailyCommand } from './daily.js';
import { deleteCommand } from './delete.js';
import { getCommand } from './get.js';
import { listCommand } from './list.js';
import { reportsCommand } from './reports.js';
import { schedulesCommand } from './schedules.js';
import { summaryCommand } from './summary.js';
import { triggerCommand } from './trigger.js';
import { upcomingCommand } from './upcoming.js';
import { updateCommand } from './update.js';
import { versionCommand } from './version.js';

export const COMMANDS: readonly PluginCommand[] = [
  listCommand,
  getCommand,
  createCommand,
  updateCommand,
  deleteCommand,
  triggerCommand,
  reportsCommand,
  summaryCommand,
  dailyCommand,
  alertsCommand,
  upcomingCommand,
  schedulesCommand,
  complianceCommand,
  versionCommand,
];
