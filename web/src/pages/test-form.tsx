// Create or edit a RestoreTest: every CreateTestInput field. The server validates (one 400 lists
// every offending field); its messages appear next to their fields. Editing replaces the test (PUT)
// with every field as TestResponse carries it, so saving one change leaves the others as they were
// (settings CreateTestInput cannot express, e.g. inline checks, the server keeps). The restore
// transforms (spec.restore), the restored subset (labelSelector, includedResources) and the log
// collection (spec.logCollection) are not edited here: they are sent back as read, so a save keeps them.
import { useState } from 'preact/hooks';
import { api, ApiError, describeError, unwrap, type components } from '../api.js';
import { Async, PageHeader } from '../components/ui.js';
import type { TestResponse } from '../format.js';
import { href, navigate, useLoad } from '../hooks.js';

type Input = components['schemas']['CreateTestInput'];
type Values = Record<keyof Input, string>;

const EMPTY: Values = {
  name: '',
  namespace: '',
  provider: 'velero',
  backupName: '',
  backupSelect: '',
  sourceNamespaces: '',
  cron: '',
  onBackup: '',
  everyNthBackup: '',
  timezone: '',
  namespacePrefix: '',
  ttl: '',
  networkIsolation: '',
  healthCheckPolicy: '',
  maxRTO: '',
  maxRPO: '',
  alertOnExceed: '',
  historyLimit: '',
  labelSelector: '',
  includedResources: '',
  restore: '',
  logCollection: '',
};

function fromTest(test: TestResponse): Values {
  return {
    ...EMPTY,
    name: test.name,
    namespace: test.namespace,
    provider: test.provider,
    sourceNamespaces: test.sourceNamespaces.join(', '),
    cron: test.schedule,
    // Issue 32: sent back as read, so saving the form keeps a test's runs after new backups.
    onBackup: test.onBackup ? 'true' : '',
    everyNthBackup: test.onBackup && test.everyNthBackup !== undefined ? String(test.everyNthBackup) : '',
    maxRTO: test.rtoTarget,
    maxRPO: test.rpoTarget ?? '',
    backupName: test.backupName ?? '',
    // Issue 32: the form edits the randomWithin window; an empty one means latest.
    backupSelect: test.backupSelect?.strategy === 'randomWithin' ? (test.backupSelect.within ?? '') : '',
    timezone: test.timezone ?? '',
    namespacePrefix: test.namespacePrefix ?? '',
    ttl: test.ttl ?? '',
    networkIsolation: test.networkIsolation ?? '',
    healthCheckPolicy: test.healthCheckPolicy ?? '',
    alertOnExceed: test.alertOnExceed ? 'true' : '',
    historyLimit: test.historyLimit === undefined ? '' : String(test.historyLimit),
    labelSelector: test.labelSelector ? JSON.stringify(test.labelSelector) : '',
    includedResources: test.includedResources ? JSON.stringify(test.includedResources) : '',
    restore: test.restore ? JSON.stringify(test.restore) : '',
    logCollection: test.logCollection ? JSON.stringify(test.logCollection) : '',
  };
}

function toInput(v: Values): Input {
  const optional = (s: string): string | undefined => (s.trim() === '' ? undefined : s.trim());
  const input: Input = {
    name: v.name.trim(),
    // The form's selects offer the schema's enum values; anything else is the server's to refuse.
    provider: v.provider as Input['provider'],
    sourceNamespaces: v.sourceNamespaces.split(/[\s,]+/).filter(Boolean),
  };
  // Without a cron the test runs on new backups only (onBackup); the server says if neither is set.
  const cron = optional(v.cron);
  if (cron !== undefined) input.cron = cron;
  if (v.onBackup === 'true') {
    input.onBackup = true;
    const nth = optional(v.everyNthBackup);
    if (nth !== undefined) input.everyNthBackup = Number(nth);
  }
  for (const key of [
    'namespace',
    'backupName',
    'timezone',
    'namespacePrefix',
    'ttl',
    'healthCheckPolicy',
    'maxRTO',
    'maxRPO',
  ] as const) {
    const value = optional(v[key]);
    if (value !== undefined) input[key] = value;
  }
  const isolation = optional(v.networkIsolation);
  if (isolation !== undefined) input.networkIsolation = isolation as Input['networkIsolation'];
  if (v.alertOnExceed === 'true') input.alertOnExceed = true;
  const limit = optional(v.historyLimit);
  if (limit !== undefined) input.historyLimit = Number(limit);
  if (v.labelSelector) input.labelSelector = JSON.parse(v.labelSelector) as Input['labelSelector'];
  if (v.includedResources) input.includedResources = JSON.parse(v.includedResources) as Input['includedResources'];
  const window = optional(v.backupSelect);
  if (window !== undefined) input.backupSelect = { strategy: 'randomWithin', within: window };
  if (v.restore) input.restore = JSON.parse(v.restore) as Input['restore'];
  if (v.logCollection) input.logCollection = JSON.parse(v.logCollection) as Input['logCollection'];
  return input;
}

interface FieldSpec {
  key: keyof Input;
  label: string;
  hint: string;
  options?: string[];
}

const FIELDS: FieldSpec[] = [
  { key: 'name', label: 'Name', hint: 'RFC 1123 label, e.g. payments-nightly' },
  {
    key: 'namespace',
    label: 'Namespace',
    hint: "Where the RestoreTest lives (default: the server's namespace)",
  },
  {
    key: 'provider',
    label: 'Backup provider',
    hint: 'Where the backups come from',
    options: ['velero', 'kasten', 'trilio'],
  },
  { key: 'backupName', label: 'Backup name', hint: 'Default: latest (newest completed backup)' },
  {
    key: 'backupSelect',
    label: 'Sample older backups within',
    hint: 'e.g. 720h: each run restores a seeded random backup of that window (backup name latest); empty: the newest',
  },
  {
    key: 'sourceNamespaces',
    label: 'Source namespaces',
    hint: 'Comma-separated; each is restored into its own sandbox',
  },
  { key: 'cron', label: 'Schedule (cron)', hint: '5 fields or a macro such as @daily; empty: only after new backups' },
  { key: 'everyNthBackup', label: 'Every Nth backup', hint: 'With "run after new backups": 1 = each (default)' },
  { key: 'timezone', label: 'Time zone', hint: 'IANA zone, default UTC' },
  { key: 'namespacePrefix', label: 'Sandbox prefix', hint: 'Default: rehearsal' },
  { key: 'ttl', label: 'Sandbox TTL', hint: 'e.g. 1h30m (default 1h)' },
  {
    key: 'networkIsolation',
    label: 'Network isolation',
    hint: 'Default: strict',
    options: ['', 'strict', 'none'],
  },
  {
    key: 'healthCheckPolicy',
    label: 'Health-check policy',
    hint: 'HealthCheckPolicy name; empty: default checks',
  },
  { key: 'maxRTO', label: 'RTO target (SLA)', hint: 'e.g. 15m; empty: no SLA' },
  {
    key: 'maxRPO',
    label: 'RPO target',
    hint: 'e.g. 24h: most data a restore may lose, measured by a freshness check; empty: none',
  },
  { key: 'historyLimit', label: 'Reports kept', hint: '1–1000, default 90' },
];

export function TestFormPage({ existing }: { existing?: TestResponse }) {
  const [values, setValues] = useState<Values>(existing ? fromTest(existing) : EMPTY);
  const [fieldErrors, setFieldErrors] = useState<Record<string, string[]>>({});
  const [formError, setFormError] = useState<{ headline: string; detail: string }>();
  const [saving, setSaving] = useState(false);
  const set = (key: keyof Input, value: string): void => setValues((v) => ({ ...v, [key]: value }));

  async function submit(event: Event): Promise<void> {
    event.preventDefault();
    setSaving(true);
    setFieldErrors({});
    setFormError(undefined);
    const body = toInput(values);
    try {
      const saved = existing
        ? unwrap(
            await api.PUT('/api/v1/tests/{name}', {
              params: { path: { name: existing.name }, query: { namespace: existing.namespace } },
              body,
            }),
          )
        : unwrap(await api.POST('/api/v1/tests', { body }));
      navigate(href('tests', saved.namespace, saved.name));
    } catch (error) {
      const byField: Record<string, string[]> = {};
      if (error instanceof ApiError) {
        for (const problem of error.problem?.errors ?? []) {
          const key = problem.field.replace(/^body\./, '').split(/[.[]/)[0] ?? '';
          (byField[key] ??= []).push(problem.message);
        }
      }
      setFieldErrors(byField);
      const known = new Set<string>(FIELDS.map((f) => f.key).concat('alertOnExceed', 'onBackup'));
      const unplaced = Object.keys(byField).filter((k) => !known.has(k));
      const { headline, detail } = describeError(error);
      setFormError({
        headline,
        detail: unplaced.length
          ? `${detail} (${unplaced.map((k) => `${k}: ${byField[k]!.join('; ')}`).join(', ')})`
          : detail,
      });
    } finally {
      setSaving(false);
    }
  }

  const errorOf = (key: string) =>
    fieldErrors[key] ? (
      <span class="field-error" id={`${key}-error`} role="alert">
        {fieldErrors[key]!.join('; ')}
      </span>
    ) : null;

  return (
    <>
      <PageHeader title={existing ? `Edit ${existing.name}` : 'New restore test'} />
      <form class="panel form" onSubmit={submit} noValidate>
        {formError ? (
          <div class="error-summary" role="alert">
            <strong>{formError.headline}.</strong> {formError.detail}
          </div>
        ) : null}
        {FIELDS.map((f) => {
          const id = `field-${f.key}`;
          const invalid = fieldErrors[f.key] !== undefined;
          const common = {
            id,
            name: f.key,
            value: values[f.key],
            'aria-invalid': invalid,
            'aria-describedby': `${f.key}-hint${invalid ? ` ${f.key}-error` : ''}`,
            disabled: existing !== undefined && (f.key === 'name' || f.key === 'namespace'),
          };
          return (
            <div class="field" key={f.key}>
              <label for={id}>{f.label}</label>
              {f.options ? (
                <select {...common} onChange={(e) => set(f.key, e.currentTarget.value)}>
                  {f.options.map((o) => (
                    <option value={o} key={o}>
                      {o === '' ? '(default)' : o}
                    </option>
                  ))}
                </select>
              ) : f.key === 'historyLimit' || f.key === 'everyNthBackup' ? (
                <input {...common} type="number" onInput={(e) => set(f.key, e.currentTarget.value)} />
              ) : (
                <input {...common} type="text" onInput={(e) => set(f.key, e.currentTarget.value)} />
              )}
              <span class="hint" id={`${f.key}-hint`}>
                {f.hint}
              </span>
              {errorOf(f.key)}
            </div>
          );
        })}
        <div class="field checkbox">
          <input
            id="field-onBackup"
            type="checkbox"
            checked={values.onBackup === 'true'}
            onChange={(e) => set('onBackup', e.currentTarget.checked ? 'true' : '')}
          />
          <label for="field-onBackup">Run after each new backup of the sources (with the cron, or instead of it)</label>
          {errorOf('onBackup')}
        </div>
        <div class="field checkbox">
          <input
            id="field-alertOnExceed"
            type="checkbox"
            checked={values.alertOnExceed === 'true'}
            onChange={(e) => set('alertOnExceed', e.currentTarget.checked ? 'true' : '')}
          />
          <label for="field-alertOnExceed">Alert when the RTO exceeds the target</label>
          {errorOf('alertOnExceed')}
        </div>
        <div class="actions">
          <button type="submit" class="primary" disabled={saving}>
            {existing ? 'Save' : 'Create'}
          </button>
          <a href={existing ? href('tests', existing.namespace, existing.name) : href('tests')}>Cancel</a>
        </div>
      </form>
    </>
  );
}

export function EditTestPage({ namespace, name }: { namespace: string; name: string }) {
  const test = useLoad(
    async () =>
      unwrap(await api.GET('/api/v1/tests/{name}', { params: { path: { name }, query: { namespace } } })),
    [namespace, name],
  );
  return <Async state={test}>{(t) => <TestFormPage existing={t} />}</Async>;
}
