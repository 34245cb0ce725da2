// gpu-docker-in-docker in every form users run it: dind images by name, daemons started from exec form or
// from shell scripts, runtime storage and sockets, DOCKER_HOST at a local daemon, privileged or SYS_ADMIN
// sidecars; and the near misses that must stay quiet. The pod shapes follow the public ones: GitHub
// Actions Runner Controller's dind sidecar (actions/actions-runner-controller, runner-scale-set values
// `containerMode.type: dind`), GitLab Runner's Kubernetes executor services (DOCKER_HOST tcp://docker:2375
// vs localhost), and the docker:dind image's documented `dind dockerd` / `dockerd-entrypoint.sh` entrypoints.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { isDindImage, isLocalDaemonAddress } from '../../src/core/rules/dockerInDocker.ts';
import { scriptPrograms, startedPrograms } from '../../src/core/manifest/shellCommands.ts';
import { expectAll, expectOne, findingsOf, lint, yaml } from './helpers/lint.ts';

const gpuPod = (sidecar: string, volumes = '') => yaml`
apiVersion: v1
kind: Pod
metadata:
  name: ci
spec:
  containers:
    - name: runner
      image: ghcr.io/actions/actions-runner:2.321.0
      resources:
        limits: {nvidia.com/gpu: 1, memory: 16Gi}
${sidecar}
${volumes}`;

const dind = (text: string) => findingsOf(lint(text), 'gpu-docker-in-docker');

describe('gpu-docker-in-docker: images whose name says dind', () => {
  test('names that say dind, wherever the word sits', () => {
    for (const image of [
      'docker:dind',
      'docker:27-dind',
      'docker:dind-rootless',
      'docker.io/library/docker:27.1-dind-rootless',
      'ghcr.io/example/nvidia-dind:1.2',
      'cruizba/ubuntu-dind:noble-27',
      'example/runner-dind:latest',
      'example/builder:24.04-dind@sha256:abc',
      'example/docker-in-docker',
      'EXAMPLE/NVIDIA-DIND',
    ]) {
      assert.equal(isDindImage(image), true, image);
    }
  });

  test('near misses: dind only in the registry host or the digest, or inside another word', () => {
    for (const image of [
      'docker:27-cli',
      'dind.registry.example.com/app/server:1',
      'app/server@sha256:dind',
      'example/kind:v0.23',
      'example/dindle:1',
      'example/behind:dind2',
    ]) {
      assert.equal(isDindImage(image), false, image);
    }
  });

  test('a custom dind image next to a GPU container, on the image, privilege named', () => {
    const text = gpuPod('    - name: docker\n      image: ghcr.io/example/nvidia-dind:1.2\n      securityContext: {privileged: true}');
    expectOne(text, lint(text), {
      ruleId: 'gpu-docker-in-docker',
      severity: 'warning',
      container: 'docker',
      token: 'ghcr.io/example/nvidia-dind:1.2',
      line: 12,
      message: ['runs Docker-in-Docker (image ghcr.io/example/nvidia-dind:1.2) and is privileged in a GPU pod', 'GPU containers: "runner"'],
    });
  });
});

describe('gpu-docker-in-docker: daemons a command starts', () => {
  test("exec form: the first word, a wrapper's word, podman system service", () => {
    const names = (argv: string[]) => startedPrograms(argv).map((p) => p.program);
    assert.deepEqual(names(['dockerd', '--host=unix:///var/run/docker.sock']), ['dockerd']);
    assert.deepEqual(names(['dind', 'dockerd', '--tls=false']), ['dockerd']);
    assert.deepEqual(names(['/sbin/tini', '--', '/usr/local/bin/containerd']), ['containerd']);
    assert.deepEqual(
      startedPrograms(['podman', 'system', 'service', '--time=0', 'tcp://0.0.0.0:8080']).map((p) => [p.program, p.args.slice(0, 2)]),
      [['podman', ['system', 'service']]],
    );
    // A flag value that names a runtime is not a command.
    assert.deepEqual(names(['/usr/bin/toolkit', '--runtime', 'containerd']), ['toolkit']);
  });

  test('shell scripts: every simple command, wrappers and assignments skipped, quoted words and comments not commands', () => {
    const names = (script: string) => scriptPrograms(script).map((p) => p.program);
    assert.deepEqual(names('dockerd --host=tcp://0.0.0.0:2375 &\nsleep 5; exec ./run.sh'), ['dockerd', 'sleep', 'run.sh']);
    assert.deepEqual(names('set -e && DOCKER_TLS_CERTDIR= nohup /usr/local/bin/dockerd-entrypoint.sh > /tmp/d.log 2>&1 &'), [
      'set',
      'dockerd-entrypoint.sh',
    ]);
    assert.deepEqual(names('if true; then sudo -E containerd; fi'), ['true', 'containerd']);
    assert.deepEqual(names('echo "dockerd is started by the sidecar" # dockerd here is a comment'), ['echo']);
    assert.deepEqual(names('bash -c "dockerd & wait"'), ['bash', 'dockerd', 'wait']);
    assert.deepEqual(names('x=$(podman system service -t 0 &)'), ['podman']);
  });

  test('a daemon started from sh -c, on the script word', () => {
    const text = gpuPod(
      '    - name: engine\n      image: ubuntu:24.04\n      command: [sh, -c]\n      args:\n        - |\n          apt-get install -y docker.io\n          dockerd &\n          sleep infinity\n      securityContext:\n        capabilities: {add: [SYS_ADMIN, NET_ADMIN]}',
    );
    const finding = expectOne(text, lint(text), {
      ruleId: 'gpu-docker-in-docker',
      severity: 'warning',
      container: 'engine',
      token: 'dockerd',
      line: 17,
      message: 'starts dockerd and adds SYS_ADMIN in a GPU pod',
    });
    assert.ok(!finding.message.includes('privileged'));
  });

  test('containerd, podman system service and the dind entrypoint scripts, each named', () => {
    const text = gpuPod(
      [
        '    - name: ctr',
        '      image: ubuntu:24.04',
        '      command: ["/usr/bin/containerd", "--config", "/etc/containerd/config.toml"]',
        '    - name: podman',
        '      image: quay.io/podman/stable:v5',
        '      args: ["podman", "system", "service", "--time=0", "tcp://127.0.0.1:8888"]',
        '    - name: rootless',
        '      image: ghcr.io/example/engine:3',
        '      command: ["dockerd-rootless.sh"]',
      ].join('\n'),
    );
    expectAll(text, lint(text), 'gpu-docker-in-docker', [
      { severity: 'warning', container: 'ctr', token: '"/usr/bin/containerd"', line: 13, message: 'starts containerd in a GPU pod' },
      { severity: 'warning', container: 'podman', token: '"podman"', line: 16, message: 'starts podman system service' },
      {
        severity: 'warning',
        container: 'rootless',
        token: '"dockerd-rootless.sh"',
        line: 19,
        message: 'starts dockerd (dockerd-rootless.sh)',
      },
    ]);
  });

  test('an init sidecar (restartPolicy: Always) that starts dockerd is caught like a container', () => {
    const text = yaml`
apiVersion: batch/v1
kind: Job
metadata:
  name: gpu-build
spec:
  template:
    spec:
      initContainers:
        - name: docker
          image: ghcr.io/example/engine:3
          restartPolicy: Always
          command: [dockerd, --host=tcp://127.0.0.1:2375]
          securityContext: {privileged: true}
      containers:
        - name: build
          image: nvcr.io/nvidia/cuda:12.6.2-devel-ubuntu24.04
          resources:
            limits: {nvidia.com/gpu: 1, memory: 8Gi}
      restartPolicy: Never
`;
    expectOne(text, lint(text), {
      ruleId: 'gpu-docker-in-docker',
      severity: 'warning',
      container: 'docker',
      token: 'dockerd',
      line: 12,
      message: 'starts dockerd and is privileged in a GPU pod',
    });
  });
});

describe('gpu-docker-in-docker: storage, sockets and DOCKER_HOST', () => {
  test('the actions-runner-controller dind shape: every piece of evidence named, one finding per container', () => {
    const text = gpuPod(
      [
        '      env:',
        '        - {name: DOCKER_HOST, value: "unix:///var/run/docker.sock"}',
        '      volumeMounts:',
        '        - {name: dind-sock, mountPath: /var/run}',
        '    - name: dind',
        '      image: ghcr.io/example/engine:3',
        '      securityContext: {privileged: true}',
        '      volumeMounts:',
        '        - {name: dind-sock, mountPath: /var/run}',
        '        - {name: dind-storage, mountPath: /var/lib/docker/}',
      ].join('\n'),
      '  volumes:\n    - {name: dind-sock, emptyDir: {}}\n    - {name: dind-storage, emptyDir: {}}',
    );
    // The runner's env line sits inside its own mapping: the first sidecar line continues it.
    const found = dind(text);
    assert.deepEqual(
      found.map((f) => f.container),
      ['runner', 'dind'],
    );
    expectAll(text, lint(text), 'gpu-docker-in-docker', [
      {
        severity: 'warning',
        container: 'runner',
        token: '"unix:///var/run/docker.sock"',
        line: 12,
        message: 'points DOCKER_HOST at a local daemon (unix:///var/run/docker.sock) in a GPU pod',
      },
      {
        severity: 'warning',
        container: 'dind',
        token: '/var/lib/docker/',
        line: 20,
        message: 'mounts writable container storage at /var/lib/docker and is privileged',
      },
    ]);
  });

  test('containerd and podman storage, a podman socket, a socket directory, a socket mounted from a host directory', () => {
    const text = gpuPod(
      [
        '    - name: a',
        '      volumeMounts: [{name: ctr-lib, mountPath: /var/lib/containerd}]',
        '    - name: b',
        '      volumeMounts: [{name: podman-sock, mountPath: /run/podman/podman.sock}, {name: storage, mountPath: /var/lib/containers/storage}]',
        '    - name: c',
        '      volumeMounts: [{name: run-containerd, mountPath: /run/containerd}]',
        '    - name: d',
        '      volumeMounts: [{name: var-run, mountPath: /var/run/docker.sock, subPath: docker.sock}]',
      ].join('\n'),
      [
        '  volumes:',
        '    - {name: ctr-lib, emptyDir: {}}',
        '    - {name: podman-sock, hostPath: {path: /run/podman/podman.sock}}',
        '    - {name: storage, emptyDir: {}}',
        '    - {name: run-containerd, hostPath: {path: /run/containerd/, type: Directory}}',
        '    - {name: var-run, hostPath: {path: /var/run}}',
      ].join('\n'),
    );
    // In source order: d's finding is on its mount, b's and c's on their volumes' host paths further down.
    expectAll(text, lint(text), 'gpu-docker-in-docker', [
      {
        severity: 'warning',
        container: 'a',
        token: '/var/lib/containerd',
        line: 12,
        message: 'mounts writable container storage at /var/lib/containerd in a GPU pod',
      },
      {
        severity: 'warning',
        container: 'd',
        token: '/var/run/docker.sock',
        line: 18,
        message: "mounts the host's container runtime socket at /var/run/docker.sock",
      },
      {
        severity: 'warning',
        container: 'b',
        token: '/run/podman/podman.sock',
        line: 21,
        message:
          "mounts the host's container runtime socket /run/podman/podman.sock and mounts writable container storage at /var/lib/containers/storage",
      },
      {
        severity: 'warning',
        container: 'c',
        token: '/run/containerd/',
        line: 23,
        message: "mounts the host's container runtime socket /run/containerd/",
      },
    ]);
  });

  test('local daemon addresses; a service elsewhere is not one', () => {
    for (const address of [
      'tcp://localhost:2375',
      'tcp://127.0.0.1:2376',
      'TCP://[::1]:2375',
      'tcp://0.0.0.0:2375',
      'unix:///run/user/1000/docker.sock',
      '/run/containerd/containerd.sock',
      'http://localhost:8888',
    ]) {
      assert.equal(isLocalDaemonAddress(address), true, address);
    }
    for (const address of ['tcp://docker:2375', 'tcp://dind.ci.svc.cluster.local:2376', 'ssh://builder@build-host', 'localhost', '']) {
      assert.equal(isLocalDaemonAddress(address), false, address);
    }
    const gitlab = gpuPod(
      '    - name: job\n      image: docker:27-cli\n      env:\n        - {name: DOCKER_HOST, value: "tcp://docker:2375"}',
    );
    assert.deepEqual(dind(gitlab), []);
  });

  test('precision: privileged or SYS_ADMIN alone, a docker CLI, a log collector reading /var/lib/docker/containers', () => {
    const text = gpuPod(
      [
        '    - name: nvidia-tools',
        '      image: nvcr.io/nvidia/k8s/dcgm-exporter:3.3.8-3.6.0-ubuntu22.04',
        '      securityContext: {privileged: true, capabilities: {add: [SYS_ADMIN]}}',
        '      command: [sh, -c, "echo dockerd; docker version"]',
        '    - name: logs',
        '      image: fluent/fluent-bit:3.1',
        '      volumeMounts: [{name: containers, mountPath: /var/lib/docker/containers, readOnly: true}, {name: lib, mountPath: /var/lib/docker, readOnly: true}]',
      ].join('\n'),
      '  volumes:\n    - {name: containers, hostPath: {path: /var/lib/docker/containers}}\n    - {name: lib, hostPath: {path: /var/lib/docker}}',
    );
    assert.deepEqual(dind(text), []);
  });

  test('hostile commands: a long script, many words, an unclosed quote (how the cost grows: bench/growth.mjs)', () => {
    assert.equal(scriptPrograms('echo x; '.repeat(200_000)).length, 200_000);
    assert.ok(Array.isArray(startedPrograms(Array.from({ length: 200_000 }, () => 'dind'))));
    assert.deepEqual(
      scriptPrograms(`sh -c "${'x '.repeat(100_000)}`).map((p) => p.program),
      ['sh', 'x'],
    );
    const text = gpuPod(`    - name: big\n      command: ["sh", "-c", "${'echo x; '.repeat(20_000)}dockerd"]`);
    assert.deepEqual(
      dind(text).map((f) => f.message.includes('starts dockerd')),
      [true],
    );
  });
});
