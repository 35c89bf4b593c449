// The control catalogue (decision 0006): what a restore test can honestly evidence, per
// framework. Titles paraphrase the public texts. Duties only the customer can
// evidence (policies, BIA, physical security, retention) are listed as "not evidenced by this
// report" so no output implies them.

export type FrameworkId = 'soc2' | 'iso27001' | 'hipaa' | 'dora' | 'pcidss';
export const FRAMEWORK_IDS: readonly FrameworkId[] = ['soc2', 'iso27001', 'hipaa', 'dora', 'pcidss'];

/** primary = a restore test directly evidences it; supporting = partial evidence. */
export type ControlRole = 'primary' | 'supporting';

export interface ControlDefinition {
  id: string;
  title: string;
  role: ControlRole;
  /** The newest qualifying pass of every target must be younger than this. */
  freshnessDays: number;
  /** A pass without an RTO target does not qualify (the control is about recovery objectives). */
  rtoBound: boolean;
  /**
   * The evidence names each target's RPO target and latest measured RPO (the controls about RTO/RPO
   * objectives). Evidence only: the guide's status rules count the RTO, never the RPO, so no RPO
   * finding changes a status (rpo-evidence.ts).
   */
  rpoEvidence?: true;
  /** A limitation that must travel with this control's evidence. */
  caveat?: string;
}

export interface FrameworkDefinition {
  id: FrameworkId;
  label: string;
  controls: readonly ControlDefinition[];
  notEvidenced: readonly string[];
}

const YEAR = 365;

export const FRAMEWORKS: Readonly<Record<FrameworkId, FrameworkDefinition>> = {
  soc2: {
    id: 'soc2',
    label: 'SOC 2 (TSC 2017, rev. 2022)',
    controls: [
      {
        id: 'A1.3',
        title: 'Recovery plan procedures are tested, including integrity and completeness of backup data',
        role: 'primary',
        freshnessDays: YEAR,
        rtoBound: false,
      },
      {
        id: 'A1.2',
        title: 'Backup processes and recovery infrastructure are operated and monitored',
        role: 'supporting',
        freshnessDays: YEAR,
        rtoBound: false,
      },
      {
        id: 'CC7.5',
        title: 'Activities to recover from identified security incidents',
        role: 'supporting',
        freshnessDays: YEAR,
        rtoBound: false,
      },
    ],
    notEvidenced: [
      'A1.1 capacity planning and management',
      'A1.2 environmental protections and physical recovery infrastructure',
      'CC9.1 business disruption risk assessment and mitigation (business impact analysis)',
      'the backup policy itself: scope, frequency, retention, off-site and immutable copies',
      'incident response roles, communication and lessons learned (CC7.3-CC7.5 beyond recovery)',
    ],
  },
  iso27001: {
    id: 'iso27001',
    label: 'ISO/IEC 27001:2022 Annex A',
    controls: [
      {
        id: '8.13',
        title: 'Backup copies are kept and regularly tested',
        role: 'primary',
        freshnessDays: YEAR,
        rtoBound: false,
      },
      {
        id: '5.30',
        title: 'ICT readiness for business continuity is tested against continuity objectives (RTO/RPO)',
        role: 'primary',
        freshnessDays: YEAR,
        rtoBound: true,
        rpoEvidence: true,
      },
      {
        id: '5.29',
        title: 'Security is kept during disruption (isolated, policy-restricted restore)',
        role: 'supporting',
        freshnessDays: YEAR,
        rtoBound: false,
      },
    ],
    notEvidenced: [
      '8.13 the topic-specific backup policy (scope, frequency, retention, protection of copies)',
      '5.30 the business impact analysis and the setting of RTO/RPO objectives themselves',
      '5.29 continuity plans for security controls beyond the restore sandbox',
      '7.10 and 7.14 storage media handling and secure disposal (physical security)',
      'RPO: data loss since the backup is not measured by a restore test',
    ],
  },
  hipaa: {
    id: 'hipaa',
    label: 'HIPAA Security Rule',
    controls: [
      {
        id: '164.308(a)(7)(ii)(B)',
        title: 'Disaster recovery plan: procedures to restore lost data',
        role: 'primary',
        freshnessDays: YEAR,
        rtoBound: false,
      },
      {
        id: '164.308(a)(7)(ii)(D)',
        title: 'Periodic testing and revision of contingency plans',
        role: 'primary',
        freshnessDays: YEAR,
        rtoBound: false,
      },
      {
        id: '164.308(a)(7)(ii)(A)',
        title: 'Retrievable exact copies of ePHI (a restore proves retrievability)',
        role: 'supporting',
        freshnessDays: YEAR,
        rtoBound: false,
      },
    ],
    notEvidenced: [
      '164.308(a)(7)(ii)(C) emergency mode operation plan',
      '164.308(a)(7)(ii)(E) applications and data criticality analysis',
      '164.308(a)(7)(ii)(D) revision of the contingency plan (only its testing is evidenced)',
      '164.310 physical safeguards (facility access, device and media controls)',
      '164.316(b)(2) retention of documentation for 6 years',
    ],
  },
  dora: {
    id: 'dora',
    label: 'DORA (EU 2022/2554) + RTS 2024/1774',
    controls: [
      {
        id: 'Art. 11(6)(a)',
        title: 'Continuity and recovery plans tested at least yearly and after substantive change',
        role: 'primary',
        freshnessDays: YEAR,
        rtoBound: false,
      },
      {
        id: 'Art. 12(2)',
        title: 'Backup and restoration procedures tested periodically',
        role: 'primary',
        freshnessDays: YEAR,
        rtoBound: false,
      },
      {
        id: 'Art. 12(6)',
        title: 'RTO/RPO set per function (measured RTO vs. target)',
        role: 'supporting',
        freshnessDays: YEAR,
        rtoBound: true,
        rpoEvidence: true,
      },
      {
        id: 'Art. 12(7)',
        title: 'Integrity checks and reconciliations when recovering',
        role: 'supporting',
        freshnessDays: YEAR,
        rtoBound: false,
      },
      {
        id: 'Art. 12(3)',
        title: 'Restore on systems segregated from the source',
        role: 'supporting',
        freshnessDays: YEAR,
        rtoBound: false,
        caveat: 'the sandbox is a namespace in the same cluster: logical segregation only',
      },
    ],
    notEvidenced: [
      'Art. 11(1)-(2) the ICT business continuity policy',
      'Art. 11(5) the business impact analysis',
      'Art. 11(6)(a) tests after substantive change (only the schedule of tests is evidenced)',
      'Art. 12(1) the backup policy (scope and frequency of backups)',
      'Art. 12(3) physical or infrastructure segregation of the restore environment',
      'Art. 14 crisis communication',
      'RPO: data loss since the backup is not measured by a restore test',
    ],
  },
  pcidss: {
    id: 'pcidss',
    label: 'PCI DSS v4.0.1',
    controls: [
      {
        id: '12.10.2',
        title:
          'The incident response plan, including its recovery and backup elements (12.10.1), is tested at least every 12 months',
        role: 'primary',
        freshnessDays: YEAR,
        rtoBound: false,
      },
      {
        id: '12.10.1',
        title: 'The plan includes business recovery and data backup processes',
        role: 'supporting',
        freshnessDays: YEAR,
        rtoBound: false,
      },
    ],
    notEvidenced: [
      '12.10.1 the plan content beyond recovery and backup: roles, communication, legal requirements',
      '12.10.4 training of incident response personnel',
      '9.4 physical protection of backup media',
      '10.5.1 retention of audit log history for 12 months',
    ],
  },
};

export function isFrameworkId(value: unknown): value is FrameworkId {
  return typeof value === 'string' && (FRAMEWORK_IDS as readonly string[]).includes(value);
}
