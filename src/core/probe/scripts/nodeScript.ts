// The node-scope probe: the host's view of memory, cgroups, GPUs, kernel logs and HAMi (the NVIDIA and HAMi
// blocks are in nodeNvidiaScript.ts).
// $R is the host root: '' on the host itself, '/host' in a node debug pod.
import { HEADS_RECORD } from '../capture.ts';
import { NODE_NVIDIA_BLOCKS } from './nodeNvidiaScript.ts';
/** At most this many DRM fds get their fdinfo read by the batched sweep (a node has hundreds to thousands). */
export const FDINFO_LIMIT = 65536;
/** The files read in each kubepods cgroup directory (v2 and v1 names; a name that is not there is skipped). */
const KUBEPODS_FILES = [
  'memory.current',
  'memory.peak',
  'memory.max',
  'memory.high',
  'memory.min',
  'memory.low',
  'memory.events',
  'memory.stat',
  'cgroup.subtree_control',
  'cgroup.controllers',
  'dmem.current',
  'dmem.peak',
  'dmem.min',
  'dmem.low',
  'dmem.max',
  'memory.usage_in_bytes',
  'memory.limit_in_bytes',
  'memory.max_usage_in_bytes',
  'memory.oom_control',
  'memory.failcnt',
];

/**
 * The helpers every node probe defines before its blocks: smiquery and smiprint (nvidia-smi), zgrepok (grep -z) and
 * the batched reads (headsok, _batchheads, headsof). The light probe (lightScript.ts) starts with them too.
 */
export const NODE_HELPERS = String.raw`# smiquery ARGS...: nvidia-smi's output (stderr too) and its rc marker, cut at $MAXC; smiprint prints it.
smiquery() { { $T nvidia-smi "$@" 2>&1; printf '\n@@gpumem:%s:rc %s@@\n' "$N" "$?"; } | head -c "$MAXC"; }
smiprint() { printf '%s\n' "$1"; }
# zgrepok: whether grep reads NUL-separated records (-z), names each file (-H), matches a record whole (-x, across
# a newline inside it, where busybox's ^ would match after that newline) and takes -m: what the batched /proc reads
# rely on (busybox and GNU grep do). Of the four records two match whole: a grep that reads lines counts at most 1,
# one whose -x matches a line inside a record 3. Checked once, when first wanted (a process fewer than printing the
# matches through tr).
zgrepok() {
  if [ -z "${'$'}{_zgrep-}" ]; then
    _zgrep=no
    [ "$(printf 'A=1\nCUDA_DISABLE_CONTROL=2\000CUDA_DISABLE_CONTROL=1\000B=1\000CUDA_DISABLE_CONTROL=3\000' | grep -a -z -H -x -m 24 -c -E 'CUDA_DISABLE_CONTROL=.*' 2>/dev/null)" = '(standard input):2' ] && _zgrep=yes
  fi
  [ "$_zgrep" = yes ]
}
# Batched reads: head heads each file with "==> path <==" when given several (GNU, busybox and toybox do), so one
# head reads many files into one record that sectionFiles (capture.ts) splits again; xargs -0 -r hands it the
# paths in batches of up to 64 KiB of arguments (busybox's default is 30 KiB, and each batch costs a head process;
# 64 KiB with their pointers stays within the 128 KiB Linux guarantees whatever the stack limit), all the batches
# under one timeout of 60 s (three processes for busybox's, where one per batch cost as much as head's reading).
# _batchheads MAX reads the NUL-separated paths on its input; each batch starts with /dev/null, so head always heads
# its files (one file alone gets no header), and a last /dev/null header after the last batch follows the last file
# (a file with no header after it is dropped as cut). The paths are only head's arguments. A process that exits
# first is simply not there. headsok checks both once, in one command substitution, when a batched read is first
# wanted: the NVIDIA block and a probe without kubepods need none.
headsok() {
  if [ -z "${'$'}{_heads-}" ]; then
    _heads=no
    [ "$(head -c 1 /dev/null /dev/null 2>/dev/null; printf '|'; printf 'a b\000' | xargs -0 -r -s 65536 echo 2>/dev/null; printf '' | xargs -0 -r echo x 2>/dev/null)" = "==> /dev/null <==$NL$NL==> /dev/null <==$NL|a b" ] && _heads=yes
  fi
  [ "$_heads" = yes ]
}
_batchheads() {
  $TL xargs -0 -r -s 65536 head -c "$1" /dev/null 2>/dev/null
  printf '\n==> /dev/null <==\n'
}
# headsof DIR PATH...: the files among PATH... (under DIR) as one batched record of DIR where batched reads work, else
# as onefile records each.
headsof() {
  _hdir=$1
  shift
  if headsok; then
    mark "file $_hdir/${HEADS_RECORD}-$MAXF"
    printf '%s\000' "$@" | _batchheads "$MAXF"
  else
    for _f; do onefile "$_f"; done
  fi
}
`;

/** The KFD block: each GPU's id and name, each ROCm process's VRAM and evicted_ms, its start time and cgroup. */
export const KFD_BLOCK = String.raw`begin kfd
# Each GPU node's id and name, and each KFD process's VRAM and evicted_ms per GPU: two files per GPU per ROCm process,
# so one batched head reads them all where it can (a head each was two processes per process).
_kfd="$R/sys/class/kfd/kfd"
[ ! -d "$_kfd" ] || headsof "$_kfd" "$_kfd"/topology/nodes/*/gpu_id "$_kfd"/topology/nodes/*/name "$_kfd"/proc/*/vram_* "$_kfd"/proc/*/stats_*/evicted_ms
# evicted_ms counts from the process's start: each KFD process's /proc/<pid>/stat (its start time, in clock ticks
# since boot) and cgroup (for the pod). kfd/proc/<pid> is the lead thread's pid (kfd_process.c), at most 1000.
# One grep -z reads them all (tr makes each newline inside a record, e.g. in a comm, a tab: no line is forged).
_kfdf=''
_kfdn=0
for _d in "$R"/sys/class/kfd/kfd/proc/[0-9]*; do
  _kfdp=${'$'}{_d##*/}
  case $_kfdp in *[!0-9]*|???????????*) continue ;; esac
  _kfdn=$((_kfdn + 1))
  if [ "$_kfdn" -gt 1000 ]; then mark "missing kfd pids beyond 1000"; break; fi
  _kfdf="$_kfdf $_kfdp/stat $_kfdp/cgroup"
done
if [ -n "$_kfdf" ]; then
  if have getconf; then mark "file $R/proc/kfd-clk-tck"; getconf CLK_TCK 2>&1 | head -c 64; fi
  if zgrepok; then
    mark "file $R/proc/kfd-pids"
    ( cd "$R/proc" 2>/dev/null && $T grep -a -z -H -m 1 '' $_kfdf 2>/dev/null ) | tr '\n\000' '\t\n' | head -c $((_kfdn * 16384))
  else
    for _f in $_kfdf; do onefile "$R/proc/$_f"; done
  fi
fi
finish kfd
`;

/** The DRM fdinfo sweep: each DRM fd's fdinfo, with its process's cgroup and comm (GTT per process, then per pod). */
export const FDINFO_BLOCK = String.raw`begin fdinfo
_fdlines() {
  if [ "$(printf 'p/fd:\nc 226, 1 4\n-\n' | grep -e '/fd:$' -e '^c.* 226, ' 2>/dev/null)" = "p/fd:${'$'}{NL}c 226, 1 4" ]; then
    ls -lL "$R"/proc/[0-9]*/fd 2>/dev/null | grep -e '/fd:$' -e '^c.* 226, '
  else
    ls -lL "$R"/proc/[0-9]*/fd 2>/dev/null
  fi
}
# _fdpick: <pid>/cgroup and <pid>/comm for each new process, then <pid>/fdinfo/<fd> for each DRM fd, digits
# only, at most ${FDINFO_LIMIT} fds; exit status 3 when there were more.
_fdpick() {
  awk -v max=${FDINFO_LIMIT} '
    /\/fd:$/ { n = split(substr($0, 1, length($0) - 4), part, "/"); pid = part[n]; if (pid !~ /^[0-9]+$/ || length(pid) > 10) pid = ""; next }
    pid != "" && /^c/ && / 226, / && $NF ~ /^[0-9]+$/ && length($NF) <= 10 {
      if (++fds > max) exit 3
      if (!(pid in seen)) { seen[pid] = 1; print pid "/cgroup"; print pid "/comm" }
      print pid "/fdinfo/" $NF
    }'
}
_fdfast=no
if headsok && [ "$(printf '1\n' | awk '{ print $1 + 1 }' 2>/dev/null)" = 2 ]; then
  _fdfast=yes
fi
if ! have ls; then
  mark "missing ls"
elif [ "$_fdfast" = yes ]; then
  # The list goes from awk straight to the batched heads, whose output goes to fd 3 (the probe's output): no shell
  # variable holds it (ash reads a command substitution a small piece at a time: 50 ms for 10,000 fds). Only awk's
  # verdict on the limit comes back, on fd 4. A node with no DRM fd gets an empty record. The heads get neither fd 3
  # nor 4 beside their output: busybox timeout's watcher keeps the fds above 2 it inherits open for up to a second
  # after its command ends, and the probe's reader would wait for it.
  mark "file $R/proc/${HEADS_RECORD}-8192"
  { _fdover=$( { { _fdlines | _fdpick 4>&-; [ "$?" != 3 ] || echo X >&4; } | ( cd "$R/proc" 2>/dev/null && tr '\n' '\000' | _batchheads 8192 ) 4>&- >&3 3>&-; } 4>&1 ); } 3>&1
  [ -z "$_fdover" ] || mark "missing fds beyond ${FDINFO_LIMIT}"
else
  _fdlines | {
    _dir=''
    _seen=''
    while IFS= read -r _line; do
      case $_line in
        */fd:) _dir=${'$'}{_line%/fd:} ;;
        c*' 226, '*)
          _fd=${'$'}{_line##* }
          case $_fd in *[!0-9]*|'') continue ;; esac
          if [ "$_dir" != "$_seen" ]; then
            onefile "$_dir/cgroup"
            onefile "$_dir/comm"
            _seen=$_dir
          fi
          mark "file $_dir/fdinfo/$_fd"
          head -c 8192 "$_dir/fdinfo/$_fd" 2>&1
          ;;
      esac
    done
  }
fi
finish fdinfo
`;

/** The node probe: the helpers, then every block in the order the capture lists them. */
export const NODE_BODY = String.raw`
${NODE_HELPERS}begin meta
printf 'hostname=%s\n' "$(cat "$R/etc/hostname" 2>/dev/null || uname -n)"
printf 'kernel=%s\n' "$(cat "$R/proc/sys/kernel/osrelease" 2>/dev/null || uname -r)"
printf 'machine=%s\n' "$(uname -m)"
printf 'now=%s\n' "$(date +%s 2>/dev/null)"
printf 'uptime=%s\n' "$(cut -d' ' -f1 "$R/proc/uptime" 2>/dev/null)"
printf 'uid=%s\n' "$(id -u 2>/dev/null)"
# What the probe may read, recorded rather than guessed: kernel.dmesg_restrict, and the effective capabilities of the
# probe's own processes (sed reads its own /proc/self/status, as the probe's cat and head would: CAP_SYS_PTRACE lets
# them read other users' fdinfo, CAP_SYSLOG the kernel log).
printf 'dmesg_restrict=%s\n' "$(cat "$R/proc/sys/kernel/dmesg_restrict" 2>/dev/null)"
printf 'cap_eff=%s\n' "$(sed -n 's/^CapEff:[^0-9a-f]*//p' /proc/self/status 2>/dev/null)"
finish meta
files os-release "$R/etc/os-release" "$R/usr/lib/os-release"
files proc "$R/proc/meminfo" "$R/proc/vmstat" "$R/proc/cmdline" "$R/proc/sys/vm/overcommit_memory" "$R/proc/sys/vm/overcommit_ratio" "$R/proc/sys/vm/overcommit_kbytes"
files numa "$R"/sys/devices/system/node/node*/meminfo

# cgroups: v2 (unified), v1 or hybrid. The kubepods tree, down to containers.
CG="$R/sys/fs/cgroup"
begin cgroup.mode
if [ -f "$CG/cgroup.controllers" ]; then echo v2
elif [ -d "$CG/memory" ]; then
  if [ -f "$CG/unified/cgroup.controllers" ]; then echo hybrid; else echo v1; fi
else echo unknown; fi
finish cgroup.mode
files cgroup.root "$CG/cgroup.controllers" "$CG/cgroup.subtree_control" "$CG/dmem.capacity" "$CG/dmem.current" "$CG/memory.stat" "$CG/memory/memory.usage_in_bytes" "$CG/memory/memory.limit_in_bytes" "$CG/memory/memory.stat" "$CG/memory/memory.use_hierarchy"
begin cgroup.kubepods
_count=0
_cgfiles='${KUBEPODS_FILES.join(' ')}'
# kubepods[.slice] down three levels reaches QoS, pod and container; the QoS slices are not bases of
# their own (they would be listed twice). Each directory's candidate files go to _batchheads (a file that is
# not there is skipped by head): a head per file cost a fork per file, ~13 per cgroup on a node of 400 pod and
# container cgroups (bench/agent.mjs). Without batched reads, each file is its own record.
_cgheads() { printf '%s\000' ${KUBEPODS_FILES.map((name) => `"$1/${name}"`).join(' ')}; }
_cgonefiles() { for _f in $_cgfiles; do onefile "$1/$_f"; done; }
# _cgdirs FN: FN DIR for each directory, at most 4000.
_cgdirs() {
  for _base in "$CG"/kubepods* "$CG"/memory/kubepods*; do
    [ -d "$_base" ] || continue
    for _d in "$_base" "$_base"/* "$_base"/*/* "$_base"/*/*/*; do
      [ -d "$_d" ] || continue
      case $_d in *"$NL"*) continue ;; esac
      _count=$((_count + 1))
      [ "$_count" -le 4000 ] || return 0
      "$1" "$_d"
    done
  done
}
# _cgfind: the candidate files that exist in those directories, as one find lists them: no shell loop over the
# tree and no open of a file that is not there (most names are v1's or v2's only): the loop and its failed
# opens cost 4x the reads on a node of 400 cgroups (bench/agent.mjs). A path holding a newline is pruned, as the
# loop skips it; at most as many files as 4000 directories hold. Tried once on $CG itself; else the loop.
_cgfind() {
  find "$CG"/kubepods* "$CG"/memory/kubepods* -maxdepth 4 -path "*$NL*" -prune -o -type f \( ${KUBEPODS_FILES.map((name) => `-name ${name}`).join(' -o ')} \) -print 2>/dev/null | head -n ${4000 * KUBEPODS_FILES.length}
}
_cgfindok=no
[ "$(find "$CG" -maxdepth 0 -path "*$NL*" -prune -o -type d \( -name "${'$'}{CG##*/}" -o -name gpumem \) -print 2>/dev/null)" = "$CG" ] && _cgfindok=yes
if headsok && [ "$_cgfindok" = yes ]; then
  mark "file $CG/${HEADS_RECORD}-$MAXF"
  _cgfind | tr '\n' '\000' | _batchheads "$MAXF"
elif headsok; then
  mark "file $CG/${HEADS_RECORD}-$MAXF"
  _cgdirs _cgheads | _batchheads "$MAXF"
else
  _cgdirs _cgonefiles
fi
finish cgroup.kubepods

# Kernel log: the last MiB, from the first source that works.
begin kernel-log
_done=''
if have dmesg; then
  if _out=$($T dmesg 2>/dev/null) && [ -n "$_out" ]; then
    printf 'source=dmesg\n'
    printf '%s\n' "$_out" | tail -c 1048576
    _done=1
  else
    printf '@@gpumem:%s:missing dmesg (not permitted or not available)@@\n' "$N"
  fi
fi
if [ -z "$_done" ] && have journalctl; then
  if [ -n "$R" ]; then
    _out=$($T journalctl -k --no-pager -q -o short-monotonic -D "$R/var/log/journal" 2>&1 | tail -c 1048576)
  else
    _out=$($T journalctl -k --no-pager -q -o short-monotonic 2>&1 | tail -c 1048576)
  fi
  case $_out in
    ''|*'No journal files'*|*'Failed'*) ;;
    *) printf 'source=journalctl\n%s\n' "$_out"; _done=1 ;;
  esac
fi
if [ -z "$_done" ]; then
  for _f in "$R/var/log/kern.log" "$R/var/log/messages" "$R/var/log/syslog"; do
    if [ -r "$_f" ]; then printf 'source=%s\n' "$_f"; tail -c 1048576 "$_f"; _done=1; break; fi
  done
fi
[ -n "$_done" ] || printf '@@gpumem:%s:missing kernel-log@@\n' "$N"
finish kernel-log

# DRM devices: vendor, device id, VRAM and GTT (amdgpu sysfs, bytes).
# Twelve files a card (an 8-GPU node has 8 cards, NVIDIA's too): one batched head reads every card's where it can,
# a head each otherwise.
begin drm
# _drmcards FN: FN CARD for each card with a device (card0, not its connectors card0-DP-1).
_drmcards() {
  for _c in "$R"/sys/class/drm/card*; do
    case ${'$'}{_c##*/} in *-*) continue ;; esac
    [ -d "$_c/device" ] || continue
    "$1" "$_c"
  done
}
_drmnames='vendor device subsystem_device revision mem_info_vram_total mem_info_vram_used mem_info_vis_vram_total mem_info_vis_vram_used mem_info_gtt_total mem_info_gtt_used mem_info_vram_vendor mem_info_preempt_used'
_drmheads() { for _f in $_drmnames; do printf '%s\000' "$1/device/$_f"; done; }
_drmfiles() { for _f in $_drmnames; do onefile "$1/device/$_f"; done; }
_drmdriver() { [ -e "$1/device/driver" ] && mark "file $1/device/driver-name" && _drv=$(readlink "$1/device/driver") && printf '%s\n' "${'$'}{_drv##*/}"; }
_drmseen() { _drmcard=$1; }
_drmcard=''
_drmcards _drmseen
if [ -z "$_drmcard" ]; then :
elif headsok; then
  mark "file $R/sys/class/drm/${HEADS_RECORD}-$MAXF"
  _drmcards _drmheads | _batchheads "$MAXF"
else
  _drmcards _drmfiles
fi
_drmcards _drmdriver
finish drm
# Every parameter of the GPU drivers' modules (amdgpu has about a hundred): one batched head where it can.
begin modparams
_modany=''
for _m in amdgpu ttm amdttm nvidia; do [ -d "$R/sys/module/$_m/parameters" ] && _modany=1; done
[ -z "$_modany" ] || headsof "$R/sys/module" "$R"/sys/module/amdgpu/parameters/* "$R"/sys/module/ttm/parameters/* "$R"/sys/module/amdttm/parameters/* "$R"/sys/module/nvidia/parameters/*
finish modparams
${KFD_BLOCK}
# DRM fdinfo sweep: only fds that are DRM character devices (major 226), one ls for all processes;
# each process holding one also gets its cgroup (for the pod) and comm. grep passes on only the lines the
# loop acts on (directory headers and major-226 devices): a node has ~100,000 fds.
# With batched reads and awk, awk picks the files out of the listing for _batchheads (paths relative to
# $R/proc): no shell loop reads the listing (sh reads a pipe a byte at a time) and nothing forks per fd: a head
# per fd cost 34x a cat on a node of 10,000 DRM fds (bench/agent.mjs). Otherwise a shell loop reads each file
# on its own, as its own record.
# grep is tried rather than looked up: busybox ash's command -v also reports applets without a link.
${FDINFO_BLOCK}
# Each pod process's resident memory against its pod's memory.current. One grep
# reads every process's cgroup (-z: a cgroup file is one record, its newlines become tabs, so no name forges a
# line), only kubepods ones are kept, then one grep takes VmRSS and its anon/file/shmem parts from their status
# (the kernel escapes the Name line there). At most 4000 processes; each grep under timeout.
begin pod-rss
if zgrepok; then
  (
    cd "$R/proc" 2>/dev/null || exit 0
    _kp=$($T grep -a -z -H -m 1 '' [0-9]*/cgroup 2>/dev/null | tr '\n\000' '\t\n' | grep -F kubepods | head -n 4000)
    mark "file $R/proc/pod-cgroups"
    printf '%s\n' "$_kp"
    _st=$(printf '%s\n' "$_kp" | awk -F/ '$1 ~ /^[0-9]+$/ { printf " %s/status", $1 }' 2>/dev/null)
    if [ -n "$_st" ]; then
      mark "file $R/proc/pod-status"
      $T grep -H -E '^(VmRSS|RssAnon|RssFile|RssShmem):' $_st 2>/dev/null | head -c 1048576
    fi
  )
else
  mark "missing grep -z"
fi
finish pod-rss

# The driver's own books, from amdgpu's debugfs (Documentation/gpu/amdgpu/
# debugfs.rst). Only these named files are read, never a glob of the directory: some debugfs entries act when
# read (amdgpu_evict_vram/_gtt evict, amdgpu_gpu_recover resets the GPU, ttm/page_pool_shrink shrinks the pool).
# debugfs is never mounted here. The record for the directory itself says whether it could be read at all.
# amdgpu_gem_info (amdgpu_debugfs_gem_info_show, amdgpu_gem.c; each BO by amdgpu_bo_print_info, amdgpu_object.c)
# lists every buffer of every client: awk keeps each client's header, its totals per placement and its 8 largest
# BOs, and an end line (its absence means the output was cut). The allocator dumps (ttm_resource_manager_debug,
# ttm_resource.c) lose their per-range lines (drm_mm_print lists every allocation).
begin debugfs
_dbg="$R/sys/kernel/debug"
mark "file $_dbg"
if [ ! -e "$_dbg" ]; then echo absent
elif ! _dls=$(ls -A "$_dbg" 2>&1); then printf 'refused %s\n' "$(printf '%s\n' "$_dls" | head -n 1 | cut -c 1-200)"
elif [ -z "$_dls" ]; then echo unmounted
else echo mounted
fi
onefile "$R/sys/kernel/security/lockdown"
_gemsum() {
  awk '
    function flush(  p, i) {
      if (h == "") return
      print h
      for (p in sum) printf "\t\tgpumem-total %s %.0f %d %.0f\n", p, sum[p], cnt[p], shr[p]
      for (i = 1; i <= nt; i++) print top[i]
      h = ""; nt = 0; split("", sum); split("", cnt); split("", shr)
    }
    /^gpumem-rc [0-9]+$/ { rc = $2; next }
    /^pid +[0-9]+ command / { if (match($0, /^pid +[0-9]+ /) && RLENGTH >= 13) { flush(); h = $0; clients++; next } }
    /^\t\t?0x[0-9a-f]+: +[0-9]+ byte / {
      if (h == "" || !match($0, /0x[0-9a-f]+: +[0-9]+ byte/) || RLENGTH < 29) next
      pl = $4
      sz = $2 + 0
      sum[pl] += sz; cnt[pl]++; bos++
      if ($0 ~ / (imported from|exported as) ino:/) shr[pl] += sz
      if (nt < 8 || sz > topS[nt]) {
        i = (nt < 8) ? ++nt : nt
        while (i > 1 && topS[i - 1] < sz) { topS[i] = topS[i - 1]; top[i] = top[i - 1]; i-- }
        topS[i] = sz; top[i] = substr($0, 1, 200)
      }
      next
    }
    h == "" && errs < 3 { print "gpumem-error " substr($0, 1, 200); errs++ }
    END { flush(); printf "gpumem-end clients %d bos %d rc %s\n", clients, bos, rc }
  '
}
for _d in "$_dbg"/dri/[0-9]*; do
  [ -f "$_d/amdgpu_gem_info" ] || continue
  onefile "$_d/name"
  mark "file $_d/amdgpu_gem_info"
  if printf 'x\n' | awk '{ print }' >/dev/null 2>&1; then
    { $T cat "$_d/amdgpu_gem_info" 2>&1; printf '\ngpumem-rc %s\n' "$?"; } | _gemsum | head -c "$MAXC"
  else
    { $T head -c "$MAXC" "$_d/amdgpu_gem_info" 2>&1; printf '\ngpumem-rc %s\n' "$?"; }
  fi
  for _f in amdgpu_gtt_mm amdgpu_vram_mm; do
    [ -f "$_d/$_f" ] || continue
    mark "file $_d/$_f"
    $T cat "$_d/$_f" 2>&1 | grep -v -E '^0x[0-9a-f]+-0x[0-9a-f]+: ' | head -c 65536
  done
  onefile "$_d/ttm_page_pool"
done
onefile "$_dbg/ttm/page_pool"
finish debugfs

${NODE_NVIDIA_BLOCKS}# containerd's config where each distribution keeps it: the base, its drop-ins, k3s' and RKE2's template then
# generated file (config-v3.toml.tmpl for containerd 2), MicroK8s' template and its rendered copy.
files containerd "$R/etc/containerd/config.toml" "$R"/etc/containerd/conf.d/*.toml \
  "$R/var/lib/rancher/k3s/agent/etc/containerd/config.toml.tmpl" "$R/var/lib/rancher/k3s/agent/etc/containerd/config-v3.toml.tmpl" "$R/var/lib/rancher/k3s/agent/etc/containerd/config.toml" \
  "$R/var/lib/rancher/rke2/agent/etc/containerd/config.toml.tmpl" "$R/var/lib/rancher/rke2/agent/etc/containerd/config-v3.toml.tmpl" "$R/var/lib/rancher/rke2/agent/etc/containerd/config.toml" \
  "$R/var/snap/microk8s/current/args/containerd-template.toml" "$R/var/snap/microk8s/current/args/containerd.toml"
files kubelet "$R/var/lib/kubelet/config.yaml" "$R/etc/kubernetes/kubelet-config.yaml" "$R/etc/kubernetes/kubelet/config.yaml"
begin kubelet-cmdline
for _p in "$R"/proc/[0-9]*; do
  read -r _comm 2>/dev/null < "$_p/comm" || continue
  if [ "$_comm" = kubelet ]; then mark "file $_p/cmdline"; tr '\000' ' ' < "$_p/cmdline" 2>/dev/null | head -c 65536; break; fi
done
finish kubelet-cmdline
`;
