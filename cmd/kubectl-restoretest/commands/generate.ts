// `kubectl restoretest generate` (issue 32): RestoreTests drafted by the server for backed-up
// namespaces nobody restore-tests. Prints them as YAML documents (notes and TODOs as comments), or
// writes one file per test and a kustomization.yaml listing them (--output-dir, for GitOps), or
// creates them through the API (--apply, under the same permission rule as `create`). Nothing is
// applied without --apply. The source namespaces are --source-namespace, as for `create`; -n is,
// as everywhere, the namespace the tests live in.
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { TestDraftsResponse } from '../api.js';
import { EXIT_ERROR, UsageError } from '../errors.js';
import { printStructured } from '../output/print.js';
import { RESTORETEST } from '../output/printers.js';
import { checkName } from '../validate.js';
import { defineCommand } from './command.js';

interface GenerateArgs {
  'source-namespace'?: string[];
  'output-dir'?: string;
  apply?: boolean;
}

type Draft = TestDraftsResponse['drafts'][number];

export const KUSTOMIZATION = 'kustomization.yaml';

function sourceNamespaces(args: GenerateArgs): string[] {
  const listed = (args['source-namespace'] ?? []).flatMap((entry) => String(entry).split(',')).map((entry) => entry.trim()).filter(Boolean);
  return [...new Set(listed.map((namespace) => checkName(namespace, '--source-namespace')))];
}

function reportSkipped(stderr: (text: string) => void, response: TestDraftsResponse): void {
  for (const skipped of response.skipped) stderr(`warning: namespace ${skipped.namespace} skipped (${skipped.reason}): ${skipped.message}\n`);
}

function todoWarning(draft: Draft): string {
  return draft.todo.length > 0 ? `warning: ${RESTORETEST}/${draft.test.metadata.name} needs completing: ${draft.todo.join('; ')}\n` : '';
}

/** The kustomization's resources: those it had, and the new files, sorted, each once. */
async function writeKustomization(directory: string, files: readonly string[]): Promise<void> {
  const { parse, stringify } = await import('yaml');
  const file = path.join(directory, KUSTOMIZATION);
  const existing = existsSync(file) ? ((parse(await readFile(file, 'utf8')) ?? {}) as Record<string, unknown>) : {};
  const resources = Array.isArray(existing.resources) ? existing.resources.map(String) : [];
  const kustomization = {
    apiVersion: 'kustomize.config.k8s.io/v1beta1',
    kind: 'Kustomization',
    ...existing,
    resources: [...new Set([...resources, ...files])].sort(),
  };
  await writeFile(file, stringify(kustomization, { lineWidth: 0 }));
}

export const generateCommand = defineCommand<GenerateArgs>({
  command: 'generate',
  describe: 'Draft RestoreTests for backed-up namespaces without one (YAML, files for GitOps, or --apply)',
  outputs: ['table', 'yaml', 'json', 'name'],
  examples: [
    ['$0 generate', 'a test for every backed-up namespace without one, as YAML documents'],
    ['$0 generate --source-namespace shop --source-namespace orders -n team-a', 'tests of two namespaces, to live in team-a'],
    ['$0 generate --output-dir rehearsal/ && kubectl apply -k rehearsal/', 'one file per test and a kustomization.yaml'],
    ['$0 generate --source-namespace shop --apply', 'create the drafted test now (you are recorded as its author)'],
  ],
  options: (yargs) =>
    yargs
      .option('source-namespace', { type: 'string', array: true, requiresArg: true, describe: 'namespace to draft a test for (repeat, or comma-separated; default: every backed-up one without a test)' })
      .option('output-dir', { type: 'string', requiresArg: true, describe: 'write one file per test and a kustomization.yaml listing them into this directory' })
      .option('apply', { type: 'boolean', describe: 'create the drafted tests through the API (nothing is created without it)' })
      .conflicts('apply', 'output-dir') as never,
  async run(context, args) {
    const requested = sourceNamespaces(args);
    if (args['output-dir'] !== undefined && args['output-dir'].trim() === '') throw new UsageError('--output-dir needs a directory');
    const session = await context.session();
    const response = await session.api.draftTests(requested, session.requestNamespace);
    const { stdout, stderr } = context.io;
    reportSkipped(stderr, response);
    if (response.drafts.length === 0) {
      stderr(requested.length > 0 ? 'No test drafted\n' : 'No backed-up namespace without a test found\n');
      return response.skipped.length > 0 && requested.length > 0 ? EXIT_ERROR : 0;
    }

    if (args.apply === true) {
      let failed = false;
      const created = [];
      for (const draft of response.drafts) {
        try {
          const test = await session.api.createDraftedTest(draft.namespace, session.requestNamespace);
          created.push(test);
          if (!['json', 'yaml'].includes(context.global.output)) {
            stdout(context.global.output === 'name' ? `${RESTORETEST}/${test.name}\n` : `${RESTORETEST}/${test.name} created\n`);
          }
          stderr(todoWarning(draft));
        } catch (error) {
          // One refusal (already exists, not allowed) does not stop the others.
          failed = true;
          stderr(`error: ${draft.namespace}: ${error instanceof Error ? error.message : String(error)}\n`);
        }
      }
      await printStructured(context, created);
      return failed ? EXIT_ERROR : 0;
    }

    const outputDir = args['output-dir'];
    if (outputDir !== undefined) {
      await mkdir(outputDir, { recursive: true });
      const written: string[] = [];
      for (const draft of response.drafts) {
        const file = `${draft.test.metadata.name}.yaml`;
        const target = path.join(outputDir, file);
        // A draft the user has completed (its SQL written) is never overwritten by a new draft.
        if (existsSync(target)) {
          stderr(`warning: ${target} exists, not overwritten\n`);
        } else {
          await writeFile(target, draft.yaml ?? '');
          stdout(context.global.output === 'name' ? `${RESTORETEST}/${draft.test.metadata.name}\n` : `${target} written\n`);
          stderr(todoWarning(draft));
        }
        written.push(file);
      }
      await writeKustomization(outputDir, written);
      if (context.global.output !== 'name') stdout(`${path.join(outputDir, KUSTOMIZATION)} written\n`);
      return 0;
    }

    if (context.global.output === 'json') {
      await printStructured(context, response);
      return 0;
    }
    if (context.global.output === 'name') {
      stdout(response.drafts.map((draft) => `${RESTORETEST}/${draft.test.metadata.name}\n`).join(''));
      return 0;
    }
    // table and yaml: the drafted documents, as `kubectl apply -f -` takes them.
    stdout(response.drafts.map((draft) => draft.yaml ?? '').join('---\n'));
    return 0;
  },
});
