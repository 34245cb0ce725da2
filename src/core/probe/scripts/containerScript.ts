// The container-scope probe: what a workload container sees, i.e. the evidence for HAMi enforcement
// (the env HAMi injected, /etc/ld.so.preload and how it is mounted, libvgpu.so, the shared-region
// cache, and per process: maps, limit env, static or dynamic executable), plus nvidia-smi's quota
// view, the container's own memory cgroup and signs of Docker-in-Docker.
//
// POSIX sh for busybox ash and dash. Strictly read-only: it reads files under /proc, /sys, /etc and
// /usr/local/vgpu and runs read-only tools. Every value printed on a `key=value` line has its
// newlines removed (comm is read with `read`, cmdline and environ go through `tr`), so hostile
// process names cannot forge lines; markers carry the nonce, so they cannot be forged at all.
//
// Side effect to know about (not the probe's doing): inside a HAMi container nvidia-smi is itself
// preloaded with libvgpu.so, which registers a slot in the shared-region cache and takes
// /tmp/vgpulock/lock. The cache is therefore read before nvidia-smi runs.
//
// Sections: meta, proc-version, env, preload, mounts, vgpu, hami.caches, loader, dind, cgroup,
// hami.log, nvidia-smi.gpu, nvidia-smi.apps, procs (last: the longest, and the only one that reads
// other processes' memory maps).
export const CONTAINER_PROCESS_LIMIT = 500;

export const CONTAINER_GPU_QUERY = 'index,uuid,name,memory.total,memory.used,memory.free';
export const CONTAINER_APPS_QUERY = 'gpu_uuid,pid,process_name,used_memory';

export const CONTAINER_BODY = String.raw`
begin meta
printf 'hostname=%s\n' "$(uname -n 2>/dev/null)"
printf 'kernel=%s\n' "$(uname -r 2>/dev/null)"
printf 'machine=%s\n' "$(uname -m 2>/dev/null)"
printf 'uid=%s\n' "$(id -u 2>/dev/null)"
printf 'self=%s\n' "$$"
# What the probe may read, as the node probe records it: kernel.dmesg_restrict, and the effective capabilities of the
# probe's own processes (sed reads its own /proc/self/status): without CAP_SYS_PTRACE another user's maps and environ
# are refused.
printf 'dmesg_restrict=%s\n' "$(cat /proc/sys/kernel/dmesg_restrict 2>/dev/null)"
printf 'cap_eff=%s\n' "$(sed -n 's/^CapEff:[^0-9a-f]*//p' /proc/self/status 2>/dev/null)"
finish meta
files proc-version /proc/version

# The probe's own environment, filtered. NUL-separated /proc/self/environ keeps values with
# newlines on one line; plain env is the fallback when /proc is not readable.
ENVRE='^(CUDA_[A-Za-z0-9_]*|LIBCUDA_LOG_LEVEL|HIP_DEVICE_MEMORY_LIMIT[A-Za-z0-9_]*|LD_AUDIT|LD_PRELOAD|NVIDIA_VISIBLE_DEVICES|GPU_CORE_UTILIZATION_POLICY|DOCKER_HOST)='
begin env
if [ -r /proc/self/environ ]; then
  printf 'source=proc\n'
  tr '\000\n' '\n ' 2>/dev/null < /proc/self/environ | grep -E "$ENVRE" | head -c 65536
else
  printf 'source=env\n'
  env 2>/dev/null | grep -E "$ENVRE" | head -c 65536
fi
finish env

# /etc/ld.so.preload: what it is (a kubelet-created directory when the hostPath was missing), then
# its content.
begin preload
if [ -e /etc/ld.so.preload ] || [ -L /etc/ld.so.preload ]; then
  mark "file ls"
  ls -lnd /etc/ld.so.preload 2>&1 | head -c 4096
  onefile /etc/ld.so.preload
else
  mark "missing /etc/ld.so.preload"
fi
finish preload

# How the HAMi paths and the root are mounted: mountinfo lines whose mount point (field 5) matters.
begin mounts
if [ -r /proc/self/mountinfo ]; then
  head -n 4096 /proc/self/mountinfo 2>/dev/null | while IFS= read -r _l; do
    _r=${'$'}{_l#* }; _r=${'$'}{_r#* }; _r=${'$'}{_r#* }; _r=${'$'}{_r#* }; _mp=${'$'}{_r%% *}
    case $_mp in
      /|/etc/ld.so.preload|/usr/local/vgpu|/usr/local/vgpu/*|/tmp/vgpulock|/tmp/vgpulock/*) printf '%s\n' "$_l" ;;
    esac
  done
else
  mark "missing /proc/self/mountinfo"
fi
finish mounts

begin vgpu
if [ -d /usr/local/vgpu ]; then
  mark "file ls"
  ls -ln /usr/local/vgpu 2>&1 | head -c 65536
  if [ -e /usr/local/vgpu/libvgpu.so ]; then
    mark "file libvgpu"
    ls -lnL /usr/local/vgpu/libvgpu.so 2>&1 | head -c 4096
  fi
else
  mark "missing /usr/local/vgpu"
fi
finish vgpu

# The shared-region cache (layout: HAMi-core multiprocess_memory_limit.h, x86-64): the file named by
# CUDA_DEVICE_MEMORY_SHARED_CACHE (here, else PID 1's), *.cache in /usr/local/vgpu, the default path.
begin hami.caches
_pid1cache=$(tr '\000' '\n' 2>/dev/null < /proc/1/environ | grep '^CUDA_DEVICE_MEMORY_SHARED_CACHE=' | head -n 1)
_seen=''
_count=0
for _f in "${'$'}{CUDA_DEVICE_MEMORY_SHARED_CACHE:-}" "${'$'}{_pid1cache#CUDA_DEVICE_MEMORY_SHARED_CACHE=}" /usr/local/vgpu/*.cache /tmp/cudevshr.cache; do
  [ -n "$_f" ] && [ -f "$_f" ] || continue
  case $_f in *"$NL"*) continue ;; esac
  case "$NL$_seen" in *"$NL$_f$NL"*) continue ;; esac
  _seen="$_seen$_f$NL"
  _count=$((_count + 1))
  [ "$_count" -le 4 ] || break
  hamicache "$_f"
done
finish hami.caches

# Which dynamic loaders the image ships (glibc honours /etc/ld.so.preload, musl does not).
begin loader
for _f in /lib/ld-musl-* /usr/lib/ld-musl-* /lib64/ld-linux-* /lib/ld-linux-* /lib/*/ld-linux-* /usr/lib/*/ld-linux-* /lib64/ld64.so.* /lib/ld64.so.*; do
  [ -e "$_f" ] || continue
  case $_f in *"$NL"*) continue ;; esac
  printf '%s\n' "$_f"
done
finish loader

# Docker-in-Docker: runtime sockets, DOCKER_HOST, daemon binaries (daemon processes are in procs).
begin dind
for _s in /var/run/docker.sock /run/docker.sock /run/containerd/containerd.sock /var/run/containerd/containerd.sock /run/podman/podman.sock /var/run/crio/crio.sock; do
  if [ -S "$_s" ]; then printf 'socket=%s\n' "$_s"
  elif [ -e "$_s" ]; then printf 'path=%s\n' "$_s"
  fi
done
if [ -n "${'$'}{DOCKER_HOST:-}" ]; then printf 'docker_host=%s\n' "$DOCKER_HOST" | tr -d '\r' | head -n 1; fi
for _b in dockerd containerd podman; do
  _w=$(command -v "$_b" 2>/dev/null) && printf 'binary=%s\n' "$_w" | head -n 1
done
finish dind

files cgroup /proc/self/cgroup /sys/fs/cgroup/cgroup.controllers /sys/fs/cgroup/memory.current /sys/fs/cgroup/memory.max /sys/fs/cgroup/memory.peak /sys/fs/cgroup/memory.events /sys/fs/cgroup/memory.stat /sys/fs/cgroup/memory/memory.usage_in_bytes /sys/fs/cgroup/memory/memory.limit_in_bytes /sys/fs/cgroup/memory/memory.max_usage_in_bytes /sys/fs/cgroup/memory/memory.oom_control /sys/fs/cgroup/memory/memory.stat

# HAMi-core's own log file (FILEDEBUG builds write /tmp/vgpulog instead of stderr).
begin hami.log
if [ -f /tmp/vgpulog ]; then
  mark "file /tmp/vgpulog"
  tail -c 262144 /tmp/vgpulog 2>/dev/null | grep -iE 'hami-core|4pdvgpu|ld\.so' | tail -n 500
fi
finish hami.log

cmd nvidia-smi.gpu nvidia-smi --query-gpu=${CONTAINER_GPU_QUERY} --format=csv,noheader,nounits
cmd nvidia-smi.apps nvidia-smi --query-compute-apps=${CONTAINER_APPS_QUERY} --format=csv,noheader,nounits

# Is an executable static (no PT_INTERP, so /etc/ld.so.preload never applies)? readelf when present,
# else the ELF header and program headers with od (ELF64 little-endian only; "unknown" otherwise).
elfkind() {
  if have readelf; then
    _ro=$($T readelf -lW "$1" 2>&1 | head -c 16384)
    case $_ro in
      *'Requesting program interpreter: '*)
        _in=${'$'}{_ro#*Requesting program interpreter: }; _in=${'$'}{_in%%]*}
        case $_in in *"$NL"*) _in='?' ;; esac
        printf 'exe=dynamic via=readelf interp=%s\n' "$_in" ;;
      *'Program Headers:'*) printf 'exe=static via=readelf\n' ;;
      *) printf 'exe=unknown via=readelf reason=%s\n' "$(printf '%s' "$_ro" | head -n 1 | tr -d '\r' | head -c 200)" ;;
    esac
    return
  fi
  if ! have od; then printf 'exe=unknown via=none reason=no-readelf-no-od\n'; return; fi
  set -- $(od -A n -t x1 -v -N 64 "$1" 2>/dev/null) "$1"
  if [ "$#" -lt 65 ]; then printf 'exe=unknown via=od reason=unreadable\n'; return; fi
  _ef=${'$'}{65}
  if [ "$1$2$3$4" != 7f454c46 ]; then printf 'exe=unknown via=od reason=not-elf\n'; return; fi
  if [ "$5" != 02 ] || [ "$6" != 01 ]; then printf 'exe=unknown via=od reason=class-%s-data-%s\n' "$5" "$6"; return; fi
  _phoff=$((0x${'$'}{40}${'$'}{39}${'$'}{38}${'$'}{37}${'$'}{36}${'$'}{35}${'$'}{34}${'$'}{33}))
  _phes=$((0x${'$'}{56}${'$'}{55}))
  _phn=$((0x${'$'}{58}${'$'}{57}))
  if [ "$_phes" -ne 56 ] || [ "$_phn" -lt 1 ] || [ "$_phn" -gt 128 ] || [ "$_phoff" -lt 64 ] || [ "$_phoff" -gt 16777216 ]; then
    printf 'exe=unknown via=od reason=phdr-%s-%s-%s\n' "$_phoff" "$_phes" "$_phn"; return
  fi
  set -- $(od -A n -t x1 -v -j "$_phoff" -N $((_phn * 56)) "$_ef" 2>/dev/null)
  if [ "$#" -lt $((_phn * 56)) ]; then printf 'exe=unknown via=od reason=truncated\n'; return; fi
  _k=0
  while [ "$_k" -lt "$_phn" ]; do
    if [ "$1$2$3$4" = 03000000 ]; then
      _io=$((0x${'$'}{16}${'$'}{15}${'$'}{14}${'$'}{13}${'$'}{12}${'$'}{11}${'$'}{10}${'$'}{9}))
      _is=$((0x${'$'}{40}${'$'}{39}${'$'}{38}${'$'}{37}${'$'}{36}${'$'}{35}${'$'}{34}${'$'}{33}))
      _in='?'
      if [ "$_is" -gt 0 ] && [ "$_is" -le 4096 ] && [ "$_io" -ge 0 ] && [ "$_io" -le 16777216 ]; then
        _in=$(head -c $((_io + _is)) "$_ef" 2>/dev/null | tail -c "$_is" | tr -d '\000\r')
        case $_in in *"$NL"*|'') _in='?' ;; esac
      fi
      printf 'exe=dynamic via=od interp=%s\n' "$_in"
      return
    fi
    shift 56
    _k=$((_k + 1))
  done
  printf 'exe=static via=od\n'
}

# Every process except this shell and its children, at most ${CONTAINER_PROCESS_LIMIT}: pid, ppid,
# comm, cmdline, what its maps hold, whether it holds /dev/nvidia* fds, its HAMi env, its exe kind.
LIMRE='^(CUDA_DEVICE_MEMORY_LIMIT(_[0-9]+)?|CUDA_DEVICE_SM_LIMIT(_[0-9]+)?|CUDA_DEVICE_MEMORY_SHARED_CACHE|CUDA_DISABLE_CONTROL|LD_PRELOAD|LD_AUDIT|LIBCUDA_LOG_LEVEL|HIP_DEVICE_MEMORY_LIMIT(_[0-9]+)?|DOCKER_HOST)=|^@environ-unreadable$'
begin procs
_self=$$
_n=0
_trunc=0
_exes=''
for _p in /proc/[0-9]*; do
  set -f
  _pid=${'$'}{_p#/proc/}
  case $_pid in *[!0-9]*|'') continue ;; esac
  [ "$_pid" = "$_self" ] && continue
  _st=''
  read -r _st 2>/dev/null < "$_p/stat"
  [ -n "$_st" ] || continue
  case $_st in
    *') '*)
      set -- ${'$'}{_st##*) }
      _ppid=${'$'}{2:-}
      _flags=${'$'}{7:-0} ;;
    *)
      # comm held a newline, so stat's first line stops inside it: status escapes it.
      _ppid=$(sed -n 's/^PPid:[[:space:]]*//p' "$_p/status" 2>/dev/null | head -n 1)
      _flags=0 ;;
  esac
  case $_ppid in *[!0-9]*) _ppid='' ;; esac
  case $_flags in *[!0-9]*|'') _flags=0 ;; esac
  [ "$_ppid" = "$_self" ] && continue
  _n=$((_n + 1))
  if [ "$_n" -gt ${CONTAINER_PROCESS_LIMIT} ]; then _trunc=1; break; fi
  mark "file $_p"
  printf 'pid=%s\nppid=%s\n' "$_pid" "$_ppid"
  _comm=''
  read -r _comm 2>/dev/null < "$_p/comm"
  printf 'comm=%s\n' "$_comm"
  # Kernel threads (PF_KTHREAD in stat's flags; only seen from the host's PID namespace) have no
  # maps, environ or executable.
  if [ $((_flags & 2097152)) -ne 0 ]; then printf 'kernel=1\n'; continue; fi
  printf 'cmdline='; $T head -c 512 "$_p/cmdline" 2>/dev/null | tr '\000\n\r' '   '; printf '\n'
  if have awk; then
    _m=$($T awk 'NR > 200000 { exit } /libvgpu\.so/ { v = 1 } /libcuda\.so/ { c = 1 } /ld-musl/ { m = 1 } /\/ld-linux|\/ld-2\.[0-9]+\.so|\/ld64\.so/ { l = 1 } END { printf "libvgpu=%d libcuda=%d ld-musl=%d ld-linux=%d lines=%d", v, c, m, l, NR }' "$_p/maps" 2>/dev/null) || _m=unreadable
  elif [ -r "$_p/maps" ]; then
    _m="libvgpu=$(grep -c 'libvgpu\.so' "$_p/maps" 2>/dev/null) libcuda=$(grep -c 'libcuda\.so' "$_p/maps" 2>/dev/null) ld-musl=$(grep -c 'ld-musl' "$_p/maps" 2>/dev/null) ld-linux=$(grep -cE '/ld-linux|/ld-2\.[0-9]+\.so|/ld64\.so' "$_p/maps" 2>/dev/null)"
  else
    _m=unreadable
  fi
  printf 'maps=%s\n' "$_m"
  if _fd=$(ls -l "$_p/fd/" 2>/dev/null); then
    case $_fd in *' -> /dev/nvidia'*) printf 'nvidia_fd=1\n' ;; *) printf 'nvidia_fd=0\n' ;; esac
  else
    printf 'nvidia_fd=unreadable\n'
  fi
  { $T tr '\000\n' '\n ' 2>/dev/null < "$_p/environ" || echo '@environ-unreadable'; } | grep -E "$LIMRE" | head -c 8192
  _x=''
  if have readlink; then _x=$(readlink "$_p/exe" 2>/dev/null); fi
  case $_x in *"$NL"*) _x='' ;; esac
  [ -n "$_x" ] && printf 'exe_path=%s\n' "$_x"
  if [ -n "$_x" ] && [ "${'$'}{_x% (deleted)}" = "$_x" ]; then
    case "$_exes" in
      *"$NL$_x	"*) _k=${'$'}{_exes#*"$NL$_x	"}; printf '%s\n' "${'$'}{_k%%"$NL"*}" ;;
      *) _k=$(elfkind "$_p/exe"); printf '%s\n' "$_k"; _exes="$_exes$NL$_x	$_k" ;;
    esac
  else
    elfkind "$_p/exe"
  fi
done
set +f
mark "file summary"
printf 'count=%s\nlimit=%s\ntruncated=%s\n' "$_n" ${CONTAINER_PROCESS_LIMIT} "$_trunc"
finish procs
`;
