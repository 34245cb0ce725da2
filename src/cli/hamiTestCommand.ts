// `gpumem hami-test --pod NS/NAME [-c C]`: the controlled over-quota test (src/core/hamiTest, docs/hami-test.md).
// It reads the pod, plans the test (refused on a pod HAMi does not manage), asks for consent — `--yes`, or a
// y/N question when stdin and stderr are a terminal; without either it refuses and says what it would do —
// then runs the program in the container through the exec API, bounded to 30 s, Ctrl-C cancelling.
// Exit codes: 0 enforcement proven, 1 bypass proven, 3 inconclusive or cannot run, 2 usage, cluster errors,
// refusals and a declined confirmation, 130 cancelled.
import type { HamiTestPlan } from '../core/hamiTest/plan.ts';
import { confirmationText, describeRefusal, planHamiTest } from '../core/hamiTest/plan.ts';
import { hamiTestJson, hamiTestText } from '../core/hamiTest/report.ts';
import { runHamiTest } from '../core/hamiTest/run.ts';
import { hamiTestArgv } from '../core/hamiTest/script.ts';
import type { HamiTestVerdict } from '../core/hamiTest/verdict.ts';
import { ClusterClient } from '../kube/clusterClient.ts';
import { errorText } from '../kube/errorText.ts';
import { PodExecTransport } from '../kube/podExecTransport.ts';
import { classifyFailure } from '../core/failureReport.ts';
import { parseArgs, UsageError } from './args.ts';
import type { CliIo } from './io.ts';
import { chooseContext, parsePodRef } from './kubeTarget.ts';

export const HAMI_TEST_USAGE = `Usage: gpumem hami-test --pod [NAMESPACE/]NAME [-c CONTAINER] [options]
Proves or refutes HAMi's GPU memory limit in a container: one cuMemAlloc_v2 of the quota + 64 MiB through
the container's own libcuda.so.1, by a short Python ctypes program on python3's stdin (nothing is installed
or copied), freed at once if it succeeds. It RUNS CODE IN THE CONTAINER: it asks first, or takes --yes.
Refused on a pod HAMi does not manage. At most 30 s; Ctrl-C cancels. What it proves: docs/hami-test.md.

Options:
  --pod [NAMESPACE/]NAME  The pod (default namespace: the context's)
  -c, --container NAME    The container (default: kubectl exec's choice)
  --yes                   Consent without asking (needed when there is no terminal to ask on)
  --format text|json      Default: text
  --kubeconfig FILE       Default: the files in KUBECONFIG, else ~/.kube/config (read, never written)
  --context NAME          Default: the kubeconfig's current-context

Exit codes: 0 enforcement proven, 1 bypass proven, 3 inconclusive or cannot run, 2 usage or cluster errors,
a refusal or a declined confirmation, 130 cancelled.
`;

const OPTIONS = { pod: true, container: true, yes: false, format: true, kubeconfig: true, context: true, help: false } as const;
const REQUEST_TIMEOUT_MS = 30_000;

function stringOption(options: ReadonlyMap<string, string | true>, name: string): string | undefined {
  const value = options.get(name);
  return typeof value === 'string' ? value : undefined;
}

export function exitCodeOfVerdict(verdict: HamiTestVerdict): number {
  switch (verdict.kind) {
    case 'enforced':
      return 0;
    case 'bypassed':
      return 1;
    case 'inconclusive':
    case 'cannot-run':
      return 3;
  }
}

/** Consent: --yes, else the terminal's answer, else a refusal that names what would have run. */
async function consent(plan: HamiTestPlan, yes: boolean, io: CliIo): Promise<boolean> {
  if (yes) return true;
  const { title, detail } = confirmationText(plan);
  if (!io.confirm) {
    io.stderr(`gpumem hami-test: not run: no --yes and no terminal to ask on.\n${title}\n${detail}\nRun again with --yes to consent.\n`);
    return false;
  }
  const agreed = await io.confirm(`${title}\n${detail}\nRun it? [y/N] `);
  if (!agreed) io.stderr('gpumem hami-test: not run (declined).\n');
  return agreed;
}

export async function hamiTestCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, OPTIONS, { '-c': '--container', '-h': '--help', '-f': '--format', '-y': '--yes' });
  if (args.options.has('help')) {
    io.stdout(HAMI_TEST_USAGE);
    return 0;
  }
  if (args.positionals.length > 0) throw new UsageError(`unexpected argument "${args.positionals[0]}"`);
  const podRef = stringOption(args.options, 'pod');
  if (podRef === undefined) throw new UsageError('--pod [NAMESPACE/]NAME is required');
  const spec = parsePodRef(podRef, stringOption(args.options, 'container'));
  if (spec.kind !== 'pod') throw new UsageError('--pod [NAMESPACE/]NAME is required');
  const format = stringOption(args.options, 'format') ?? 'text';
  if (format !== 'text' && format !== 'json') throw new UsageError('--format must be text or json');

  const context = await chooseContext(
    { kubeconfig: stringOption(args.options, 'kubeconfig'), context: stringOption(args.options, 'context'), io },
    'hami-test',
  );
  const namespace = spec.namespace ?? context.namespace ?? 'default';
  const client = new ClusterClient(context, { requestTimeoutMs: REQUEST_TIMEOUT_MS });
  const controller = new AbortController();
  const onSignal = (): void => controller.abort();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  let transport: PodExecTransport | undefined;
  try {
    let pod: unknown;
    try {
      pod = await client.readPod(namespace, spec.name, { signal: controller.signal });
    } catch (error) {
      io.stderr(
        `gpumem hami-test: ${errorText(error, { context: context.name, namespace, action: `Read pod ${namespace}/${spec.name}` })}\n`,
      );
      return 2;
    }
    const planned = planHamiTest(pod, spec.container);
    if (planned.kind === 'refused') {
      io.stderr(`gpumem hami-test: refused: ${describeRefusal(planned.target, planned.refusal)}\n`);
      return 2;
    }
    const plan = planned.plan;
    if (!(await consent(plan, args.options.has('yes'), io))) return 2;
    transport = new PodExecTransport({
      kubeConfig: client.kubeConfig,
      namespace,
      pod: plan.pod,
      container: plan.container,
      client,
      command: hamiTestArgv(plan.attemptBytes),
    });
    const outcome = await runHamiTest(transport, plan, { signal: controller.signal });
    if (outcome.kind === 'cancelled') {
      io.stderr('gpumem hami-test: cancelled; the program in the container ends itself within its 25 s deadline.\n');
      return 130;
    }
    io.stdout(
      format === 'json' ? `${JSON.stringify(hamiTestJson(plan, outcome.verdict), null, 2)}\n` : hamiTestText(plan, outcome.verdict),
    );
    return exitCodeOfVerdict(outcome.verdict);
  } catch (error) {
    // The exec refused, the pod gone, the API unreachable: one line; a bug still reaches the dispatch's report.
    if (classifyFailure(error).kind === 'internal') throw error;
    io.stderr(
      `gpumem hami-test: ${errorText(error, { context: context.name, namespace, action: `Test HAMi in pod ${namespace}/${spec.name}` })}\n`,
    );
    return 2;
  } finally {
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    await transport?.close();
    await client.dispose(0);
  }
}
