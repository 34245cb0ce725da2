// The APU node's kernel log (rsyslog's kern.log): amdgpu's boot lines, then the global OOM kill of the pod's first
// container, with ~20 MB of noise before it when asked (the probe keeps the last MiB).
import { kernLine } from './fixtureFormats.ts';

export interface ApuKernelLog {
  readonly text: string;
  readonly firstLine: string;
  readonly victimPid: number;
  readonly victimComm: string;
}

export function apuKernelLog(p: {
  readonly kernel: string;
  readonly hostname: string;
  readonly mode: 'v2' | 'v1';
  readonly oldCtr: string;
  readonly oldCtrPath: string;
  readonly hugeKernelLog: boolean;
  /** The iGPU's PCI slot, as amdgpu names it in its lines. */
  readonly pdev: string;
}): ApuKernelLog {
  const { kernel, hostname, mode, oldCtr, oldCtrPath, pdev: APU_PDEV } = p;
  const victimPid = 398211;
  const victimComm = 'llama-server';
  const log: string[] = [];
  const firstLine = kernLine(
    '2026-08-20T06:12:44.118702+00:00',
    hostname,
    `Linux version ${kernel} (buildd@lcy02-amd64-031) (x86_64-linux-gnu-gcc-15 (Ubuntu 15.2.0-4ubuntu3) 15.2.0, GNU ld (GNU Binutils for Ubuntu) 2.45) #9-Ubuntu SMP PREEMPT_DYNAMIC Wed Aug  5 10:11:12 UTC 2026 (Ubuntu ${kernel})`,
  );
  log.push(firstLine);
  if (p.hugeKernelLog) {
    // ~20 MB of ordinary noise before the report: the probe must keep only the last MiB.
    const noise = [
      'audit: type=1400 audit(1787212345.123:4521): apparmor="DENIED" operation="open" class="file" profile="cri-containerd.apparmor.d" name="/proc/sys/kernel/random/boot_id" pid=2211 comm="runc:[2:INIT]" requested_mask="r" denied_mask="r" fsuid=0 ouid=0',
      `amdgpu ${APU_PDEV}: amdgpu: [gfxhub] page fault (src_id:0 ring:24 vmid:8 pasid:32771)`,
      'IPv6: ADDRCONF(NETDEV_CHANGE): cali3f1e9a2b7c4: link becomes ready',
      'cni0: port 3(veth5d2a91c3) entered forwarding state',
    ];
    let size = 0;
    let i = 0;
    while (size < 20 * 1000 * 1000) {
      const secs = 1000 + i;
      const line = kernLine(
        `2026-08-20T${String(6 + (Math.floor(secs / 3600) % 18)).padStart(2, '0')}:${String(Math.floor(secs / 60) % 60).padStart(2, '0')}:${String(secs % 60).padStart(2, '0')}.${String(i % 1000000).padStart(6, '0')}+00:00`,
        hostname,
        noise[i % noise.length] as string,
      );
      log.push(line);
      size += line.length + 1;
      i++;
    }
  }
  const t = (us: number) => `2026-08-21T09:58:12.${String(502113 + us).padStart(6, '0')}+00:00`;
  log.push(
    kernLine('2026-08-20T06:12:48.118702+00:00', hostname, `amdgpu ${APU_PDEV}: amdgpu: 512M of VRAM memory ready`),
    kernLine(
      '2026-08-20T06:12:48.118705+00:00',
      hostname,
      `amdgpu ${APU_PDEV}: amdgpu: Capping GTT to 98304M to not exceed available system memory`,
    ),
    kernLine('2026-08-20T06:12:48.118707+00:00', hostname, `amdgpu ${APU_PDEV}: amdgpu: 98304M of GTT memory ready.`),
    // A line that looks like a probe marker: a fixed nonce that cannot be the run's.
    '@@gpumem:0123456789abcdef01234567:end kernel-log@@',
    kernLine(
      t(0),
      hostname,
      `${victimComm} invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=969`,
    ),
    kernLine(t(8), hostname, `CPU: 7 UID: 1000 PID: ${victimPid} Comm: ${victimComm} Not tainted ${kernel} #9-Ubuntu`),
    kernLine(t(11), hostname, 'Hardware name: Example Vendor Strix Halo Mini PC/Board, BIOS 1.00 01/01/2026'),
    kernLine(t(12), hostname, 'Call Trace:'),
    kernLine(t(14), hostname, ' <TASK>'),
    kernLine(t(36), hostname, ' ttm_pool_alloc_page+0x42/0x1a0 [ttm]'),
    kernLine(t(40), hostname, ' ttm_pool_alloc+0x1f6/0x560 [ttm]'),
    kernLine(t(44), hostname, ' amdgpu_ttm_tt_populate+0x5c/0xd0 [amdgpu]'),
    kernLine(t(47), hostname, ' </TASK>'),
    kernLine(t(88), hostname, 'Mem-Info:'),
    kernLine(t(91), hostname, 'active_anon:470855 inactive_anon:2311 isolated_anon:0'),
    kernLine(
      t(94),
      hostname,
      `Node 0 active_anon:1883420kB inactive_anon:9244kB active_file:10240kB inactive_file:8192kB unevictable:0kB isolated(anon):0kB isolated(file):0kB mapped:40960kB dirty:0kB writeback:0kB shmem:20480kB shmem_thp:0kB shmem_pmdmapped:0kB anon_thp:0kB writeback_tmp:0kB kernel_stack:12288kB pagetables:30720kB sec_pagetables:0kB all_unreclaimable? yes Balloon:0kB gpu_active:${94371840}kB gpu_reclaim:524288kB`,
    ),
    kernLine(t(102), hostname, 'Tasks state (memory values in pages):'),
    kernLine(
      t(103),
      hostname,
      '[  pid  ]   uid  tgid total_vm      rss rss_anon rss_file rss_shmem pgtables_bytes swapents oom_score_adj name',
    ),
    kernLine(
      t(117),
      hostname,
      `[ ${victimPid}]  1000 ${victimPid}  9437184   474623   470855     3768        0  7340032        0           969 ${victimComm}`,
    ),
    kernLine(
      t(147),
      hostname,
      `oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=${mode === 'v2' ? `cri-containerd-${oldCtr}.scope` : oldCtr},mems_allowed=0,global_oom,task_memcg=${oldCtrPath},task=${victimComm},pid=${victimPid},uid=1000`,
    ),
    kernLine(
      t(168),
      hostname,
      `Out of memory: Killed process ${victimPid} (${victimComm}) total-vm:37748736kB, anon-rss:1883420kB, file-rss:15072kB, shmem-rss:0kB, UID:1000 pgtables:7168kB oom_score_adj:969`,
    ),
    kernLine('2026-08-21T09:58:14.001337+00:00', hostname, `cni0: port 2(veth8a1c2d3e) entered disabled state`),
  );
  return { text: `${log.join('\n')}\n`, firstLine, victimPid, victimComm };
}
