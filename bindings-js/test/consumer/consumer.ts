// A TypeScript consumer of the packed package, checked with tsc --strict.
import {
  Operation,
  Policy,
  RetryplanError,
  retryFetch,
  run,
  type Decision,
  type Ending,
  type Outcome,
  type PolicyConfig,
} from 'retryplan';

const config: PolicyConfig = {
  maxAttempts: 3,
  totalBudgetMs: 800,
  attemptTimeout: { fixedMs: 200 },
  backoff: { kind: 'exponential', baseMs: 50, multiplier: 2, capMs: 400 },
  jitter: { kind: 'full' },
  idempotency: 'keyed',
};
const policy: Policy = Policy.fromConfig(config);

function describe(decision: Decision): string {
  switch (decision.type) {
    case 'start_attempt':
      return `attempt ${decision.attempt} for ${decision.timeoutMs} ms as ${decision.requestId}`;
    case 'wait':
      return `wait ${decision.delayMs} ms${decision.serverDelayMs === undefined ? '' : ' (server asked)'}`;
    case 'await_outcome':
      return `await until ${decision.untilMs}`;
    case 'succeeded':
      return `done after ${decision.attempts}`;
    case 'gave_up':
      return `gave up: ${decision.reason}`;
    case 'reconcile':
      return `reconcile with ${decision.remainingBudgetMs} ms left`;
    case 'restart':
      return `restart before ${decision.deadlineMs}`;
  }
}

const operation = new Operation(policy, performance.now(), { seed: 42 });
const first = operation.poll(performance.now());
const outcome: Outcome = { type: 'http_status', status: 503, retryAfterMs: 100 };
if (first.type === 'start_attempt') describe(operation.onOutcome(performance.now(), first.attempt, outcome));

try {
  Policy.fromJson('{"max_attempts": 0}');
} catch (error) {
  if (error instanceof RetryplanError && error.code === 'invalid_policy') {
    const fields: string[] = (error.violations ?? []).map((violation) => violation.field);
    describe({ type: 'succeeded', attempts: fields.length });
  }
}

export async function checkout(body: string): Promise<Ending> {
  const { decision, response } = await retryFetch('/api/checkout', { method: 'POST', body }, { policy });
  if (decision.type === 'succeeded' && response) await response.json();
  const ran = await run(policy, ({ attempt }) => ({ outcome: { type: 'success' }, value: attempt * 2 }));
  const doubled: number | undefined = ran.value;
  return doubled === undefined ? decision : ran.decision;
}
