// gpu-docker-in-docker: a nested container runtime (Docker-in-Docker, containerd, podman, or the host's runtime
// through its socket) in a GPU pod. Every kind of evidence is collected and named in the one finding per
// container; privilege alone is not evidence (plenty of GPU tooling runs privileged without a runtime).
import type { Span } from '../findings.ts';
import type { ContainerModel, PodModel } from '../manifest/podModel.ts';
import { startedPrograms } from '../manifest/shellCommands.ts';
import { spanOf } from '../manifest/yamlTree.ts';
import type { Rule } from './types.ts';
import { ruleMetaOf } from './ruleMetaOf.ts';

interface Evidence {
  readonly span: Span;
  /** Completes "Container "x" …", e.g. "starts dockerd". */
  readonly what: string;
}

const DAEMONS = new Set(['dockerd', 'dockerd-entrypoint.sh', 'dockerd-rootless.sh', 'containerd']);
/** Where the runtimes keep their sockets: the socket files, and the directories that hold them. */
const SOCKET_FILES = new Set(['docker.sock', 'containerd.sock', 'cri-dockerd.sock', 'crio.sock', 'podman.sock']);
const SOCKET_DIRS = new Set([
  '/run/containerd',
  '/var/run/containerd',
  '/run/crio',
  '/var/run/crio',
  '/run/podman',
  '/var/run/podman',
  '/run/docker',
  '/var/run/docker',
]);
/** A daemon's data root: an inner daemon needs it writable (an emptyDir or a host path). */
const STORAGE_DIRS = new Set(['/var/lib/docker', '/var/lib/containerd', '/var/lib/containers', '/var/lib/containers/storage']);
const DAEMON_ADDRESS_VARIABLES = ['DOCKER_HOST', 'CONTAINER_HOST', 'CONTAINERD_ADDRESS'];

export const gpuDockerInDocker: Rule = {
  meta: ruleMetaOf('gpu-docker-in-docker'),
  check(context) {
    if (context.gpuContainers.length === 0) return;
    const names = context.gpuContainers.map((c) => `"${c.name}"`);
    const gpuNames = names.length > 3 ? `${names.slice(0, 3).join(', ')} and ${names.length - 3} more` : names.join(', ');
    for (const container of context.pod.containers) {
      const evidence = nestedRuntimeEvidence(context.pod, container, context.file.text);
      const first = evidence[0];
      if (!first) continue;
      const privilege = privilegeOf(context.pod, container);
      const seen = [...evidence.map((e) => e.what), ...(privilege ? [privilege] : [])];
      context.report({
        ruleId: 'gpu-docker-in-docker',
        container,
        span: first.span,
        message: `Container "${container.name}" ${joinWords(seen)} in a GPU pod (GPU containers: ${gpuNames}): containers started through it escape HAMi's GPU memory limits, because they get neither the /etc/ld.so.preload mount nor the limit variables.`,
      });
    }
  },
};

/** What shows that the container runs, or talks to, a container runtime, in the order the finding points at. */
export function nestedRuntimeEvidence(pod: PodModel, container: ContainerModel, text: string): Evidence[] {
  const out: Evidence[] = [];
  if (container.image && isDindImage(container.image.value)) {
    out.push({ span: container.image.span, what: `runs Docker-in-Docker (image ${container.image.value})` });
  }
  const daemon = startedDaemon(container, text);
  if (daemon) out.push(daemon);
  const { tree } = pod;
  let socket: Evidence | undefined;
  let storage: Evidence | undefined;
  for (const mount of tree.items(tree.get(container.node, 'volumeMounts'))) {
    const volume = pod.volumes.get(tree.text(tree.get(mount, 'name')) ?? '');
    const mountPath = trimSlash(tree.text(tree.get(mount, 'mountPath')) ?? '');
    const hostPath = volume?.hostPath;
    if (!socket && hostPath && isRuntimeSocket(trimSlash(hostPath.value))) {
      socket = { span: hostPath.span, what: `mounts the host's container runtime socket ${hostPath.value}` };
    } else if (!socket && hostPath && isRuntimeSocket(mountPath)) {
      socket = {
        span: spanOf(tree.get(mount, 'mountPath')) ?? hostPath.span,
        what: `mounts the host's container runtime socket at ${mountPath}`,
      };
    }
    const readOnly = tree.scalar(tree.get(mount, 'readOnly'))?.value === true;
    if (!storage && !readOnly && STORAGE_DIRS.has(mountPath)) {
      storage = {
        span: spanOf(tree.get(mount, 'mountPath')) ?? container.nameSpan,
        what: `mounts writable container storage at ${mountPath}`,
      };
    }
  }
  if (socket) out.push(socket);
  if (storage) out.push(storage);
  for (const variable of container.env) {
    if (!DAEMON_ADDRESS_VARIABLES.includes(variable.name) || variable.value === undefined || !variable.valueSpan) continue;
    if (isLocalDaemonAddress(variable.value)) {
      out.push({ span: variable.valueSpan, what: `points ${variable.name} at a local daemon (${variable.value.trim()})` });
      break;
    }
  }
  return out;
}

/** An image whose name (not its registry host or digest) says dind: `docker:27-dind`, `org/nvidia-dind`, `x/ubuntu-dind:22.04`. */
export function isDindImage(image: string): boolean {
  const at = image.indexOf('@');
  const name = (at < 0 ? image : image.slice(0, at)).toLowerCase();
  const slash = name.indexOf('/');
  const host = slash < 0 ? '' : name.slice(0, slash);
  const path = slash >= 0 && (host.includes('.') || host.includes(':') || host === 'localhost') ? name.slice(slash + 1) : name;
  // The official image's tags: every docker:*dind* tag runs the daemon (docker:dind, docker:27-dind-rootless).
  const lastSlash = path.lastIndexOf('/');
  if (path.startsWith('docker:', lastSlash + 1) && path.includes('dind', lastSlash + 8)) return true;
  const words = path.split(/[^a-z0-9]+/);
  for (let i = 0; i < words.length; i++) {
    if (words[i] === 'dind') return true;
    if (words[i] === 'docker' && words[i + 1] === 'in' && words[i + 2] === 'docker') return true;
  }
  return false;
}

function startedDaemon(container: ContainerModel, text: string): Evidence | undefined {
  const argv = container.commandWords;
  for (const { program, args, word, spelled } of startedPrograms(argv.map((w) => w.value))) {
    const daemon = DAEMONS.has(program) ? program : program === 'podman' && isSystemService(args) ? 'podman system service' : undefined;
    const span = argv[word]?.span;
    if (daemon && span)
      return {
        span: spelled ? spanInScript(text, span, spelled.text) : span,
        what: `starts ${daemon.endsWith('.sh') ? `dockerd (${daemon})` : daemon}`,
      };
  }
  return undefined;
}

/** Where a script spells the program, inside the YAML scalar that holds the script; else that scalar's first line. */
function spanInScript(text: string, scalar: Span, spelled: string): Span {
  const at = spelled === '' ? -1 : text.indexOf(spelled, scalar.start);
  if (at >= 0 && at + spelled.length <= scalar.end) return { start: at, end: at + spelled.length };
  const newline = text.indexOf('\n', scalar.start);
  return { start: scalar.start, end: newline >= 0 && newline < scalar.end ? newline : scalar.end };
}

function isSystemService(args: readonly string[]): boolean {
  const at = args.indexOf('system');
  return at >= 0 && args[at + 1] === 'service';
}

function isRuntimeSocket(path: string): boolean {
  return SOCKET_FILES.has(path.slice(path.lastIndexOf('/') + 1)) || SOCKET_DIRS.has(path);
}

/** `unix:///…`, or tcp/http to this pod's own network namespace (localhost, 127.0.0.0/8, ::1, 0.0.0.0). */
export function isLocalDaemonAddress(value: string): boolean {
  const address = value.trim().toLowerCase();
  if (address.startsWith('unix://') || address.startsWith('/')) return true;
  const scheme = address.indexOf('://');
  if (scheme < 0) return false;
  const rest = address.slice(scheme + 3);
  const host = rest.startsWith('[') ? rest.slice(1, Math.max(1, rest.indexOf(']'))) : (rest.split(/[:/]/)[0] ?? '');
  return host === 'localhost' || host === '::1' || host === '0.0.0.0' || host.startsWith('127.');
}

function privilegeOf(pod: PodModel, container: ContainerModel): string | undefined {
  if (container.privileged?.value) return 'is privileged';
  const { tree } = pod;
  for (const capability of tree.items(tree.path(container.node, 'securityContext', 'capabilities', 'add'))) {
    const name = tree.text(capability)?.toUpperCase();
    if (name === 'SYS_ADMIN' || name === 'CAP_SYS_ADMIN') return 'adds SYS_ADMIN';
  }
  return undefined;
}

function trimSlash(path: string): string {
  const trimmed = path.trim();
  return trimmed.length > 1 && trimmed.endsWith('/') ? trimmed.slice(0, -1) : trimmed;
}

function joinWords(parts: readonly string[]): string {
  if (parts.length <= 1) return parts.join('');
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}
