// node test/lint/unused-exports.mjs — lists the exports of server/, cmd/ and protocol/ that no
// other file uses, by asking TypeScript's language service for each export's references (the
// whole program of tsconfig.json, tests included):
//   UNUSED      nothing references it at all: dead code, delete it;
//   TESTS-ONLY  only tests import it: production code kept for tests (house style: it goes);
//   "(used in its file)" after either: only the `export` keyword is unneeded.
// A tool to run by hand when looking for dead code (about three minutes), not a gate: the
// "used in its file" entries are many and harmless.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const config = ts.readConfigFile(path.join(root, 'tsconfig.json'), ts.sys.readFile);
const parsed = ts.parseJsonConfigFileContent(config.config, ts.sys, root);
const service = ts.createLanguageService(
  {
    getScriptFileNames: () => parsed.fileNames,
    getScriptVersion: () => '1',
    getScriptSnapshot: (file) => (ts.sys.fileExists(file) ? ts.ScriptSnapshot.fromString(ts.sys.readFile(file)) : undefined),
    getCurrentDirectory: () => root,
    getCompilationSettings: () => parsed.options,
    getDefaultLibFileName: (options) => ts.getDefaultLibFilePath(options),
    fileExists: ts.sys.fileExists,
    readFile: ts.sys.readFile,
    readDirectory: ts.sys.readDirectory,
    directoryExists: ts.sys.directoryExists,
    getDirectories: ts.sys.getDirectories,
  },
  ts.createDocumentRegistry(),
);
const program = service.getProgram();
const checker = program.getTypeChecker();
const sources = parsed.fileNames.filter((file) => /^(server|cmd|protocol)\//.test(path.relative(root, file)) && !file.includes('/generated/'));
const lines = [];
for (const file of sources) {
  const source = program.getSourceFile(file);
  const module = source && checker.getSymbolAtLocation(source);
  if (!module) continue;
  for (const exported of checker.getExportsOfModule(module)) {
    const declaration = exported.declarations?.[0];
    if (!declaration || declaration.getSourceFile() !== source) continue; // a re-export: counted where it is declared
    const name = ts.getNameOfDeclaration(declaration) ?? declaration;
    const elsewhere = new Set();
    let inItsFile = false;
    for (const group of service.findReferences(file, name.getStart()) ?? []) {
      for (const reference of group.references) {
        if (reference.fileName !== file) elsewhere.add(path.relative(root, reference.fileName));
        else if (!reference.isDefinition) inItsFile = true;
      }
    }
    if ([...elsewhere].some((other) => !other.startsWith('test/'))) continue;
    lines.push(`${elsewhere.size === 0 ? 'UNUSED' : 'TESTS-ONLY'}\t${path.relative(root, file)}\t${exported.name}${inItsFile ? '\t(used in its file)' : ''}`);
  }
}
console.log(lines.sort().join('\n'));
