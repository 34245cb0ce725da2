// gpumem probe benchmarks (issue 4, "Performance"): what an SSH inspection costs over a bare `ssh host true`, and
// what the DRM fdinfo sweep of the node probe costs over a plain `cat` of the same files. `bench/run.mjs` calls
// runProbeBench() after the lint benchmarks and stores its results under `probe` in bench/results/latest.json;
// `node bench/probe.mjs` runs it alone (print only). Every figure is a ratio of wall times measured in this run,
// on this machine, interleaved round by round; nothing here is a timed test, and a missed target prints FAIL
// without changing the exit code. Needs root (sshd, chroot, mknod); a section that cannot run prints SKIP.
// The two parts are bench/probeSsh.mjs and bench/probeSweep.mjs.
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import os from 'node:os';
import { benchSsh, SSH_TARGET } from './probeSsh.mjs';
import { benchSweep, CAT_ALL, FULL_PROBE_RUNS, SWEEP_TARGET } from './probeSweep.mjs';
import { MiB, ms, list } from './stats.mjs';

const errorText = (err) => (err instanceof Error ? err.message : String(err)).split('\n')[0];

// ---- run and report -------------------------------------------------------------------------------------------
async function section(fn) {
  try {
    return await fn();
  } catch (err) {
    return { skipped: errorText(err) };
  }
}

/** Runs both measurements, prints their table section, and returns what bench/run.mjs stores under `probe`. */
export async function runProbeBench() {
  const loadAtStart = os.loadavg()[0];
  const start = performance.now();
  const ssh = await section(benchSsh);
  const fdinfo = await section(benchSweep);
  const loadAtEnd = os.loadavg()[0];
  const wallSeconds = (performance.now() - start) / 1000;

  const rows = [
    [
      'Machine load',
      `1-min load average ${loadAtStart.toFixed(2)} at start, ${loadAtEnd.toFixed(2)} at end on ${os.cpus().length} CPUs; ${wallSeconds.toFixed(1)} s wall`,
    ],
  ];
  rows.push(['', '']);
  if (ssh.skipped) {
    rows.push(['SSH inspection', `skipped: ${ssh.skipped}`]);
  } else {
    const c = ssh.perInspection;
    const b = ssh.perBareSsh;
    const span = (r) => (r.min === r.max ? `${r.min}` : `${r.min}–${r.max}`);
    rows.push(
      ['SSH to 127.0.0.1 (sshd)', `${ssh.openssh}, ed25519 key, ${ssh.rounds} rounds after ${ssh.warmup} warm-up rounds, interleaved`],
      ['  a. bare ssh … true', `${ms(ssh.medianBareSshMs)} median (OpenSSH client)`],
      [
        '  b. SshTransport inspection',
        `${ms(ssh.medianInspectionMs)} median (config, connect, runProbe node scope, close; ${(ssh.captureBytes / 1024).toFixed(0)} KiB captured)`,
      ],
      ['  c. same script, local sh -s', `${ms(ssh.medianScriptLocalMs)} median (LocalTransport)`],
      ['SSH ratio (b − c) / a', `${ssh.ratio.toFixed(3)}×, median of the per-round ratios (target ≤ ${SSH_TARGET}×)`],
      ['  per round', list(ssh.roundRatios, 2)],
      ['  ratio of the medians', `${ssh.ratioOfMedians.toFixed(3)}×`],
      [
        'Per inspection',
        `sshd: ${span(c.connections)} connection, ${span(c.logins)} login, ${span(c.execs)} exec; ssh2: ${span(c.clientConnects)} connect(), ${span(c.clientExecs)} exec()`,
      ],
      ['Per bare ssh', `sshd: ${span(b.connections)} connection, ${span(b.logins)} login, ${span(b.execs)} exec`],
    );
  }
  rows.push(['', '']);
  if (fdinfo.skipped) {
    rows.push(['fdinfo sweep', `skipped: ${fdinfo.skipped}`]);
  } else {
    const f = fdinfo.fixture;
    rows.push(
      [
        'fdinfo fixture',
        `${f.processes} processes × ${f.fdsPerProcess} fds = ${f.fds} fds, ${f.drmProcesses} processes with ${f.drmFds} DRM fds; ${(f.fdinfoBytes / MiB).toFixed(2)} MiB of fdinfo, in ${f.base} (built in ${(f.buildMs / 1000).toFixed(1)} s)`,
      ],
      ['  rounds', `${fdinfo.rounds} after ${fdinfo.warmup} warm-up rounds, interleaved, each a chroot busybox sh -s`],
      [
        '  sweep (fdinfo section)',
        `${ms(fdinfo.medianSweepMs)} median; found ${fdinfo.found.drmFds} DRM fds, ${fdinfo.found.cgroups} cgroups, ${fdinfo.found.comms} comms`,
      ],
      ['  cat of every fdinfo', `${ms(fdinfo.medianCatAllMs)} median (${CAT_ALL}: ${f.fds} files, into the same pipe as the sweep)`],
      ['  … with > /dev/null', `${ms(fdinfo.medianCatAllNullMs)} median (the same cat, its output thrown away, informational)`],
      [
        '  cat of what the sweep reads',
        `${ms(fdinfo.medianCatReadMs)} median (one cat, ${f.filesReadBySweep} files: DRM fdinfo, cgroup, comm)`,
      ],
      ['  ls -lL of every fd dir', `${ms(fdinfo.medianLsMs)} median (the sweep's first stage alone, informational)`],
      [
        '  sweep under dash',
        fdinfo.medianSweepDashMs === null ? 'skipped (no /bin/dash)' : `${ms(fdinfo.medianSweepDashMs)} median (informational)`,
      ],
      ['  whole node probe', `${ms(fdinfo.medianFullProbeMs)} median of ${FULL_PROBE_RUNS} (runProbe on the fixture, informational)`],
      ['Sweep ratio, every fdinfo', `${fdinfo.ratioAll.toFixed(3)}× of cat, median of the per-round ratios (target ≤ ${SWEEP_TARGET}×)`],
      ['  per round', list(fdinfo.roundRatiosAll, 2)],
      ['  ratio of the medians', `${fdinfo.ratioAllOfMedians.toFixed(3)}×`],
      ['Sweep ratio, cat > /dev/null', `${fdinfo.ratioAllToDevNull.toFixed(3)}× (informational)`],
      ['Sweep ratio, files it reads', `${fdinfo.ratioRead.toFixed(1)}× of cat (informational: the sweep must also find them)`],
      ['  per round', list(fdinfo.roundRatiosRead, 1)],
    );
  }
  const width = Math.max(...rows.map(([label]) => label.length));
  console.log(`\ngpumem probe bench · node ${process.version} · ${os.cpus()[0]?.model ?? 'unknown CPU'} × ${os.cpus().length}\n`);
  for (const [label, value] of rows) console.log(label === '' ? '' : `${label.padEnd(width)}  ${value}`);
  console.log('');
  if (ssh.skipped) console.log(`SKIP ssh inspection: ${ssh.skipped}`);
  else {
    console.log(
      `${ssh.ratio <= SSH_TARGET ? 'PASS' : 'FAIL'} ssh inspection: (b − c) / a = ${ssh.ratio.toFixed(3)}× of a bare ssh (target ≤ ${SSH_TARGET}×)`,
    );
    console.log(
      `${ssh.oneConnectionOneExec ? 'PASS' : 'FAIL'} ssh inspection: one connection and one exec per inspection (sshd log and ssh2 counts)`,
    );
  }
  if (fdinfo.skipped) console.log(`SKIP fdinfo sweep: ${fdinfo.skipped}`);
  else {
    console.log(
      `${fdinfo.pass ? 'PASS' : 'FAIL'} fdinfo sweep: ${fdinfo.ratioAll.toFixed(3)}× of a cat of every fdinfo file (target ≤ ${SWEEP_TARGET}×)`,
    );
    console.log(
      `INFO fdinfo sweep: ${fdinfo.ratioRead.toFixed(1)}× of a cat of only the ${fdinfo.fixture.filesReadBySweep} files it reads`,
    );
  }
  return {
    date: new Date().toISOString(),
    load: { loadAverage1mStart: loadAtStart, loadAverage1mEnd: loadAtEnd, wallSeconds },
    ssh,
    fdinfo,
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await runProbeBench();
