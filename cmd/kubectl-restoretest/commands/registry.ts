// Every verb of kubectl restoretest, in the order --help lists them. A new verb is one file in
// commands/ (defineCommand: syntax, description, -o formats, examples, options, run) plus one line
// here. Binary answers (PDF) go through RehearsalApi.download (pdf-download.ts).
import { alertsCommand } from './alerts.js';
import type { PluginCommand } from './command.js';
import { complianceCommand } from './compliance.js';
import { coverageCommand } from './coverage.js';
import { createCommand } from './create.js';
import { dailyCommand } from './daily.js';
import { dashboardCommand } from './dashboard.js';
import { generateCommand } from './generate.js';
import { deleteCommand } from './delete.js';
import { diagnoseCommand } from './diagnose.js';
import { getCommand } from './get.js';
import { licenseCommand } from './license.js';
import { listCommand } from './list.js';
import { reportCommand } from './report.js';
import { reportsCommand } from './reports.js';
import { sandboxesCommand } from './sandboxes.js';
import { schedulesCommand } from './schedules.js';
import { summaryCommand } from './summary.js';
import { triggerCommand } from './trigger.js';
import { upcomingCommand } from './upcoming.js';
import { updateCommand } from './update.js';
import { verifyCommand } from './verify.js';
import { versionCommand } from './version.js';

export const COMMANDS: readonly PluginCommand[] = [
  listCommand,
  getCommand,
  createCommand,
  updateCommand,
  deleteCommand,
  triggerCommand,
  reportsCommand,
  reportCommand,
  diagnoseCommand,
  summaryCommand,
  dailyCommand,
  alertsCommand,
  upcomingCommand,
  schedulesCommand,
  coverageCommand,
  generateCommand,
  sandboxesCommand,
  complianceCommand,
  verifyCommand,
  licenseCommand,
  dashboardCommand,
  versionCommand,
];
