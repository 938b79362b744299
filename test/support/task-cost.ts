/**
 * A task done two ways, measured: the contract's tools against the task tools, counting calls and
 * the tokens of the results the agent reads (o200k_base), and the row of docs/tasks.md that states
 * the figures (MEASURE=1 prints them).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { countTokens } from '../../src/core/tools/context-size.js';
import { executeTool, findTool, type AnyToolServer } from '../../src/core/tools/registry.js';
import { outcomeOf } from './harness.js';

type J = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface CostTally {
  contract: { calls: number; tokens: number };
  task: { calls: number; tokens: number };
}

/** `call` runs a tool (it must succeed), adds it to the contract's or the task tools' tally, and answers its data. */
export function costTally(server: AnyToolServer): { cost: CostTally; call: (which: 'contract' | 'task', name: string, args: Record<string, unknown>) => Promise<J> } {
  const cost: CostTally = { contract: { calls: 0, tokens: 0 }, task: { calls: 0, tokens: 0 } };
  const call = async (which: 'contract' | 'task', name: string, args: Record<string, unknown>): Promise<J> => {
    const raw = await executeTool(server, findTool(server, name)!, args, new AbortController().signal);
    const { data, isError } = outcomeOf(raw);
    assert.equal(isError, false, `${name}: ${JSON.stringify(data)}`);
    cost[which].calls++;
    cost[which].tokens += await countTokens((raw.content[0] as { text: string }).text);
    return data;
  };
  return { cost, call };
}

const TASKS_MD = fileURLToPath(new URL('../../../docs/tasks.md', import.meta.url));

/** docs/tasks.md's row `| <task> | ... |` states exactly the measured calls and tokens, the task tools' cell being `taskCell`. */
export function assertCostRow(task: string, cost: CostTally, taskCell: string): void {
  if (process.env.MEASURE === '1') console.log(`${task}: contract ${cost.contract.calls} calls ${cost.contract.tokens} tokens; task tools ${cost.task.calls} calls ${cost.task.tokens} tokens`);
  const row = readFileSync(TASKS_MD, 'utf8').split('\n').find((line) => line.startsWith(`| ${task} |`));
  assert.ok(row, `docs/tasks.md has the row "${task}"`);
  const n = (value: number) => value.toLocaleString('en-US');
  const cell = taskCell.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  assert.match(row, new RegExp(`\\| ${cost.contract.calls} \\| ${n(cost.contract.tokens)} \\| ${cell} \\| ${cost.task.calls} \\| ${n(cost.task.tokens)} \\|$`), `docs/tasks.md: ${row}`);
}
