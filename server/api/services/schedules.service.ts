// Backup schedules of the backup tool (only Velero has them). No source configured, or the
// tool absent or unreachable → 503 backup-tool-unavailable.
import type { ScheduleInfo } from '../../domain/read-models/views.js';
import { BackupToolUnavailableError, type ScheduleSource } from '../ports.js';

export class SchedulesService {
  constructor(private readonly source: ScheduleSource | undefined) {}

  async list(): Promise<ScheduleInfo[]> {
    if (!this.source) {
      throw new BackupToolUnavailableError(
        'No backup tool with schedules (Velero) is configured on this server.',
      );
    }
    return this.source.listSchedules();
  }
}
