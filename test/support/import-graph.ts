/**
 * Import graphs of src/ and the two rules kept over them: no cycles, and the core's rooms depend
 * in one direction only. The run-time graph is read from tsc's output (type-only imports erased,
 * dynamic `import()` kept, as at run time); the source graph from the TypeScript files, with
 * every type import too (`import type`, `import { type X }`, `import('...').X` in a type).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** Module (path relative to the compiled root, `core/tools/registry.js`) -> the modules it imports. */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

/** Every relative import of every `.js` file under `root`: static, re-exports and `import('...')` with a literal. */
export function readImportGraph(root: string, sourceRoot?: string): ImportGraph {
  const graph = new Map<string, string[]>();
  // Compiled files whose source is gone (a moved or deleted .ts leaves its old output in build/) are not the program.
  const current = (file: string) => !sourceRoot || existsSync(path.join(sourceRoot, path.relative(root, file)).replace(/\.js$/, '.ts'));
  for (const file of filesUnder(root, '.js').filter(current)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.JS);
    const targets = new Set<string>();
    const visit = (node: ts.Node): void => {
      const specifier = specifierOf(node);
      if (specifier?.startsWith('.')) targets.add(path.relative(root, path.resolve(path.dirname(file), specifier)).split(path.sep).join('/'));
      ts.forEachChild(node, visit);
    };
    visit(source);
    graph.set(path.relative(root, file).split(path.sep).join('/'), [...targets]);
  }
  return graph;
}

/** Every relative import of every `.ts` file under `root`, type-only ones included; modules named as compiled (`core/tools/registry.js`). */
export function readSourceImportGraph(root: string): ImportGraph {
  const graph = new Map<string, string[]>();
  for (const file of filesUnder(root, '.ts').filter((name) => !name.endsWith('.d.ts'))) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
    const targets = new Set<string>();
    const visit = (node: ts.Node): void => {
      const specifier = specifierOf(node) ?? typeImportOf(node);
      if (specifier?.startsWith('.')) targets.add(path.relative(root, path.resolve(path.dirname(file), specifier)).split(path.sep).join('/'));
      ts.forEachChild(node, visit);
    };
    visit(source);
    graph.set(path.relative(root, file).split(path.sep).join('/').replace(/\.ts$/, '.js'), [...targets]);
  }
  return graph;
}

/** `import('./x.js').Name` used as a type. */
function typeImportOf(node: ts.Node): string | undefined {
  if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) return node.argument.literal.text;
  return undefined;
}

function specifierOf(node: ts.Node): string | undefined {
  if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) return node.moduleSpecifier.text;
  if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
    const [first] = node.arguments;
    if (first && ts.isStringLiteralLike(first)) return first.text;
  }
  return undefined;
}

function filesUnder(dir: string, extension: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return filesUnder(full, extension);
    return entry.name.endsWith(extension) ? [full] : [];
  });
}

/** Each cycle once, as the path that closes it (`a.js -> b.js -> a.js`). */
export function findCycles(graph: ImportGraph): string[][] {
  const cycles: string[][] = [];
  const seen = new Set<string>();
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): void => {
    state.set(node, 'open');
    stack.push(node);
    for (const next of graph.get(node) ?? []) {
      const nextState = state.get(next);
      if (nextState === 'open') {
        const cycle = [...stack.slice(stack.indexOf(next)), next];
        const key = [...new Set(cycle)].sort().join(' ');
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push(cycle);
        }
      } else if (nextState === undefined && graph.has(next)) {
        visit(next);
      }
    }
    stack.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

/** A rule over import edges: which group a module is in, and which groups each group may import (its own always). */
export interface DirectionRule {
  groupOf(module: string): string;
  mayImport: Readonly<Record<string, readonly string[]>>;
}

/** Every edge that goes against the rule, as `from -> to (group -> group)`. */
export function directionViolations(graph: ImportGraph, rule: DirectionRule): string[] {
  const violations: string[] = [];
  for (const [from, targets] of graph) {
    const fromGroup = rule.groupOf(from);
    const allowed = rule.mayImport[fromGroup];
    if (!allowed) continue;
    for (const to of targets) {
      const toGroup = rule.groupOf(to);
      if (toGroup !== fromGroup && !allowed.includes(toGroup)) violations.push(`${from} -> ${to} (${fromGroup} -> ${toGroup})`);
    }
  }
  return violations.sort();
}
