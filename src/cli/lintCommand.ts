// `gpumem lint [paths…] [--format text|json|sarif] [--headroom N] [--config FILE] [--live --context C …]`
// Exit codes: 0 nothing at warning or above, 1 something is, 2 usage or I/O error, 3 part of the input not analysed
// (with --live: also a cluster that could not be read, so a gate never passes on a comparison that did not run).
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseYamlLikeParse } from '../core/text/boundedYaml.ts';
import { resolveConfig } from '../core/config.ts';
import type { LintConfig } from '../core/config.ts';
import type { ContainerSummary } from '../core/analysis/containerSummary.ts';
import { parseWindow } from '../core/fleet/promFacts.ts';
import { liveSarifRules } from '../core/live/liveReport.ts';
import { indexClaims, mayUseClaims } from '../core/crossFile.ts';
import { withFixesBuilt } from '../core/findings.ts';
import type { Finding } from '../core/findings.ts';
import { engineLimitReason, internalErrorFinding } from '../core/internalError.ts';
import { lintBytes } from '../core/lint.ts';
import { skippedFinding } from '../core/lintNotices.ts';
import { ClaimIndex } from '../core/manifest/draClaims.ts';
import { KUSTOMIZATION_FILE_NAMES } from '../core/manifest/kustomization.ts';
import { decodeManifestBytes } from '../core/manifest/source.ts';
import { positionFindings } from '../core/report/fileFindings.ts';
import type { PositionedFinding } from '../core/report/fileFindings.ts';
import { formatSarif, formatText, STDIN_NAME, toJsonFindings } from '../core/report/formats.ts';
import { INPUT_LIMITS, readBounded, readBoundedText } from '../files/boundedRead.ts';
import type { BoundedRead } from '../files/boundedRead.ts';
import { CliFailure, headroomOf, parseArgs, UsageError } from './args.ts';
import { expandPaths } from './files.ts';
import { kustomizationOf, patchIndexFor, placeRendered, renderOverlay } from './kustomize.ts';
import type { CliIo } from './io.ts';
import type { LintedFile } from './lintLive.ts';
import { terminalSafe } from '../core/text/escape.ts';

const FORMATS = ['text', 'json', 'sarif'] as const;
type Format = (typeof FORMATS)[number];
const DEFAULT_MAX_MIB = INPUT_LIMITS.manifest.limitBytes / (1024 * 1024);

export const LINT_USAGE = `Usage: gpumem lint [paths…] [options]

Lints Kubernetes workload YAML for GPU-memory risks. Directories are walked for *.yaml, *.yml and
*.json (as kubectl apply -f reads them); "-" reads standard input. With no paths, lints the current
directory. A List (kubectl get … -o yaml) is judged item by item. DRA claims (ResourceClaim,
ResourceClaimTemplate) are resolved across all the files given. Files a kustomization lists as patches
are partial objects: they are judged only for what they set (JSON 6902 patches are not linted as objects).

Options:
  --format text|json|sarif  Output format (default: text)
  --headroom PERCENT        Headroom limits must leave on unified-memory nodes, and the quick fixes add
                            (default: 30, or headroomPercent of --config)
  --config FILE             YAML or JSON settings: headroomPercent, unifiedMemoryNodeLabels,
                            dedicatedNodeTaintKey, hamiDetection, gpuDeviceClasses, rules
  --max-file-size MIB       The size limit: larger files are not analysed (default: ${DEFAULT_MAX_MIB})
  --docs-url URL            Base URL of the rule docs in SARIF helpUri (default: the installed docs)
  -k, --kustomize           Lint each directory given as the overlay kubectl kustomize renders from it
                            (needs kubectl; findings are placed at the directory's kustomization file)

Live comparison (read-only; the static findings are printed whatever the cluster does):
  --live                    Also judge each workload the cluster runs (same kind, namespace and name; an
                            object without a namespace is in the context's) by what its pods used over the
                            window: observed-footprint-over-limit, observed-oom-kills, manifest-drift
  --context C               The kubeconfig context (default: the current one)
  --kubeconfig FILE         The kubeconfig (default: KUBECONFIG, then ~/.kube/config)
  --prometheus URL          Where the figures come from (default: the cluster's Prometheus service, through
                            the API server); credentials from GPUMEM_PROMETHEUS_TOKEN, or
                            GPUMEM_PROMETHEUS_USER and GPUMEM_PROMETHEUS_PASSWORD
  --prometheus-ca FILE      CA bundle for an https --prometheus
  --window DURATION         The window the figures and kills cover, 5m to 90d (default: 7d)

Exit status: 0 when nothing is at warning or above, 1 when something is, 2 on usage or I/O errors or
a path with no manifest, 3 when part of the input was not analysed (a file over the size limit, a
document gpumem's parser refuses, a workload stopped at budget, with --live a cluster that could not be
read; each is listed on standard error).
`;

export async function lintCommand(argv: readonly string[], io: CliIo): Promise<number> {
  const args = parseArgs(
    argv,
    {
      format: true,
      headroom: true,
      config: true,
      'max-file-size': true,
      'docs-url': true,
      help: false,
      live: false,
      context: true,
      kubeconfig: true,
      prometheus: true,
      'prometheus-ca': true,
      window: true,
      kustomize: false,
    },
    { '-f': '--format', '-h': '--help', '-k': '--kustomize' },
  );
  if (args.options.has('help')) {
    io.stdout(LINT_USAGE);
    return 0;
  }
  const format = (args.options.get('format') ?? 'text') as string;
  if (!(FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}`);
  const config = await loadConfig(args.options.get('config'), args.options.get('headroom'), io);
  const maxMib = Number(args.options.get('max-file-size') ?? DEFAULT_MAX_MIB);
  if (!Number.isFinite(maxMib) || maxMib <= 0) throw new UsageError('--max-file-size must be a positive number of MiB');

  const live = args.options.has('live');
  const liveOnly = ['context', 'kubeconfig', 'prometheus', 'prometheus-ca', 'window'].filter((name) => args.options.has(name));
  if (!live && liveOnly.length > 0) throw new UsageError(`--${liveOnly[0] ?? ''} is an option of --live`);
  const window = parseWindow(stringOption(args.options, 'window') ?? '7d');
  if (!window) throw new UsageError('--window must be a duration from 5m to 90d, e.g. 24h, 7d, 14d');

  const maxBytes = Math.floor(maxMib * 1024 * 1024);
  const lintedFiles: LintedFile[] = [];
  const named = new Set(args.positionals);
  const paths = args.positionals.length > 0 ? args.positionals : ['.'];
  const kustomize = args.options.has('kustomize');
  if (kustomize && paths.includes('-')) throw new UsageError('--kustomize renders overlay directories; it does not read standard input');
  // The live comparison matches workloads to their files' lines; a rendered overlay has no file of its own yet.
  if (kustomize && live)
    throw new UsageError(
      '--kustomize and --live do not combine: compare the overlay with kubectl kustomize DIR > overlay.yaml, then gpumem lint --live overlay.yaml',
    );
  const { files, errors, skipped, kustomizations } = kustomize
    ? { files: [], errors: [], skipped: new Map<string, string>(), kustomizations: [] }
    : await expandPaths(paths);
  const patches = kustomize ? undefined : await patchIndexFor(files, kustomizations, named);
  const patchIndex = patches?.index;
  for (const root of patches?.incomplete ?? [])
    io.stderr(
      `gpumem lint: kustomize: the repository ${terminalSafe(root, 'single-line')} has too many directories to search whole for the kustomizations that may list the files named; a patch listed only beyond them is linted as a whole object (lint its overlay's directory to read it as a patch)\n`,
    );
  let patchFiles = 0;
  // DRA claims resolve across all the files given: files whose pods use claims are linted once every file's
  // claims are indexed; the others at once. Findings keep the order of the files.
  const claims = new ClaimIndex();
  const perFile: PositionedFinding[][] = [];
  const deferred: { slot: number; name: string; bytes: Uint8Array; text: string }[] = [];
  const unanalysed: PositionedFinding[] = [];
  const lintOne = (
    slot: number,
    name: string,
    bytes: Uint8Array,
    text: string,
    rendered?: { directory: string; kustomization: string },
  ) => {
    let fileFindings: readonly Finding[];
    let fileUnanalysed: readonly Finding[];
    let summaries: readonly ContainerSummary[] = [];
    const kustomizePatch = name === STDIN_NAME ? undefined : patchIndex?.roleOf(resolve(name));
    if (kustomizePatch) patchFiles++;
    try {
      ({
        findings: fileFindings,
        unanalysed: fileUnanalysed,
        containers: summaries,
      } = lintBytes(bytes, config, maxBytes, { claims, ...(kustomizePatch ? { kustomizePatch } : {}) }));
    } catch (error) {
      // One file's failure is one finding; the other files' findings are kept and the run goes on.
      fileFindings = fileUnanalysed = [internalErrorFinding({ kind: 'file', file: name }, error)];
    }
    if (rendered) {
      // Placed at the kustomization file, naming the rendered line: kustomize's output does not say where each object came from.
      perFile[slot] = positionFindings(rendered.kustomization, '', placeRendered(fileFindings, text, rendered.directory));
      for (const finding of positionFindings(rendered.kustomization, '', placeRendered(fileUnanalysed, text, rendered.directory)))
        unanalysed.push(finding);
      return;
    }
    perFile[slot] = positionFindings(name, text, fileFindings);
    if (live) lintedFiles.push({ slot, name, text, summaries });
    for (const finding of positionFindings(name, text, fileUnanalysed)) unanalysed.push(finding);
  };
  let linted = 0;
  for (const file of files) {
    const name = file === '-' ? STDIN_NAME : file;
    const notFollowed = skipped.get(file);
    const read: BoundedRead =
      notFollowed !== undefined
        ? { kind: 'refused', cause: 'not-regular', reason: notFollowed }
        : file === '-'
          ? await io.readStdin({ kind: 'manifest', limitBytes: maxBytes })
          : await readBounded(file, { kind: 'manifest', limitBytes: maxBytes });
    if (read.kind !== 'read') {
      // A path the user named that cannot be read is an error; what a walk found, or a file over the limit, is a
      // notice on that file and the run goes on.
      if (read.kind === 'refused' && (named.has(file) || read.cause === 'unreadable')) errors.push(`${name}: not read: ${read.reason}`);
      else {
        const notice = positionFindings(name, '', [skippedFinding(`Skipped: ${read.reason}.`)]);
        perFile[linted++] = notice;
        for (const finding of notice) unanalysed.push(finding);
      }
      continue;
    }
    const bytes = read.bytes;
    const decoded = decodeManifestBytes(bytes, Number.MAX_SAFE_INTEGER);
    const text = decoded.kind === 'text' ? decoded.text : '';
    const slot = linted++;
    try {
      if (bytes.length <= maxBytes) indexClaims(text, claims, name);
    } catch (error) {
      perFile[slot] = positionFindings(name, text, [internalErrorFinding({ kind: 'file', file: name }, error)]);
      for (const finding of perFile[slot]) unanalysed.push(finding);
      continue;
    }
    if (mayUseClaims(text)) deferred.push({ slot, name, bytes, text });
    else lintOne(slot, name, bytes, text);
  }
  for (const { slot, name, bytes, text } of deferred) lintOne(slot, name, bytes, text);
  if (kustomize) {
    for (const path of paths) {
      const kustomization = await kustomizationOf(path);
      if (kustomization === undefined) {
        errors.push(`${path}: not a kustomization directory (no ${KUSTOMIZATION_FILE_NAMES.join(', ')} in it)`);
        continue;
      }
      const overlay = await renderOverlay(path, maxBytes, io.cwd);
      if (overlay.kind === 'no-kubectl' || overlay.kind === 'failed') {
        errors.push(`${path}: not rendered: ${overlay.reason}`);
        continue;
      }
      const slot = linted++;
      if (overlay.kind === 'too-large') {
        perFile[slot] = positionFindings(kustomization, '', [skippedFinding(`Skipped: ${overlay.reason}.`)]);
        for (const finding of perFile[slot]) unanalysed.push(finding);
        continue;
      }
      lintOne(slot, `${path} (kubectl kustomize)`, new TextEncoder().encode(overlay.text), overlay.text, {
        directory: path,
        kustomization,
      });
      io.stderr(
        `gpumem lint: kustomize: ${terminalSafe(path, 'single-line')}: the rendered overlay (kubectl kustomize) was linted; findings are placed at ${terminalSafe(kustomization, 'single-line')} and name their line in the rendered output\n`,
      );
    }
  } else if (patchFiles > 0)
    io.stderr(
      `gpumem lint: kustomize: ${patchFiles} file${patchFiles === 1 ? '' : 's'} listed as patches by a kustomization ${patchFiles === 1 ? 'was' : 'were'} judged only for what ${patchFiles === 1 ? 'it sets' : 'they set'}; --kustomize DIR lints the rendered overlay instead\n`,
    );
  const lensLines: string[] = [];
  let liveUnread = false;
  if (live) {
    // Loaded only for --live: the Kubernetes client (and what it pulls in) stays out of the static lint's start-up.
    const { lintLive } = await import('./lintLive.ts');
    const outcome = await lintLive(
      lintedFiles,
      {
        context: stringOption(args.options, 'context'),
        kubeconfig: stringOption(args.options, 'kubeconfig'),
        prometheus: stringOption(args.options, 'prometheus'),
        prometheusCa: stringOption(args.options, 'prometheus-ca'),
        window,
        headroomPercent: config.headroomPercent,
        rules: config.rules,
      },
      io,
    );
    if (outcome.kind === 'unreadable') {
      liveUnread = true;
      io.stderr(`gpumem lint: not analysed: the live comparison with ${outcome.context}: ${terminalSafe(outcome.reason, 'single-line')}\n`);
    } else {
      let matched = 0;
      let unmatched = 0;
      for (const file of lintedFiles) {
        const report = outcome.reports.get(file.slot);
        if (!report) continue;
        matched += report.matched;
        unmatched += report.unmatched;
        // SARIF lists each finding's fixes: live mode's, offered on request, are built for it (and only for it).
        const reported = format === 'sarif' ? report.findings.map((finding) => withFixesBuilt(finding, file.text)) : report.findings;
        const merged = [...(perFile[file.slot] ?? []), ...positionFindings(file.name, file.text, reported)];
        merged.sort((a, b) => a.line - b.line || a.column - b.column);
        perFile[file.slot] = merged;
        for (const lens of report.lenses)
          lensLines.push(`${terminalSafe(file.name, 'single-line')}:${lens.line}: ${terminalSafe(lens.title, 'single-line')}`);
      }
      io.stderr(
        `gpumem lint: live: ${outcome.context}: ${matched} container${matched === 1 ? '' : 's'} matched, ${unmatched} not in the cluster\n`,
      );
      for (const note of outcome.notes) io.stderr(`gpumem lint: live: ${terminalSafe(note, 'single-line')}\n`);
    }
  }
  const findings: PositionedFinding[] = [];
  // Not push(...): a file with 100k+ findings would overflow the stack as call arguments.
  for (const positioned of perFile) for (const finding of positioned ?? []) findings.push(finding);
  for (const error of errors) io.stderr(`gpumem: ${error}\n`);
  // Listed whatever the settings and suppressions did to their findings: a gate must not pass on unread input.
  for (const { file, line, finding } of unanalysed) io.stderr(`gpumem lint: not analysed: ${file}:${line}: ${finding.message}\n`);

  io.stdout(render(format as Format, findings, linted, errors, args.options.get('docs-url'), io, live));
  if (format === 'text' && lensLines.length > 0) io.stdout(`${lensLines.join('\n')}\n`);
  if (errors.length > 0) return 2;
  if (unanalysed.length > 0 || liveUnread) return 3;
  return findings.some(({ finding }) => finding.severity === 'error' || finding.severity === 'warning') ? 1 : 0;
}

function render(
  format: Format,
  findings: PositionedFinding[],
  linted: number,
  errors: string[],
  docsUrl: string | true | undefined,
  io: CliIo,
  live: boolean,
): string {
  if (format === 'json') return `${JSON.stringify(toJsonFindings(findings), null, 2)}\n`;
  if (format === 'sarif') {
    const docsBase = typeof docsUrl === 'string' ? docsUrl.replace(/\/$/, '') : pathToFileURL(io.docsDirectory).href;
    const sarif = formatSarif(findings, {
      toolVersion: io.version,
      docsBase,
      srcRoot: pathToFileURL(io.cwd).href,
      notifications: errors,
      ...(live ? { extraRules: liveSarifRules(docsBase) } : {}),
    });
    return `${JSON.stringify(sarif, null, 2)}\n`;
  }
  return formatText(findings, linted);
}

function stringOption(options: ReadonlyMap<string, string | true>, name: string): string | undefined {
  const value = options.get(name);
  return typeof value === 'string' ? value : undefined;
}

async function loadConfig(file: string | true | undefined, headroom: string | true | undefined, io: CliIo): Promise<LintConfig> {
  let raw: unknown = {};
  if (typeof file === 'string') {
    const read = await readBoundedText(file, { kind: 'config' });
    if (read.kind !== 'read') throw new CliFailure(`cannot read --config ${file}: ${read.reason}`);
    const text = read.text;
    try {
      raw = parseYamlLikeParse(text) ?? {};
    } catch (error) {
      const reason = engineLimitReason(error) ?? (error as Error).message.split('\n')[0];
      throw new UsageError(`--config ${file} is not valid YAML or JSON: ${reason}`);
    }
  }
  const headroomPercent = headroomOf(headroom);
  if (headroomPercent !== undefined) raw = { ...(raw as object), headroomPercent };
  const { config, problems } = resolveConfig(raw);
  for (const problem of problems) io.stderr(`gpumem: ignoring config ${problem.path || '(root)'}: ${problem.message}\n`);
  return config;
}
