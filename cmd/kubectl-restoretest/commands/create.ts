import { printStructured } from '../output/print.js';
import { RESTORETEST } from '../output/printers.js';
import { defineCommand } from './command.js';
import { buildTestInput, testInputOptions, type TestInputArgs } from './test-input.js';

export const createCommand = defineCommand({
  command: 'create [name]',
  describe: 'Create a RestoreTest from flags or a file (-f)',
  outputs: ['table', 'json', 'yaml', 'name'],
  examples: [
    [
      '$0 create payments --provider velero --source-namespace payments --cron "0 2 * * *" --max-rto 15m',
      'rehearse the newest backup of "payments" every night at 02:00 UTC with a 15 minute RTO target',
    ],
    [
      '$0 create shop -n team-a --provider velero --source-namespace shop --source-namespace shop-db --cron @daily --timezone Europe/Berlin --health-check-policy shop-checks --alert-on-exceed --max-rto 10m',
      'two source namespaces, a HealthCheckPolicy and an alerting SLA',
    ],
    ['$0 create -f payments-test.yaml', 'from a file with CreateTestInput fields (name, provider, sourceNamespaces, cron, ...)'],
  ],
  options: (yargs) => testInputOptions(yargs),
  async run(context, args) {
    const input = await buildTestInput(context, args as TestInputArgs, 'create');
    const session = await context.session();
    input.namespace ??= session.requestNamespace;
    const created = await session.api.createTest(input);
    if (!(await printStructured(context, created))) {
      context.io.stdout(context.global.output === 'name' ? `${RESTORETEST}/${created.name}\n` : `${RESTORETEST}/${created.name} created\n`);
    }
    return 0;
  },
});
