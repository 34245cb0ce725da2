// The HAMi NVIDIA node of fixtureRoot.ts with an nvidia-smi: a stub shell script (a TEST DOUBLE, it says
// so in its own text) that prints recorded output for the node probe's two queries and its table, plus
// /proc/<pid>/environ for the pods' processes and one host process in no pod.
//
// What the stub prints:
// - `--query-gpu=…`: one H100 row in the node probe's field order (the H100 80GB HBM3's 81559 MiB total and
//   driver 565.57.01 as in test/fixtures/nvidia-smi/table-h100x8-thamada-no-processes.txt; the UUID is the
//   fixture's own).
// - `--query-compute-apps=…`: `gpu_uuid, pid, process_name, used_memory` rows, the format of
//   test/fixtures/nvidia-smi/llama-swap-782-gb10-apps.csv, for the enforced pod (6144 MiB of its 8 GiB),
//   the bypassed pod (12800 MiB of its 8 GiB) and a host service; `containerised` prints none (an
//   nvidia-smi without the host PID namespace), `query-fails` fails both queries as an old driver does.
// - no flags: the recorded H100 table (8 GPUs, no processes).
//
// Each environ holds, besides HAMi's variables, a secret the probe must never print, and the bypassed
// pod's a value with a newline that tries to forge a second limit line.
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Fixture, HamiFacts, RootOptions } from './fixtureRoot.ts';
import { buildHamiNode } from './fixtureRoot.ts';

export type NvidiaSmiMode = 'host' | 'containerised' | 'query-fails';

export interface HamiNvidiaFacts extends HamiFacts {
  readonly enforcedUsedMiB: number;
  readonly bypassedUsedMiB: number;
  readonly hostPid: number;
  readonly secrets: readonly string[];
}

const TABLE = new URL('../fixtures/nvidia-smi/table-h100x8-thamada-no-processes.txt', import.meta.url);

export function buildHamiNvidiaNode(mode: NvidiaSmiMode, options: RootOptions = {}): Fixture<HamiNvidiaFacts> {
  const fixture = buildHamiNode(options);
  try {
    const facts = writeNvidia(fixture, mode);
    return { ...fixture, facts };
  } catch (err) {
    fixture.cleanup();
    throw err;
  }
}

function writeNvidia(fixture: Fixture<HamiFacts>, mode: NvidiaSmiMode): HamiNvidiaFacts {
  const { facts } = fixture;
  const node = (path: string) => join(fixture.root, fixture.hostRoot, path);
  const write = (path: string, content: string, mode = 0o644) => {
    mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
    writeFileSync(path, content);
    chmodSync(path, mode);
  };
  const enforcedUsedMiB = 6144;
  const bypassedUsedMiB = 12800;
  const hostPid = 7001;
  const secrets = ['AKIAFIXTURE-do-not-leak', 'hunter2-do-not-leak'];
  const uuid = facts.gpuUuid;
  const gpuRow = `0, ${uuid}, NVIDIA H100 80GB HBM3, 00000000:1B:00.0, 565.57.01, 81559, 454, 19400, 61705, 37, Default, Disabled`;
  const apps =
    mode === 'host'
      ? [
          `${uuid}, ${facts.enforced.hostPid}, python3, ${enforcedUsedMiB}`,
          `${uuid}, ${facts.bypassed.hostPid}, /opt/infer/infer-static, ${bypassedUsedMiB}`,
          `${uuid}, ${hostPid}, /usr/bin/ollama, 456`,
        ].join('\n')
      : '';
  const table = readFileSync(TABLE, 'utf8');
  const stub = `#!/bin/sh
# TEST DOUBLE of nvidia-smi for gpumem's node probe tests (test/helpers/nvidiaSmiRoot.ts): it prints
# recorded output and reads nothing. Mode: ${mode}.
case "$*" in
  *--query-gpu=*)
    ${mode === 'query-fails' ? `echo 'Field "mig.mode.current" is not a valid field to query.'; exit 2` : `cat <<'EOF'\n${gpuRow}\nEOF`}
    ;;
  *--query-compute-apps=*)
    ${mode === 'query-fails' ? `echo 'Field "used_memory" is not a valid field to query.'; exit 2` : apps === '' ? 'exit 0' : `cat <<'EOF'\n${apps}\nEOF`}
    ;;
  '')
    cat <<'EOF'
${table.trimEnd()}
EOF
    ;;
  *) echo "nvidia-smi test double: unexpected arguments: $*" >&2; exit 2 ;;
esac
`;
  write(join(fixture.root, 'usr/bin/nvidia-smi'), stub, 0o755);
  const environ = (entries: readonly string[]) => `${entries.join('\0')}\0`;
  write(
    node(`/proc/${facts.enforced.hostPid}/environ`),
    environ([
      'PATH=/usr/local/nvidia/bin:/usr/bin:/bin',
      'CUDA_DEVICE_MEMORY_LIMIT_0=8192m',
      `CUDA_DEVICE_MEMORY_SHARED_CACHE=/usr/local/vgpu/${facts.enforced.podUid}.cache`,
      `AWS_SECRET_ACCESS_KEY=${secrets[0]}`,
    ]),
    0o400,
  );
  write(
    node(`/proc/${facts.bypassed.hostPid}/environ`),
    environ([
      'CUDA_DEVICE_MEMORY_LIMIT_0=8192m',
      'CUDA_DISABLE_CONTROL=true',
      `DB_PASSWORD=${secrets[1]}\nCUDA_DEVICE_MEMORY_LIMIT_0=99999m`,
    ]),
    0o400,
  );
  // A host service in no pod: its cgroup is a system slice.
  write(node(`/proc/${hostPid}/comm`), 'ollama\n');
  write(node(`/proc/${hostPid}/cgroup`), '0::/system.slice/ollama.service\n', 0o444);
  write(node(`/proc/${hostPid}/environ`), environ(['HOME=/usr/share/ollama']), 0o400);
  mkdirSync(node(`/proc/${hostPid}/fd`), { recursive: true, mode: 0o500 });
  return { ...facts, enforcedUsedMiB, bypassedUsedMiB, hostPid, secrets };
}
